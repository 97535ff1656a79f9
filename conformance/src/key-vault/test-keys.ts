/**
 * Keys for the checks, made the three ways a key enters a vault: `createKey`, `importKey` (of a
 * random private key) and `deriveKey` (from a wallet the contract imports from a random
 * mnemonic). The contract knows the private key of imported keys, and of derived keys by
 * deriving them again itself (`deriveKeyFromSeed` of @keyhold/keys, BIP32 via @scure/bip32 and
 * SLIP-10); it learns a created key's only through `revealKey`, when the vault exports it.
 * @module
 */
import {
  deriveKeyFromSeed,
  generateMnemonic,
  type KeyVault,
  mnemonicToSeedSync,
  type SealedSecret,
} from '@keyhold/keys';
import type { KeyOrigin } from './key-vault-contract-options.js';
import { randomPrivateKey, type VaultCurve } from './signature-oracle.js';

/**
 * A key made for a check.
 * @example
 * const made: TestKey = await new TestKeys(vault).make('importKey', 'CURVE_P256');
 * made.privateKey; // the random key it imported
 */
export interface TestKey {
  readonly origin: KeyOrigin;
  readonly curve: VaultCurve;
  readonly key: SealedSecret;
  readonly publicKey: Uint8Array;
  /** Known for imported and derived keys; for created keys only once revealed. */
  readonly privateKey?: Uint8Array;
}

/**
 * The derivation path of account `index` for `curve`: BIP44-shaped, all hardened for Ed25519
 * (SLIP-10 has no normal children), with a normal last segment otherwise.
 * @example
 * accountPath('CURVE_ED25519', 7); // "m/44'/501'/7'/0'"
 * accountPath('CURVE_P256', 7); // "m/44'/1'/0'/0/7"
 */
export function accountPath(curve: VaultCurve, index: number): string {
  return curve === 'CURVE_ED25519' ? `m/44'/501'/${index}'/0'` : `m/44'/1'/0'/0/${index}`;
}

/**
 * Makes keys of every origin in one vault, for one check. Derived keys come from one wallet,
 * imported on first use.
 * @example
 * const keys = new TestKeys(vault);
 * const { key, publicKey, privateKey } = await keys.make('deriveKey', 'CURVE_SECP256K1');
 */
export class TestKeys {
  readonly #vault: KeyVault;
  #wallet: Promise<{ seed: SealedSecret; bip39Seed: Uint8Array }> | undefined;
  #nextIndex = Math.floor(Math.random() * 1000);

  constructor(vault: KeyVault) {
    this.#vault = vault;
  }

  /** The wallet derived keys come from: a sealed seed and, for the oracle, its BIP39 seed. */
  wallet(): Promise<{ seed: SealedSecret; bip39Seed: Uint8Array }> {
    this.#wallet ??= (async () => {
      const mnemonic = generateMnemonic(12);
      const seed = await this.#vault.importSeed(mnemonic);
      return { seed, bip39Seed: mnemonicToSeedSync(mnemonic) };
    })();
    return this.#wallet;
  }

  /** A new key of `curve` made by `origin`. */
  async make(origin: KeyOrigin, curve: VaultCurve): Promise<TestKey> {
    switch (origin) {
      case 'createKey': {
        const { key, publicKey } = await this.#vault.createKey(curve);
        return { origin, curve, key, publicKey };
      }
      case 'importKey': {
        const privateKey = randomPrivateKey(curve);
        const { key, publicKey } = await this.#vault.importKey(curve, privateKey.slice());
        return { origin, curve, key, publicKey, privateKey };
      }
      case 'deriveKey': {
        const { seed, bip39Seed } = await this.wallet();
        const path = accountPath(curve, this.#nextIndex++);
        const { key, publicKey } = await this.#vault.deriveKey(seed, curve, path);
        const { privateKey } = deriveKeyFromSeed(bip39Seed, curve, path);
        return { origin, curve, key, publicKey, privateKey };
      }
    }
  }

  /**
   * The private key of `made`: known for imported and derived keys, asked of `revealKey` for
   * created ones when `exportable`, else undefined.
   */
  async privateKeyOf(made: TestKey, exportable: boolean): Promise<Uint8Array | undefined> {
    if (made.privateKey) return made.privateKey;
    return exportable ? await this.#vault.revealKey(made.key) : undefined;
  }

  /** One new key of `curve` per origin in `origins`. */
  async each(curve: VaultCurve, origins: readonly KeyOrigin[]): Promise<TestKey[]> {
    const keys: TestKey[] = [];
    for (const origin of origins) keys.push(await this.make(origin, curve));
    return keys;
  }
}
