/**
 * The wire form of a signature (wire-compat §7.1): `{r, s, v}` as hex without `0x`, r and s
 * zero-padded to 64 characters, v the recovery id as `"00"` or `"01"` (`"00"` for Ed25519,
 * whose r ‖ s is the 64-byte signature). Clients parse v as decimal 0/1 (viem's `BigInt(v)`,
 * ethers' `parseInt(v) + 27`), so it is never `1b`/`1c`; and Solana clients concatenate r and
 * s, so a trimmed leading zero would corrupt the signature. Hence one function, tested.
 * @module
 */
import { bytesToHex } from '@noble/hashes/utils.js';
import type { RawSignature } from './key-vault.js';

/** A signature as signRawPayload returns it. */
export interface SignatureResult {
  readonly r: string;
  readonly s: string;
  readonly v: '00' | '01';
}

/**
 * Formats a vault signature for the wire.
 * @example
 * formatSignature({ r, s, recovery: 1 });
 * // { r: '00ab…' (64 hex), s: '…' (64 hex), v: '01' }
 */
export function formatSignature(raw: RawSignature): SignatureResult {
  return {
    r: scalarHex(raw.r, 'r'),
    s: scalarHex(raw.s, 's'),
    v: raw.recovery === 1 ? '01' : '00',
  };
}

function scalarHex(value: Uint8Array, name: string): string {
  if (!(value instanceof Uint8Array) || value.length > 32) {
    throw new RangeError(`signature ${name} must be at most 32 bytes`);
  }
  return bytesToHex(value).padStart(64, '0');
}
