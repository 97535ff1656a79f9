/**
 * From a wallet seed to the key of one account: BIP32 for secp256k1 (via @scure/bip32, the
 * audited implementation), SLIP-10 for Ed25519 and NIST P-256 (./slip10.ts). Which algorithm
 * a curve uses is fixed by the ecosystem: Ethereum/Bitcoin wallets use BIP32, Solana/Sui/Aptos
 * wallets SLIP-10 ed25519, so the same mnemonic yields the same addresses as other wallets.
 * @module
 */
import type { Curve } from '@keyhold/protocol';
import { HDKey } from '@scure/bip32';
import { assertCurve } from './curves.js';
import { parseDerivationPath } from './derivation-path.js';
import { publicKeyFromPrivateKey } from './public-key.js';
import { type ExtendedPrivateKey, slip10DerivePath } from './slip10.js';

/** A derived key: the 32-byte private key, its stored-form public key, and its chain code. */
export interface DerivedKey {
  readonly privateKey: Uint8Array;
  /** Compressed SEC1 (33 bytes) for secp256k1 and P-256; 32 bytes for Ed25519. */
  readonly publicKey: Uint8Array;
  readonly chainCode: Uint8Array;
}

/**
 * Derives the key at `path` from a BIP39 seed (16–64 bytes; 64 from a mnemonic). The path is
 * checked with `parseDerivationPath` (INVALID_PATH; every segment hardened for Ed25519).
 * @example
 * const seed = mnemonicToSeedSync('abandon abandon … about');
 * deriveKeyFromSeed(seed, 'CURVE_SECP256K1', "m/44'/60'/0'/0/0").privateKey;
 * // 1ab42cc412b618bdea3a599e3c9bae199ebf030895b039e9db1e30dafb12b727
 */
export function deriveKeyFromSeed(seed: Uint8Array, curve: Curve, path: string): DerivedKey {
  assertCurve(curve);
  const indices = parseDerivationPath(path, curve);
  if (!(seed instanceof Uint8Array) || seed.length < 16 || seed.length > 64) {
    throw new RangeError('seed must be 16 to 64 bytes');
  }
  const node =
    curve === 'CURVE_SECP256K1'
      ? bip32Derive(seed, indices)
      : slip10DerivePath(curve === 'CURVE_ED25519' ? 'ed25519' : 'nist256p1', seed, indices);
  return { ...node, publicKey: publicKeyFromPrivateKey(curve, node.privateKey) };
}

function bip32Derive(seed: Uint8Array, indices: readonly number[]): ExtendedPrivateKey {
  let node = HDKey.fromMasterSeed(seed);
  for (const index of indices) {
    const child = node.deriveChild(index);
    node.wipePrivateData();
    node = child;
  }
  const { privateKey, chainCode } = node;
  if (!privateKey || !chainCode) throw new Error('BIP32 derivation produced no private key');
  const result = { privateKey: privateKey.slice(), chainCode: chainCode.slice() };
  node.wipePrivateData();
  return result;
}
