/**
 * What rotating the software vault's master key needs: every sealed secret opened under the
 * old key and sealed again, for the same purpose, under the new one; and the derivation root
 * (the secret Keyhold's published keys are derived from, see `sealDerivationRoot`) kept sealed
 * under whichever master key is current.
 *
 * Only this vault's secrets (`ksw1.…`) are touched: a PKCS#11 reference (`kp11.…`) is a handle
 * to a key the token holds, not something the master key seals.
 * @module
 */
import { createSecretKey } from 'node:crypto';
import { CURVES } from '@keyhold/protocol';
import { MASTER_KEY_LENGTH } from './master-key.js';
import { OPEN_FAILED_MESSAGE, open, SEALED_PREFIX, seal } from './sealed-box.js';

/** Every purpose (AAD) this vault seals under: the seed, then a key of each curve. */
const PURPOSES = ['keyhold/seed/v1', ...CURVES.map((curve) => `keyhold/key/v1/${curve}`)];
const ROOT_PURPOSE = 'keyhold/derivation-root/v1';

function secretKey(masterKey: Uint8Array) {
  if (!(masterKey instanceof Uint8Array) || masterKey.length !== MASTER_KEY_LENGTH) {
    throw new Error(`master key must be ${MASTER_KEY_LENGTH} bytes`);
  }
  return createSecretKey(masterKey);
}

/**
 * Whether `sealed` is a secret of the software vault (and so something a rotation re-seals).
 * @example
 * isSoftwareSealed('ksw1.AAAA'); // true
 * isSoftwareSealed('kp11.key.k1.00'); // false: a PKCS#11 handle
 */
export function isSoftwareSealed(sealed: string): boolean {
  return typeof sealed === 'string' && sealed.startsWith(SEALED_PREFIX);
}

/**
 * A sealed secret opened under `from` and sealed again under `to`, for the same purpose (a
 * seed stays a seed, a secp256k1 key a secp256k1 key). Throws `Error('sealed secret could not
 * be opened')` when `from` does not open it (a wrong key, a tampered value).
 * @example
 * const moved = resealSecret(oldMasterKey, newMasterKey, wallet.seed);
 * new SoftwareKeyVault({ masterKey: newMasterKey }).revealMnemonic(moved); // the same words
 */
export function resealSecret(from: Uint8Array, to: Uint8Array, sealed: string): string {
  const oldKey = secretKey(from);
  const newKey = secretKey(to);
  for (const purpose of PURPOSES) {
    let plaintext: Uint8Array;
    try {
      plaintext = open(oldKey, purpose, sealed);
    } catch {
      continue;
    }
    try {
      return seal(newKey, purpose, plaintext);
    } finally {
      plaintext.fill(0);
    }
  }
  throw new Error(OPEN_FAILED_MESSAGE);
}

/**
 * Seals the derivation root (32 bytes) under `masterKey`. The root is what the signer,
 * notarizer, TLS-fetcher and webhook keys are derived from; until the first rotation it is the
 * master key itself, and a rotation stores it sealed so those published keys do not change.
 * @example
 * const sealed = sealDerivationRoot(newMasterKey, oldMasterKey); // 'ksw1.…'
 */
export function sealDerivationRoot(masterKey: Uint8Array, root: Uint8Array): string {
  if (!(root instanceof Uint8Array) || root.length !== MASTER_KEY_LENGTH) {
    throw new Error(`derivation root must be ${MASTER_KEY_LENGTH} bytes`);
  }
  return seal(secretKey(masterKey), ROOT_PURPOSE, root);
}

/**
 * Opens a derivation root sealed by `sealDerivationRoot`, or throws `Error('sealed secret
 * could not be opened')` (the wrong master key). Also how a start-up tells which of two
 * master keys the data is under.
 * @example
 * const root = openDerivationRoot(masterKey, sealed); // 32 bytes
 */
export function openDerivationRoot(masterKey: Uint8Array, sealed: string): Uint8Array {
  return open(secretKey(masterKey), ROOT_PURPOSE, sealed);
}
