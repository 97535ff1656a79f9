/**
 * Stellar account ids (ADDRESS_FORMAT_XLM): the StrKey `G…` form of an Ed25519 public key,
 * as defined by SEP-0023 and stellar-base `StrKey.encodeEd25519PublicKey`:
 * base32 (RFC 4648, no padding) of `versionByte ‖ key ‖ crc16`, where the version byte is
 * `6 << 3` (0x30, which makes the first character `G`) and crc16 is CRC16-XModem of
 * `versionByte ‖ key`, appended little-endian. 35 bytes encode to exactly 56 characters.
 * base32 is @scure/base; CRC16-XModem is the one piece written here (no installed library has
 * it, and it is a dozen lines).
 * @module
 */
import { base32 } from '@scure/base';

/** StrKey version byte of an ed25519 public key (account id). */
export const STELLAR_ACCOUNT_VERSION = 6 << 3;

/**
 * CRC-16/XMODEM: polynomial 0x1021, initial value 0, no reflection, no final xor.
 * Check value (CRC catalogue): crc16xmodem('123456789') = 0x31c3.
 * @example
 * crc16xmodem(new TextEncoder().encode('123456789')); // 0x31c3
 */
export function crc16xmodem(data: Uint8Array): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}

/**
 * The StrKey account id of a 32-byte Ed25519 public key.
 * @example
 * stellarAddress(pub); // 'G…' (56 characters)
 */
export function stellarAddress(publicKey: Uint8Array): string {
  const payload = Uint8Array.of(STELLAR_ACCOUNT_VERSION, ...publicKey);
  const crc = crc16xmodem(payload);
  return base32.encode(Uint8Array.of(...payload, crc & 0xff, crc >>> 8));
}
