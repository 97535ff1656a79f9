/**
 * The Logger port: structured lines, never request bodies, stamps or secrets.
 * @module
 */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export const Logger: unique symbol = Symbol.for('keyhold.Logger');

/** JSON lines on stderr (stdout is reserved for the CLI's machine-readable output). */
export function stderrLogger(): Logger {
  const line =
    (level: string) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      process.stderr.write(
        `${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`,
      );
    };
  return { info: line('info'), warn: line('warn'), error: line('error') };
}

/** Discards everything; for tests and embedding hosts that log elsewhere. */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
