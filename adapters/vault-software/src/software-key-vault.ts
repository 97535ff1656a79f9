/**
 * The software KeyVault: secrets live in the Store, encrypted (./sealed-box.ts) under one
 * master key that the process holds in memory. It is the default vault for development and for
 * deployments without an HSM. Plaintext exists only inside a method call and is zeroed (best
 * effort; JavaScript cannot guarantee it) before the call returns.
 *
 * What is sealed (the layouts of @keyhold/keys `vault-plaintext.ts`, shared with the PKCS#11
 * vault), and under which purpose (AAD):
 * - a wallet seed: `keyhold/seed/v1`, plaintext = BIP39 entropy ‖ the 64-byte BIP39 seed.
 * - a private key: `keyhold/key/v1/<curve>`, plaintext = private key (32) ‖ public key. A
 *   derived account key is sealed once, so signing is decrypt + sign, never re-derivation.
 *
 * Signing opens the key and hands a copy of it to the `sign` / `signTaproot` jobs of
 * @keyhold/keys (noble ECDSA with RFC 6979 and low-S, OpenSSL Ed25519, BIP340 for Taproot), the
 * same jobs the PKCS#11 vault uses for the keys it holds wrapped. Jobs run in the vault's
 * CryptoWorkPool: inline by default, on worker threads when one is given.
 * @module
 */
import { createSecretKey, type KeyObject, randomBytes, webcrypto } from 'node:crypto';
import {
  assertCurve,
  assertSignableMessage,
  assertTaprootRequest,
  type CryptoWorkPool,
  type DerivationRequest,
  deriveFromSealedSeedIn,
  inlineCryptoWorkPool,
  type KeyVault,
  keyPlaintext,
  mnemonicEntropyLength,
  mnemonicOfSeedPlaintext,
  mnemonicToEntropy,
  publicKeyFromPrivateKey,
  type RawSignature,
  type SealedSecret,
  seedPlaintext,
  signKeyPlaintextIn,
  signTaprootKeyPlaintextIn,
  type VaultKey,
} from '@keyhold/keys';
import { CURVES, type Curve } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { MASTER_KEY_LENGTH } from './master-key.js';
import { OPEN_FAILED_MESSAGE, open, seal } from './sealed-box.js';

/** Options of the software vault. */
export interface SoftwareKeyVaultOptions {
  /** 32 bytes; see `generateMasterKey` and `masterKeyFromHex`. The vault keeps its own copy. */
  readonly masterKey: Uint8Array;
  /**
   * Where derivation and signing compute (the jobs of `@keyhold/keys` crypto-jobs.ts). Default:
   * inline, on the caller's thread. Give a worker pool (`@keyhold/worker-pool-piscina`) to keep
   * the event loop free: the jobs get the opened seed or key bytes of one call, never the
   * master key; sealing and unsealing stay here. The vault does not close the pool.
   */
  readonly workPool?: CryptoWorkPool;
}

const SEED_PURPOSE = 'keyhold/seed/v1';
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
  readonly #pool: CryptoWorkPool;

  constructor(options: SoftwareKeyVaultOptions) {
    const { masterKey } = options ?? {};
    if (!(masterKey instanceof Uint8Array) || masterKey.length !== MASTER_KEY_LENGTH) {
      throw new Error(`master key must be ${MASTER_KEY_LENGTH} bytes`);
    }
    this.#masterKey = createSecretKey(masterKey); // copies the bytes into the KeyObject
    this.#pool = options.workPool ?? inlineCryptoWorkPool();
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
    const [key] = await this.deriveKeys(seed, [{ curve, path }]);
    return key as VaultKey;
  }

  async deriveKeys(
    seed: SealedSecret,
    requests: readonly DerivationRequest[],
  ): Promise<VaultKey[]> {
    // Paths are checked before the seed is opened; the job gets a copy of its BIP39 seed.
    return deriveFromSealedSeedIn(
      this.#pool,
      () => open(this.#masterKey, SEED_PURPOSE, seed),
      requests,
      (curve, priv, pub) => this.#sealKey(curve, priv, pub),
    );
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
    assertSignableMessage(curve, message); // before the secret is opened
    const plaintext = open(this.#masterKey, keyPurpose(curve), key);
    try {
      return signKeyPlaintextIn(this.#pool, curve, plaintext, message); // copies the key
    } finally {
      plaintext.fill(0);
    }
  }

  /** BIP340 for Taproot key-path inputs; see the KeyVault port. Any secp256k1 key signs. */
  async signTaproot(
    key: SealedSecret,
    digest: Uint8Array,
    merkleRoot: Uint8Array,
  ): Promise<Uint8Array> {
    assertTaprootRequest('CURVE_SECP256K1', digest, merkleRoot);
    const plaintext = open(this.#masterKey, keyPurpose('CURVE_SECP256K1'), key);
    try {
      return signTaprootKeyPlaintextIn(this.#pool, plaintext, digest, merkleRoot); // copies the key
    } finally {
      plaintext.fill(0);
    }
  }

  async revealMnemonic(seed: SealedSecret): Promise<string> {
    const plaintext = open(this.#masterKey, SEED_PURPOSE, seed);
    try {
      return mnemonicOfSeedPlaintext(plaintext);
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
    const plaintext = await seedPlaintext(entropy);
    try {
      return seal(this.#masterKey, SEED_PURPOSE, plaintext);
    } finally {
      plaintext.fill(0);
    }
  }

  #sealKey(curve: Curve, privateKey: Uint8Array, publicKey: Uint8Array): VaultKey {
    const plaintext = keyPlaintext(privateKey, publicKey);
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
