/**
 * Why a request to the target never got an answer, in words an operator can act on: the
 * `fetch failed` of undici hides the cause (a refused connection, a name that does not resolve,
 * a certificate the client does not trust, a timeout) in `error.cause`.
 * @module
 */

/** A cause of a failed connection, and what it means. */
export interface ConnectionFailure {
  /** `refused`, `dns`, `tls`, `timeout`, `reset` or `other`. */
  kind: 'refused' | 'dns' | 'tls' | 'timeout' | 'reset' | 'other';
  /** One line naming the cause and the likely fix. */
  message: string;
}

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_|ERR_OSSL_)/;

function codeOf(error: unknown): { code?: string; message: string } | undefined {
  for (
    let e = error as { code?: unknown; cause?: unknown; message?: unknown } | undefined, depth = 0;
    e && depth < 5;
    depth++
  ) {
    if (typeof e.code === 'string') return { code: e.code, message: String(e.message ?? '') };
    // An AggregateError (several addresses tried): the first one's code.
    const errors = (e as { errors?: unknown[] }).errors;
    if (Array.isArray(errors) && errors.length > 0) {
      const inner = codeOf(errors[0]);
      if (inner) return inner;
    }
    e = e.cause as typeof e;
  }
  return undefined;
}

/**
 * The cause of a network-level failure to reach `url`, or `undefined` when `error` is not one
 * (an HTTP status, a wrong answer).
 * @example
 * try { await fetch(url); } catch (error) { console.log(connectionFailure(error, url)?.message); }
 * // 'connection refused by 127.0.0.1:9 (nothing listens there: is the server running, the URL right?)'
 */
export function connectionFailure(error: unknown, url: string): ConnectionFailure | undefined {
  const found = codeOf(error);
  if (found?.code === undefined) return undefined;
  const { code, message } = found;
  let host = url;
  try {
    const parsed = new URL(url);
    host = parsed.host;
  } catch {
    // keep the text as given
  }
  if (code === 'ECONNREFUSED') {
    return {
      kind: 'refused',
      message: `connection refused by ${host} (nothing listens there: is the server running, the URL right?)`,
    };
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') {
    return {
      kind: 'dns',
      message: `DNS: the host name of ${host} does not resolve (${code}); check the URL's host`,
    };
  }
  if (TLS_CODES.test(code) || code === 'EPROTO') {
    const hint =
      code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'EPROTO'
        ? ' (an https:// URL to a server speaking plain HTTP? try http://)'
        : ' (the server certificate is not trusted here: NODE_EXTRA_CA_CERTS=ca.pem adds a CA)';
    return { kind: 'tls', message: `TLS with ${host} failed: ${code} ${message}`.trim() + hint };
  }
  if (
    code === 'ETIMEDOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT'
  ) {
    return {
      kind: 'timeout',
      message: `no answer from ${host} in time (${code}): a firewall, a wrong port, or the server is stuck`,
    };
  }
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') {
    return {
      kind: 'reset',
      message: `${host} closed the connection (${code}): an http:// URL to a TLS port? try https://`,
    };
  }
  return { kind: 'other', message: `cannot reach ${host}: ${code} ${message}`.trim() };
}
