/**
 * `pinoLogger`: the Logger port on pino. One JSON line per event, `{"level":"info","time":…,
 * "message":…, …fields}`, on stderr by default (stdout is the CLI's machine-readable output).
 * @module
 */
import type { Logger, LogLevel } from '@keyhold/activities';
import { type DestinationStream, destination, pino, stdTimeFunctions } from 'pino';

/**
 * Field names whose values never reach a line, at the top level or one level down, whatever a
 * caller passes: the loggers' callers do not log secrets, and this holds if one ever does.
 */
const SECRET_FIELDS = [
  'stamp',
  'privateKey',
  'apiPrivateKey',
  'mnemonic',
  'otpCode',
  'code',
  'credentialBundle',
  'password',
  'authorization',
  'clientSecret',
  'masterKey',
];

/** What `pinoLogger` takes. */
export interface PinoLoggerOptions {
  /** The least severe level written. Default `info`. */
  level?: LogLevel;
  /** Where lines go. Default: stderr, written synchronously so no line is lost at exit. */
  destination?: DestinationStream;
}

/**
 * A Logger writing pino JSON lines, with secret-named fields redacted.
 * @example
 * import { pinoLogger } from '@keyhold/logger-pino';
 * const logger = pinoLogger({ level: 'warn' });
 * logger.warn('rate limiter unavailable', { reason: 'ECONNREFUSED' });
 * // {"level":"warn","time":"2026-11-26T07:30:00.000Z","reason":"ECONNREFUSED","message":"rate limiter unavailable"}
 */
export function pinoLogger(options: PinoLoggerOptions = {}): Logger {
  const log = pino(
    {
      level: options.level ?? 'info',
      base: null,
      messageKey: 'message',
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: {
        paths: SECRET_FIELDS.flatMap((field) => [field, `*.${field}`]),
        censor: '[redacted]',
      },
    },
    options.destination ?? destination({ dest: 2, sync: true }),
  );
  return {
    debug: (message, fields) => log.debug(fields ?? {}, message),
    info: (message, fields) => log.info(fields ?? {}, message),
    warn: (message, fields) => log.warn(fields ?? {}, message),
    error: (message, fields) => log.error(fields ?? {}, message),
  };
}
