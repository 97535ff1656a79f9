/**
 * `Timestamp('<RFC 3339>')`: an instant, as nanoseconds since the Unix epoch (bigint). The
 * offset must be zero: `Z`, `z`, `+00:00` or `-00:00`; any other offset is refused.
 */
import { daysFromCivil, daysInMonth } from './civil.js';

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parse an RFC 3339 timestamp with a zero UTC offset; returns an error detail on failure. */
export function parseTimestamp(text: string): { ns: bigint } | { error: string } {
  const m = RFC3339.exec(text);
  if (!m) {
    return { error: `'${text}' is not an RFC 3339 timestamp (e.g. '2026-03-01T00:00:00Z')` };
  }
  const [, ys, mos, ds, hs, mis, ss, frac = '', offset = ''] = m;
  if (offset !== 'Z' && offset !== 'z' && offset !== '+00:00' && offset !== '-00:00') {
    return { error: `timestamp '${text}' must have a zero UTC offset (Z or +00:00)` };
  }
  const year = Number(ys);
  const month = Number(mos);
  const day = Number(ds);
  const hour = Number(hs);
  const minute = Number(mis);
  const second = Number(ss);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return { error: `timestamp '${text}' is not a valid calendar date` };
  }
  if (hour > 23 || minute > 59 || second > 59) {
    return { error: `timestamp '${text}' is not a valid time of day` };
  }
  const seconds =
    BigInt(daysFromCivil(year, month, day)) * 86_400n + BigInt(hour * 3600 + minute * 60 + second);
  const nanos = BigInt((frac + '000000000').slice(0, 9));
  return { ns: seconds * 1_000_000_000n + nanos };
}

/** Epoch milliseconds → epoch nanoseconds. */
export function msToNs(ms: number): bigint {
  return BigInt(Math.floor(ms)) * 1_000_000n;
}
