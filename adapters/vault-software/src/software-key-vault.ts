/**
 * The software KeyVault: secrets live in the Store, encrypted (./sealed-box.ts) under one
 * master key that the process holds in memory. It is the default vault for development and for
 * deployments without an HSM. Plaintext exists only inside a method call and is zeroed (best
 * effort; JavaScript cannot guarantee it) before the call returns.
 *
 * What is sealed, and under which purpose (AAD):
 * - a wallet seed: `keyhold/seed/v1`, plaintext = BIP39 entropy (16–32 bytes) ‖ the 64-byte
 *   BIP39 seed. The entropy gives the mnemonic back for export; the stored seed spares a
 *   PBKDF2 run on every derivation.
 * - a private key: `keyhold/key/v1/<curve>`, plaintext = private key (32) ‖ public key. A
 *   derived account key is sealed once, so signing is decrypt + sign, never re-derivation.
 *
 * Signing: secp256k1 and P-256 with @noble/curves (RFC 6979 deterministic nonces, low-S,
 * recovery id); Ed25519 with node:crypto (OpenSSL), which measured ~7× faster than
 * @noble/curves here (≈140 µs vs ≈1 ms per signature) and gives identical RFC 8032 signatures.
 * @module
 */
import {
  createPrivateKey,
  createSecretKey,
  type KeyObject,
  sign as nodeSign,
  randomBytes,
  webcrypto,
} from 'node:crypto';
import {
  assertCurve,
  deriveKeyFromSeed,
  entropyToMnemonic,
  type KeyVault,
  mnemonicEntropyLength,
  mnemonicToEntropy,
  mnemonicToSeed,
  parseDerivationPath,
  publicKeyFromPrivateKey,
  type RawSignature,
  type SealedSecret,
  type VaultKey,
} from '@keyhold/keys';
import { CURVES, type Curve, KeyholdError } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { MASTER_KEY_LENGTH } from './master-key.js';
import { OPEN_FAILED_MESSAGE, open, seal } from './sealed-box.js';

/** Options of the software vault. */
export interface SoftwareKeyVaultOptions {
  /** 32 bytes; see `generateMasterKey` and `masterKeyFromHex`. The vault keeps its own copy. */
  readonly masterKey: Uint8Array;
}

const SEED_PURPOSE = 'keyhold/seed/v1';
const BIP39_SEED_LENGTH = 64;
const keyPurpose = (curve: Curve) => `keyhold/key/v1/${curve}`;

/**
 * A KeyVault that keeps secrets encrypted at rest with AES-256-GCM under a master key.
 * @example
 * const vault = new SoftwareKeyVault({ masterKey: generateMasterKey() });
 * const seed = await vault.createSeed(24);
 * const account = await vault.deriveKey(seed, 'CURVE_SECP256K1', "m/44'/60'/0'/0/0");
 * const signature = await vault.sign(account.key, 'CURVE_SECP256K1', digest32);
 */
export class SoftwareKeyVault implements KeyVault {
  readonly kind = 'software';
  readonly #masterKey: KeyObject;

  constructor(options: SoftwareKeyVaultOptions) {
    const { masterKey } = options ?? {};
    if (!(masterKey instanceof Uint8Array) || masterKey.length !== MASTER_KEY_LENGTH) {
      throw new Error(`master key must be ${MASTER_KEY_LENGTH} bytes`);
    }
    this.#masterKey = createSecretKey(masterKey); // copies the bytes into the KeyObject
  }

  async createSeed(mnemonicLength: number): Promise<SealedSecret> {
    const entropy = randomBytes(mnemonicEntropyLength(mnemonicLength));
    try {
      return await this.#sealSeed(entropy);
    } finally {
      entropy.fill(0);
    }
  }

  async importSeed(mnemonic: string): Promise<SealedSecret> {
    const entropy = mnemonicToEntropy(mnemonic);
    try {
      return await this.#sealSeed(entropy);
    } finally {
      entropy.fill(0);
    }
  }

  async deriveKey(seed: SealedSecret, curve: Curve, path: string): Promise<VaultKey> {
    assertCurve(curve);
    parseDerivationPath(path, curve); // refuse a bad path before touching the secret
    const plaintext = open(this.#masterKey, SEED_PURPOSE, seed);
    try {
      const bip39Seed = plaintext.subarray(plaintext.length - BIP39_SEED_LENGTH);
      const derived = deriveKeyFromSeed(bip39Seed, curve, path);
      try {
        return this.#sealKey(curve, derived.privateKey, derived.publicKey);
      } finally {
        derived.privateKey.fill(0);
        derived.chainCode.fill(0);
      }
    } finally {
      plaintext.fill(0);
    }
  }

  async createKey(curve: Curve): Promise<VaultKey> {
    assertCurve(curve);
    const privateKey = newPrivateKey(curve);
    try {
      return this.#sealKey(curve, privateKey, publicKeyFromPrivateKey(curve, privateKey));
    } finally {
      privateKey.fill(0);
    }
  }

  async importKey(curve: Curve, privateKey: Uint8Array): Promise<VaultKey> {
    // publicKeyFromPrivateKey refuses an unknown curve and a bad key (INVALID_PRIVATE_KEY).
    const publicKey = publicKeyFromPrivateKey(curve, privateKey);
    return this.#sealKey(curve, privateKey, publicKey);
  }

  async sign(key: SealedSecret, curve: Curve, message: Uint8Array): Promise<RawSignature> {
    assertCurve(curve);
    if (!(message instanceof Uint8Array)) {
      throw new KeyholdError('INVALID_PAYLOAD', { reason: 'message must be bytes' });
    }
    if (curve !== 'CURVE_ED25519' && message.length !== 32) {
      throw new KeyholdError('INVALID_PAYLOAD', {
        reason: `${curve} signs a 32-byte digest; got ${message.length} bytes`,
      });
    }
    const plaintext = open(this.#masterKey, keyPurpose(curve), key);
    try {
      const privateKey = plaintext.subarray(0, 32);
      if (curve === 'CURVE_ED25519') {
        return signEd25519(privateKey, plaintext.subarray(32), message);
      }
      const ecdsa = curve === 'CURVE_SECP256K1' ? secp256k1 : p256;
      const signature = ecdsa.sign(message, privateKey, {
        prehash: false,
        lowS: true,
        format: 'recovered',
      });
      const recovery = signature[0];
      // Ids 2 and 3 need r ≥ n: probability ~2^-128; refuse rather than mis-encode.
      if (recovery !== 0 && recovery !== 1) throw new Error('unexpected ECDSA recovery id');
      return { r: signature.slice(1, 33), s: signature.slice(33, 65), recovery };
    } finally {
      plaintext.fill(0);
    }
  }

  async revealMnemonic(seed: SealedSecret): Promise<string> {
    const plaintext = open(this.#masterKey, SEED_PURPOSE, seed);
    try {
      return entropyToMnemonic(plaintext.subarray(0, plaintext.length - BIP39_SEED_LENGTH));
    } finally {
      plaintext.fill(0);
    }
  }

  async revealKey(key: SealedSecret): Promise<Uint8Array> {
    // The port does not pass the curve, so try each key purpose; a seed never opens here.
    for (const curve of CURVES) {
      let plaintext: Uint8Array;
      try {
        plaintext = open(this.#masterKey, keyPurpose(curve), key);
      } catch {
        continue;
      }
      const privateKey = plaintext.slice(0, 32);
      plaintext.fill(0);
      return privateKey;
    }
    throw new Error(OPEN_FAILED_MESSAGE);
  }

  async #sealSeed(entropy: Uint8Array): Promise<SealedSecret> {
    const bip39Seed = await mnemonicToSeed(entropyToMnemonic(entropy));
    const plaintext = new Uint8Array(entropy.length + bip39Seed.length);
    plaintext.set(entropy);
    plaintext.set(bip39Seed, entropy.length);
    try {
      return seal(this.#masterKey, SEED_PURPOSE, plaintext);
    } finally {
      plaintext.fill(0);
      bip39Seed.fill(0);
    }
  }

  #sealKey(curve: Curve, privateKey: Uint8Array, publicKey: Uint8Array): VaultKey {
    const plaintext = new Uint8Array(privateKey.length + publicKey.length);
    plaintext.set(privateKey);
    plaintext.set(publicKey, privateKey.length);
    try {
      return {
        key: seal(this.#masterKey, keyPurpose(curve), plaintext),
        publicKey: publicKey.slice(),
      };
    } finally {
      plaintext.fill(0);
    }
  }
}

function newPrivateKey(curve: Curve): Uint8Array {
  switch (curve) {
    case 'CURVE_SECP256K1':
      return secp256k1.utils.randomSecretKey();
    case 'CURVE_P256':
      return p256.utils.randomSecretKey();
    default:
      return webcrypto.getRandomValues(new Uint8Array(32));
  }
}

/**
 * Ed25519 through OpenSSL. The JWK carries the public key `x` as the format requires; Node
 * derives the public key from `d` itself (checked in the tests), so a wrong `x` could not lead
 * to a signature under another key.
 */
function signEd25519(
  privateKey: Uint8Array,
  publicKey: Uint8Array,
  message: Uint8Array,
): RawSignature {
  const d = Buffer.from(privateKey);
  const keyObject = createPrivateKey({
    key: {
      kty: 'OKP',
      crv: 'Ed25519',
      d: d.toString('base64url'),
      x: Buffer.from(publicKey).toString('base64url'),
    },
    format: 'jwk',
  });
  d.fill(0);
  const signature = nodeSign(null, message, keyObject);
  return {
    r: Uint8Array.from(signature.subarray(0, 32)),
    s: Uint8Array.from(signature.subarray(32, 64)),
  };
}
