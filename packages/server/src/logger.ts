/**
 * The Logger port (owned by `@keyhold/activities`) as the server binds it: by default pino
 * lines on stderr at `warn`, so an embedded Keyhold writes its warnings and faults but no
 * line per request (`keyhold serve` logs at `info`, with `--log-level`).
 * @module
 */
import type { Logger, LogLevel } from '@keyhold/activities';
import { pinoLogger } from '@keyhold/logger-pino';

export { Logger, silentLogger } from '@keyhold/activities';

/**
 * JSON lines on stderr (stdout is reserved for the CLI's machine-readable output), through
 * `@keyhold/logger-pino`. Default level `warn`.
 * @example
 * createKeyhold({ logger: stderrLogger('info') }); // one access line per request
 */
export function stderrLogger(level: LogLevel = 'warn'): Logger {
  return pinoLogger({ level });
}
