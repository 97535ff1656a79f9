/**
 * The Logger port: structured lines, never request bodies, stamps or secrets. The domain owns
 * it so that adapters (`@keyhold/logger-pino`) implement it without depending on the server.
 * @module
 */

/**
 * Where Keyhold writes what happened: a message and flat fields, one line each.
 * @example
 * const logger: Logger = pinoLogger({ level: 'info' });
 * logger.info('listening', { url: 'http://127.0.0.1:8080' });
 */
export interface Logger {
  /** Detail for diagnosis; off at the default level. Optional: a logger without it drops them. */
  debug?(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * The container token of the Logger.
 * @example
 * const logger = container.get<Logger>(Logger);
 */
export const Logger: unique symbol = Symbol.for('keyhold.Logger');

/**
 * The levels a Logger is set to, from the most to the least talkative; `silent` writes nothing.
 * @example
 * const level: LogLevel = 'warn'; // keyhold serve --log-level warn
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/**
 * Every LogLevel, for parsing a flag.
 * @example
 * LOG_LEVELS.includes(value as LogLevel);
 */
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

/**
 * Discards everything; for tests and embedding hosts that log elsewhere.
 * @example
 * createKeyhold({ logger: silentLogger });
 */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
