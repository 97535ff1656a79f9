/**
 * What a vault seals, before sealing: one layout for every vault that keeps secrets as
 * ciphertext (the software vault under its master key, the PKCS#11 vault under a token key),
 * so both derive, reveal and sign from the same bytes.
 *
 * - A wallet seed: BIP39 entropy (16–32 bytes) ‖ the 64-byte BIP39 seed. The entropy gives the
 *   mnemonic back for export; the stored seed spares a PBKDF2 run on every derivation.
 * - A private key: the 32-byte key ‖ its public key (as `publicKeyFromPrivateKey` gives it).
 *
 * Every function zeroes the intermediate secrets it makes; callers zero what they are handed.
 * @module
 */
import type { Curve } from '@keyhold/protocol';
import type { CryptoWorkPool } from './crypto-work-pool.js';
import { assertCurve } from './curves.js';
import { parseDerivationPath } from './derivation-path.js';
import { deriveKeyFromSeed } from './hd-derivation.js';
import type { DerivationRequest } from './hd-derivation-batch.js';
import type { RawSignature } from './key-vault.js';
import { entropyToMnemonic, mnemonicToSeed } from './mnemonic.js';

/** The length of a BIP39 seed (PBKDF2-HMAC-SHA512 output). */
export const BIP39_SEED_LENGTH = 64;

const ENTROPY_LENGTHS: ReadonlySet<number> = new Set([16, 20, 24, 28, 32]);

/**
 * Entropy ‖ BIP39 seed, ready to seal. The caller zeroes the result.
 * @example
 * const plaintext = await seedPlaintext(entropy);
 * try { return seal(plaintext); } finally { plaintext.fill(0); }
 */
export async function seedPlaintext(entropy: Uint8Array): Promise<Uint8Array> {
  const bip39Seed = await mnemonicToSeed(entropyToMnemonic(entropy));
  try {
    const plaintext = new Uint8Array(entropy.length + bip39Seed.length);
    plaintext.set(entropy);
    plaintext.set(bip39Seed, entropy.length);
    return plaintext;
  } finally {
    bip39Seed.fill(0);
  }
}

/**
 * True when `plaintext` has the length of a seed plaintext (a valid entropy length plus 64).
 * @example
 * isSeedPlaintextLength(16 + 64); // true
 */
export function isSeedPlaintextLength(length: number): boolean {
  return ENTROPY_LENGTHS.has(length - BIP39_SEED_LENGTH);
}

/**
 * The mnemonic of an opened seed plaintext, for export.
 * @example
 * mnemonicOfSeedPlaintext(await seedPlaintext(entropy)) === entropyToMnemonic(entropy); // true
 */
export function mnemonicOfSeedPlaintext(plaintext: Uint8Array): string {
  return entropyToMnemonic(plaintext.subarray(0, plaintext.length - BIP39_SEED_LENGTH));
}

/**
 * Derives the key at `path` from an opened seed plaintext and hands it to `seal` (private key,
 * public key); the derived secret is zeroed when `seal` returns.
 * @example
 * deriveFromSeedPlaintext(plaintext, 'CURVE_SECP256K1', "m/44'/60'/0'/0/0", (priv, pub) => sealKey(priv, pub));
 */
export function deriveFromSeedPlaintext<T>(
  plaintext: Uint8Array,
  curve: Curve,
  path: string,
  seal: (privateKey: Uint8Array, publicKey: Uint8Array) => T,
): T {
  const bip39Seed = plaintext.subarray(plaintext.length - BIP39_SEED_LENGTH);
  const derived = deriveKeyFromSeed(bip39Seed, curve, path);
  try {
    return seal(derived.privateKey, derived.publicKey);
  } finally {
    derived.privateKey.fill(0);
    derived.chainCode.fill(0);
  }
}

/**
 * Private key ‖ public key, ready to seal. The caller zeroes the result.
 * @example
 * const plaintext = keyPlaintext(privateKey, publicKey); // 32 + 33 bytes for secp256k1
 */
export function keyPlaintext(privateKey: Uint8Array, publicKey: Uint8Array): Uint8Array {
  const plaintext = new Uint8Array(privateKey.length + publicKey.length);
  plaintext.set(privateKey);
  plaintext.set(publicKey, privateKey.length);
  return plaintext;
}

/**
 * Keys derived from a sealed wallet seed through a CryptoWorkPool — what a vault's `deriveKey`
 * and `deriveKeys` do: every (curve, path) is checked before the secret is touched, the seed
 * is opened (`openSeed`), only a copy of its 64-byte BIP39 seed goes to the job (one
 * `deriveKey` job for one path, one `deriveKeys` job for several), and the opened plaintext
 * is zeroed before the job runs. Each derived private key is zeroed when its `seal` returns,
 * and all of them if one `seal` throws.
 * @throws KeyholdError for an unknown curve or a bad path, before `openSeed` is called
 * @example
 * deriveFromSealedSeedIn(pool, () => open(masterKey, seed), requests, (curve, priv, pub) =>
 *   sealKey(curve, priv, pub),
 * );
 */
export async function deriveFromSealedSeedIn<T>(
  pool: CryptoWorkPool,
  openSeed: () => Uint8Array,
  requests: readonly DerivationRequest[],
  seal: (curve: Curve, privateKey: Uint8Array, publicKey: Uint8Array) => T,
): Promise<T[]> {
  for (const { curve, path } of requests) {
    assertCurve(curve);
    parseDerivationPath(path, curve);
  }
  if (requests.length === 0) return [];
  const plaintext = openSeed();
  let seed: Uint8Array;
  try {
    seed = copyOf(plaintext.subarray(plaintext.length - BIP39_SEED_LENGTH));
  } finally {
    plaintext.fill(0);
  }
  const [only] = requests;
  const keys =
    requests.length === 1 && only
      ? [await pool.run('deriveKey', { seed, curve: only.curve, path: only.path })]
      : await pool.run('deriveKeys', {
          seed,
          requests: requests.map(({ curve, path }) => ({ curve, path })),
        });
  try {
    return keys.map(({ privateKey, publicKey }, i) =>
      seal((requests[i] as DerivationRequest).curve, privateKey, publicKey),
    );
  } finally {
    for (const { privateKey } of keys) privateKey.fill(0);
  }
}

/**
 * `signWithPrivateKey` of an opened key plaintext (private ‖ public) through a CryptoWorkPool:
 * the job gets a copy of the 32-byte key (and consumes it), so the caller may zero `plaintext`
 * as soon as this returns its promise.
 * @example
 * let pending;
 * try { pending = signKeyPlaintextIn(pool, curve, plaintext, digest); } finally { plaintext.fill(0); }
 * return pending;
 */
export function signKeyPlaintextIn(
  pool: CryptoWorkPool,
  curve: Curve,
  plaintext: Uint8Array,
  message: Uint8Array,
): Promise<RawSignature> {
  return pool.run('sign', {
    curve,
    privateKey: copyOf(plaintext.subarray(0, 32)),
    publicKey: copyOf(plaintext.subarray(32)),
    message,
  });
}

/**
 * `signTaprootWithPrivateKey` of an opened secp256k1 key plaintext through a CryptoWorkPool
 * (the job gets, and consumes, a copy of the 32-byte key).
 * @example
 * const signature = await signTaprootKeyPlaintextIn(pool, plaintext, sighash, new Uint8Array());
 */
export function signTaprootKeyPlaintextIn(
  pool: CryptoWorkPool,
  plaintext: Uint8Array,
  digest: Uint8Array,
  merkleRoot: Uint8Array,
): Promise<Uint8Array> {
  return pool.run('signTaproot', {
    privateKey: copyOf(plaintext.subarray(0, 32)),
    digest,
    merkleRoot,
  });
}

/** A copy in a buffer of its own (a Node Buffer's `slice` would share the memory). */
function copyOf(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return copy;
}
