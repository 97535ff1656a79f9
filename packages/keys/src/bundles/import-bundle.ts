/**
 * Import (wire-compat §3.3). INIT_IMPORT_WALLET / INIT_IMPORT_PRIVATE_KEY return an
 * `importBundle`: a fresh P-256 target key, signed by the server's signer key together with
 * the organization and the user. The client (`encryptWalletToBundle`,
 * `encryptPrivateKeyToBundle`) checks all three, HPKE-encrypts the secret to the target and
 * sends `{"encappedPublic","ciphertext"}` as IMPORT_WALLET / IMPORT_PRIVATE_KEY's
 * `encryptedBundle`, which `openImportBundle` decrypts with the target's private key. The
 * caller keeps that private key sealed (in the vault) between the two activities and deletes
 * it once the import is done.
 * @module
 */
import { type Curve, KeyholdError } from '@keyhold/protocol';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { assertCurve } from '../curves.js';
import { assertValidMnemonic } from '../mnemonic.js';
import { isValidPrivateKey } from '../public-key.js';
import {
  assertIdentifier,
  bundleError,
  decodeHex,
  parseJsonObject,
  uncompressedP256,
} from './encoding.js';
import { HPKE_TAG_LENGTH, hpkeOpen } from './hpke.js';
import { type BundleSigner, signEnvelope } from './signed-envelope.js';

/** The largest ciphertext `openImportBundle` accepts (a 24-word mnemonic is under 256 bytes). */
export const MAX_IMPORT_CIPHERTEXT_BYTES = 16 * 1024;

/** Input of `createImportTarget`. */
export interface CreateImportTargetInput {
  /** The organization of the INIT_IMPORT request; the client refuses a bundle for another. */
  readonly organizationId: string;
  /** The user the import is for (the intent's `userId`); the client checks it too. */
  readonly userId: string;
  readonly signer: BundleSigner;
  /** The target key to use (see `deriveImportTargetKey`); default: a fresh random key. */
  readonly targetPrivateKey?: Uint8Array;
}

/** What `createImportTarget` returns. */
export interface ImportTarget {
  /** The INIT_IMPORT result's `importBundle` JSON string. */
  readonly importBundle: string;
  /** The target's private key (32 bytes): seal it until IMPORT_* completes, then discard it. */
  readonly targetPrivateKey: Uint8Array;
  /** The target's public key, uncompressed hex (as in the bundle's `targetPublic`). */
  readonly targetPublicKey: string;
}

/**
 * A new import target and its signed `importBundle`:
 * `{"version":"v1.0.0","data":hex({"targetPublic","organizationId","userId"}),
 * "dataSignature","enclaveQuorumPublic"}`.
 * @example
 * const { importBundle, targetPrivateKey } = createImportTarget({ organizationId, userId, signer });
 */
export function createImportTarget(input: CreateImportTargetInput): ImportTarget {
  const { organizationId, userId, signer } = input;
  assertIdentifier(organizationId, 'organizationId');
  assertIdentifier(userId, 'userId');
  const targetPrivateKey = input.targetPrivateKey ?? p256.utils.randomSecretKey();
  if (!p256.utils.isValidSecretKey(targetPrivateKey)) {
    throw new TypeError('targetPrivateKey is not a P-256 private key');
  }
  const targetPublicKey = bytesToHex(p256.getPublicKey(targetPrivateKey, false));
  const importBundle = signEnvelope(
    { targetPublic: targetPublicKey, organizationId, userId },
    signer,
  );
  return { importBundle, targetPrivateKey, targetPublicKey };
}

/** Input of `openImportBundle`. */
export interface OpenImportBundleInput {
  /** The IMPORT_* intent's `encryptedBundle`: the JSON string `{"encappedPublic","ciphertext"}`. */
  readonly encryptedBundle: string;
  /** The private key `createImportTarget` returned for this import. */
  readonly targetPrivateKey: Uint8Array;
}

/**
 * The plaintext of an `encryptedBundle`: the UTF-8 mnemonic (IMPORT_WALLET) or the private key
 * bytes (IMPORT_PRIVATE_KEY); check it with `parseImportedMnemonic` / `parseImportedPrivateKey`.
 * Refuses malformed JSON or hex, a key that is not a P-256 point, and a bundle that does not
 * decrypt with this target (another target, or altered in transit) with REQUEST_INVALID
 * (`field: 'encryptedBundle'`); no plaintext is returned then.
 * @example
 * const plaintext = await openImportBundle({ encryptedBundle: intent.encryptedBundle, targetPrivateKey });
 */
export async function openImportBundle(input: OpenImportBundleInput): Promise<Uint8Array> {
  const { encryptedBundle, targetPrivateKey } = input;
  if (!(targetPrivateKey instanceof Uint8Array) || !p256.utils.isValidSecretKey(targetPrivateKey)) {
    throw new TypeError('targetPrivateKey is not a P-256 private key');
  }
  const bundle = parseJsonObject(encryptedBundle, 'encryptedBundle');
  const encappedPublic = uncompressedP256(
    decodeHex(bundle.encappedPublic, 'encryptedBundle.encappedPublic'),
    'encryptedBundle.encappedPublic',
  );
  const ciphertext = decodeHex(bundle.ciphertext, 'encryptedBundle.ciphertext');
  if (ciphertext.length < HPKE_TAG_LENGTH) {
    throw bundleError('encryptedBundle.ciphertext', 'shorter than the 16-byte AES-GCM tag');
  }
  if (ciphertext.length > MAX_IMPORT_CIPHERTEXT_BYTES) {
    throw bundleError('encryptedBundle.ciphertext', 'longer than any importable secret');
  }
  try {
    return await hpkeOpen({ encappedPublic, ciphertext }, targetPrivateKey);
  } catch {
    // The cause is dropped on purpose: nothing about the keys or the data leaves this function.
    throw bundleError(
      'encryptedBundle',
      'the bundle does not decrypt with this import target: it was encrypted to another target, or altered',
    );
  }
}

const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * The mnemonic of an IMPORT_WALLET plaintext, normalized (NFKD, lower case, single spaces).
 * Refuses bytes that are not UTF-8 or not a valid English BIP39 mnemonic (12–24 words, correct
 * checksum) with INVALID_MNEMONIC; the mnemonic never appears in the error.
 * @example
 * const mnemonic = parseImportedMnemonic(await openImportBundle({ encryptedBundle, targetPrivateKey }));
 */
export function parseImportedMnemonic(plaintext: Uint8Array): string {
  let text: string;
  try {
    text = utf8Strict.decode(plaintext);
  } catch {
    throw new KeyholdError('INVALID_MNEMONIC', { reason: 'not UTF-8 text' });
  }
  return assertValidMnemonic(text);
}

/**
 * The private key of an IMPORT_PRIVATE_KEY plaintext for `curve`: 32 bytes that are a valid key
 * of the curve (for secp256k1 and P-256 a scalar in [1, n-1]). For Ed25519 a 64-byte Solana
 * keypair (seed ‖ public key) is accepted too when its public half matches the seed; the seed
 * is returned. Anything else is INVALID_PRIVATE_KEY (with the curve and the length, never the
 * bytes); an unknown curve is INVALID_CURVE.
 * @example
 * parseImportedPrivateKey('CURVE_SECP256K1', plaintext).length; // 32
 */
export function parseImportedPrivateKey(curve: Curve, plaintext: Uint8Array): Uint8Array {
  assertCurve(curve);
  let key = plaintext;
  if (curve === 'CURVE_ED25519' && plaintext.length === 64) {
    const seed = plaintext.subarray(0, 32);
    if (bytesToHex(ed25519.getPublicKey(seed)) !== bytesToHex(plaintext.subarray(32))) {
      throw new KeyholdError('INVALID_PRIVATE_KEY', {
        curve,
        reason: 'the public half of the 64-byte keypair does not match its seed',
      });
    }
    key = seed;
  }
  if (key.length !== 32) {
    throw new KeyholdError('INVALID_PRIVATE_KEY', {
      curve,
      length: plaintext.length,
      reason: 'expected 32 bytes',
    });
  }
  if (!isValidPrivateKey(curve, key)) {
    throw new KeyholdError('INVALID_PRIVATE_KEY', {
      curve,
      reason: 'not a valid private key of the curve',
    });
  }
  return Uint8Array.from(key);
}

/**
 * The import target key of one user of one organization, derived from a server secret
 * (HKDF-SHA256). A server needs no storage between INIT_IMPORT and IMPORT, and every instance
 * that shares the secret opens the same bundles. It is a static HPKE recipient key per user,
 * as HPKE recipients usually are: each bundle still has its own ephemeral encapsulated key.
 * @example
 * const targetPrivateKey = deriveImportTargetKey(signer.privateKey, organizationId, userId);
 */
export function deriveImportTargetKey(
  secret: Uint8Array,
  organizationId: string,
  userId: string,
): Uint8Array {
  assertIdentifier(organizationId, 'organizationId');
  assertIdentifier(userId, 'userId');
  const info = new TextEncoder().encode(`keyhold/import-target/v1:${organizationId}:${userId}`);
  const seed = hkdf(sha256, secret, new TextEncoder().encode('keyhold'), info, 48);
  return p256.utils.randomSecretKey(seed);
}
