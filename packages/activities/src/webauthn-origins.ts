/**
 * Which origins a passkey ceremony may come from, and which relying-party ids its
 * authenticator data may name. Browsers let a page use as rpId its own host or a registrable
 * parent of it (never a public suffix, which browsers refuse to create passkeys for), so the
 * rpId hash must be sha256 of one of those. WebAuthn needs a secure context: https, or http on
 * a loopback host. An organization may narrow the origins with UPDATE_ALLOWED_ORIGINS; a
 * native app's origin (`android:apk-key-hash:…`, `ios:bundle-id:…`) is accepted only when
 * listed, and then the rpId must belong to one of the listed web origins.
 * @module
 */
import { KeyholdError, type MessageKey } from '@keyhold/protocol';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const NATIVE_ORIGIN = /^(android:apk-key-hash:[A-Za-z0-9_-]+|ios:bundle-id:[A-Za-z0-9.-]+)$/;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** The URL of a secure-context web origin (`https://host[:port]`, or http on loopback). */
function webOrigin(origin: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return undefined;
  }
  if (url.origin !== origin) return undefined;
  if (url.protocol === 'https:') return url;
  const loopback = LOOPBACK_HOSTS.has(url.hostname) || url.hostname.endsWith('.localhost');
  return url.protocol === 'http:' && loopback ? url : undefined;
}

/** The host and each parent domain of it with at least two labels (an IP: itself). */
function hostAndParents(host: string): string[] {
  if (IPV4.test(host) || host.startsWith('[')) return [host];
  const labels = host.split('.');
  if (labels.length === 1) return [host];
  const ids: string[] = [];
  for (let i = 0; i <= labels.length - 2; i++) ids.push(labels.slice(i).join('.'));
  return ids;
}

/**
 * The rpIds a ceremony from `origin` may name: its host and registrable parents; for a listed
 * native-app origin, those of every listed web origin. Empty when none applies.
 * @example
 * relyingPartyIdsOf('https://app.example.com', []); // ['app.example.com', 'example.com']
 */
export function relyingPartyIdsOf(origin: string, allowedOrigins: readonly string[]): string[] {
  const url = webOrigin(origin);
  if (url) return hostAndParents(url.hostname);
  if (!NATIVE_ORIGIN.test(origin) || !allowedOrigins.includes(origin)) return [];
  const ids = allowedOrigins.flatMap((o) => {
    const listed = webOrigin(o);
    return listed ? hostAndParents(listed.hostname) : [];
  });
  return [...new Set(ids)];
}

/**
 * The ceremony's origin is one the organization allows (any, when it lists none).
 * @throws KeyholdError `error` saying the origin is not allowed
 */
export function requireAllowedOrigin(
  origin: string,
  allowedOrigins: readonly string[],
  error: MessageKey,
): void {
  if (allowedOrigins.length > 0 && !allowedOrigins.includes(origin)) {
    throw new KeyholdError(error, { reason: 'the origin is not an allowed origin', origin });
  }
}

/**
 * An origin as UPDATE_ALLOWED_ORIGINS stores it: a secure-context web origin exactly as
 * browsers write it in clientDataJSON (scheme, host, port when not the default; no path), or a
 * native app's origin.
 * @throws KeyholdError INVALID_ALLOWED_ORIGIN
 */
export function checkAllowedOrigin(origin: string): string {
  if (webOrigin(origin) || NATIVE_ORIGIN.test(origin)) return origin;
  throw new KeyholdError('INVALID_ALLOWED_ORIGIN', { origin });
}
