/**
 * `@keyhold/logger-pino`: Keyhold's Logger port on pino.
 * @module
 */
export { type PinoLoggerOptions, pinoLogger } from './pino-logger.js';
