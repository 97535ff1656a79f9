/**
 * The KeyVault port: the only place secret key material exists in plaintext. Everything the
 * vault hands back for storage is a SealedSecret — ciphertext under the vault's master key,
 * or a reference to a key inside an HSM — so the Store never holds a plaintext secret.
 *
 * Signing takes what the chain signs: for ECDSA curves (secp256k1, P-256) a 32-byte digest,
 * already hashed by the caller (see `preparePayload`); for Ed25519 the message itself.
 * @module
 */
import type { Curve } from '@keyhold/protocol';
import type { DerivationRequest } from './hd-derivation-batch.js';

/** An opaque, storable handle to a sealed secret (a seed or a private key). Safe to persist. */
export type SealedSecret = string;

/** A key the vault holds: its sealed form, and its public key. */
export interface VaultKey {
  readonly key: SealedSecret;
  /** SEC1 compressed (33 bytes) for secp256k1 and P-256; 32 bytes for Ed25519. */
  readonly publicKey: Uint8Array;
}

/** A signature: r and s as 32-byte big-endian values; `recovery` for ECDSA curves. */
export interface RawSignature {
  readonly r: Uint8Array;
  readonly s: Uint8Array;
  /** The recovery id (0 or 1) of an ECDSA signature; absent for Ed25519. */
  readonly recovery?: 0 | 1;
}

export interface KeyVault {
  /** A short name for logs and readiness: `software`, `pkcs11`. */
  readonly kind: string;
  /** A new BIP39 wallet seed of `mnemonicLength` words. */
  createSeed(mnemonicLength: number): Promise<SealedSecret>;
  /** Seals an existing mnemonic (checksum verified). */
  importSeed(mnemonic: string): Promise<SealedSecret>;
  /** The account key at `path` (BIP32 for secp256k1/P-256, SLIP-10 for Ed25519), sealed. */
  deriveKey(seed: SealedSecret, curve: Curve, path: string): Promise<VaultKey>;
  /**
   * Optional: the keys at many paths of one seed, in order, as `deriveKey` gives each — opened
   * once and derived in one job that shares the paths' common nodes (a hundred accounts of one
   * wallet: about seven times faster than a hundred `deriveKey` calls). Wallet handlers use it
   * when the vault has it.
   */
  deriveKeys?(seed: SealedSecret, requests: readonly DerivationRequest[]): Promise<VaultKey[]>;
  /** A new standalone private key. */
  createKey(curve: Curve): Promise<VaultKey>;
  /** Seals an existing 32-byte private key. */
  importKey(curve: Curve, privateKey: Uint8Array): Promise<VaultKey>;
  /** Signs a 32-byte digest (ECDSA, low-S) or a message (Ed25519). */
  sign(key: SealedSecret, curve: Curve, message: Uint8Array): Promise<RawSignature>;
  /** The mnemonic of a seed, for export. */
  revealMnemonic(seed: SealedSecret): Promise<string>;
  /** The 32 raw bytes of a private key, for export. */
  revealKey(key: SealedSecret): Promise<Uint8Array>;
  /**
   * Optional: a 64-byte BIP340 signature over a 32-byte Taproot sighash by a secp256k1 key
   * tweaked per BIP341 with `merkleRoot` (empty: BIP86 key-path-only). SIGN_TRANSACTION uses it
   * for the Taproot inputs of a PSBT; a vault without it leaves them unsigned
   * (TRANSACTION_INPUT_NOT_SIGNABLE). See `signTaprootWithPrivateKey`.
   */
  signTaproot?(key: SealedSecret, digest: Uint8Array, merkleRoot: Uint8Array): Promise<Uint8Array>;
  /**
   * Optional: destroys what the vault holds for `key` outside the Store (an HSM's token
   * objects) once the key's record is deleted. True when something was destroyed; false when
   * the key lives only in its sealed form (nothing to do). Called after the deletion commits.
   */
  destroyKey?(key: SealedSecret): Promise<boolean>;
}

/** The inversify service identifier of the KeyVault port. */
export const KeyVault: unique symbol = Symbol.for('keyhold.KeyVault');
