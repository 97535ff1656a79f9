/**
 * `keyhold serve`'s HTTP limit flags (`--headers-timeout` and the rest), read into
 * `startServer`'s HttpServerLimits with usage errors that name the flag.
 * @module
 */
import { HTTP_SERVER_DEFAULTS, type HttpServerLimits } from './http-server.js';

/** parseArgs options for the flags, to spread into `keyhold serve`'s own. */
export const HTTP_LIMIT_OPTIONS = {
  'headers-timeout': { type: 'string' },
  'request-timeout': { type: 'string' },
  'keep-alive-timeout': { type: 'string' },
  'max-connections': { type: 'string' },
  'max-header-size': { type: 'string' },
} as const;

/** The flags' lines in `keyhold serve --help`. */
export const HTTP_LIMIT_HELP = `  --headers-timeout MS              time for a request's headers to arrive (default ${HTTP_SERVER_DEFAULTS.headersTimeoutMs});
                                    then 408
  --request-timeout MS              time for a whole request, body included, to arrive
                                    (default ${HTTP_SERVER_DEFAULTS.requestTimeoutMs}); then 408
  --keep-alive-timeout MS           how long an idle keep-alive connection stays open
                                    (default ${HTTP_SERVER_DEFAULTS.keepAliveTimeoutMs})
  --max-connections N               connections open at once; more are closed as they
                                    arrive (default ${HTTP_SERVER_DEFAULTS.maxConnections})
  --max-header-size BYTES           largest request line and headers; over it, 431
                                    (default ${HTTP_SERVER_DEFAULTS.maxHeaderSize})
`;

const FLAGS = {
  'headers-timeout': 'headersTimeoutMs',
  'request-timeout': 'requestTimeoutMs',
  'keep-alive-timeout': 'keepAliveTimeoutMs',
  'max-connections': 'maxConnections',
  'max-header-size': 'maxHeaderSize',
} as const satisfies Record<keyof typeof HTTP_LIMIT_OPTIONS, keyof HttpServerLimits>;

/**
 * The limits the flags set (absent flags keep startServer's defaults).
 * @throws Error naming the flag: not a positive integer, or a headers timeout longer than the
 * request timeout
 * @example
 * httpLimitsFromFlags({ 'request-timeout': '60000' }); // { requestTimeoutMs: 60000 }
 */
export function httpLimitsFromFlags(
  values: Partial<Record<keyof typeof HTTP_LIMIT_OPTIONS, string>>,
): HttpServerLimits {
  const limits: HttpServerLimits = {};
  for (const [flag, option] of Object.entries(FLAGS) as [
    keyof typeof FLAGS,
    keyof HttpServerLimits,
  ][]) {
    const text = values[flag];
    if (text === undefined) continue;
    const value = Number(text);
    if (!/^\d{1,15}$/.test(text) || value <= 0) {
      throw new Error(`--${flag} must be a positive whole number, got "${text}"`);
    }
    limits[option] = value;
  }
  const headers = limits.headersTimeoutMs ?? HTTP_SERVER_DEFAULTS.headersTimeoutMs;
  const request = limits.requestTimeoutMs ?? HTTP_SERVER_DEFAULTS.requestTimeoutMs;
  if (headers > request) {
    const shown = (value: number, given: number | undefined) =>
      given === undefined ? `${value}, the default` : String(value);
    throw new Error(
      `--headers-timeout (${shown(headers, limits.headersTimeoutMs)}) must not exceed --request-timeout (${shown(request, limits.requestTimeoutMs)}): the headers are part of the request`,
    );
  }
  return limits;
}
