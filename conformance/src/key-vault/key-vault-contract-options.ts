/**
 * What the KeyVault contract needs to know about a vault: how to get it, how each kind of key
 * behaves (keys made by `createKey`, `importKey` and `deriveKey` may differ: an HSM generates
 * keys that never leave it and signs with its own nonces), and which optional capabilities to
 * check. Everything defaults to the behaviour of an in-process vault such as the software one.
 * @module
 */
import type { KeyVault } from '@keyhold/keys';
import type { PropertyOptions } from '../property.js';

/**
 * The three ways a key enters a vault.
 * @example
 * const origin: KeyOrigin = 'createKey';
 */
export type KeyOrigin = 'createKey' | 'importKey' | 'deriveKey';

/**
 * Every key origin, in the order checks use them.
 * @example
 * for (const origin of KEY_ORIGINS) console.log(origin); // createKey, importKey, deriveKey
 */
export const KEY_ORIGINS: readonly KeyOrigin[] = ['createKey', 'importKey', 'deriveKey'];

/**
 * How the keys of one origin behave. Every trait defaults to `true`, except `destroyable`
 * (true for `createKey` only).
 * @example
 * // Keys an HSM generates: random ECDSA nonces, never exported, no Taproot tweak.
 * const createdKeys: KeyOriginTraits = { deterministicEcdsa: false, exportable: false, signTaproot: false };
 */
export interface KeyOriginTraits {
  /**
   * ECDSA signatures use RFC 6979 deterministic nonces: the same digest gives the same
   * signature, equal to @noble/curves' (and the official RFC 6979 vectors, for imported keys).
   * `false` for a token that draws random nonces; signatures must verify either way.
   */
  readonly deterministicEcdsa?: boolean;
  /**
   * `revealKey` returns the 32-byte private key. `false` for keys that never leave an HSM:
   * `revealKey` must then refuse them with the catalogue error PRIVATE_KEY_NOT_EXPORTABLE.
   */
  readonly exportable?: boolean;
  /**
   * `signTaproot` signs with these keys (only consulted when the vault has `signTaproot`).
   * `false`: it must refuse them (a token cannot tweak a key it holds).
   */
  readonly signTaproot?: boolean;
  /**
   * `destroyKey` destroys these keys (only consulted when the vault has `destroyKey`): it
   * returns true, after which they sign no more. `false`: they live only in their sealed form,
   * so `destroyKey` returns false and they keep working. Default: true for keys from
   * `createKey` (an HSM's token objects), false for the others.
   */
  readonly destroyable?: boolean;
}

/**
 * The optional capabilities the contract knows.
 * @example
 * keyVaultContract({ vault: () => vault, capabilities: { signTaproot: true, destroyKey: false } });
 */
export interface KeyVaultCapabilities {
  /** The port's optional `signTaproot(key, digest, merkleRoot)`: BIP340 by the BIP341-tweaked key. */
  readonly signTaproot?: boolean;
  /** The port's optional `destroyKey(key)`: destroys what the vault holds of a key. */
  readonly destroyKey?: boolean;
}

/**
 * Options of `keyVaultContract`.
 * @example
 * const options: KeyVaultContractOptions = { vault, importedKeys: { exportable: false }, numRuns: 50 };
 */
export interface KeyVaultContractOptions {
  /**
   * The vault under test, or a function giving it (called by every check; return the same
   * vault each time, e.g. one opened in `beforeAll`, or a fresh one).
   */
  readonly vault: KeyVault | (() => KeyVault | Promise<KeyVault>);
  /** Traits of keys made by `createKey`. */
  readonly createdKeys?: KeyOriginTraits;
  /** Traits of keys sealed by `importKey`. */
  readonly importedKeys?: KeyOriginTraits;
  /** Traits of keys made by `deriveKey`. */
  readonly derivedKeys?: KeyOriginTraits;
  /**
   * Which optional capabilities to check. By default they are detected by the presence of the
   * method on `vault`; when `vault` is a function the vault does not exist yet when the checks
   * are listed, so nothing is detected: declare the capabilities here (a declared capability
   * the vault lacks fails its checks). `false` leaves a capability out even if present.
   */
  readonly capabilities?: KeyVaultCapabilities;
  /** Generated cases per fast-check property (default 20). */
  readonly numRuns?: number;
  /** A fast-check seed, to replay a reported failure. */
  readonly seed?: number;
}

/**
 * The options after defaults, as the checks use them.
 * @example
 * const ctx: ContractContext = resolveContractOptions({ vault });
 * const signer = await ctx.vault();
 */
export interface ContractContext {
  /** The vault under test. */
  vault(): Promise<KeyVault>;
  /** The traits of an origin, defaults applied. */
  traits(origin: KeyOrigin): Required<KeyOriginTraits>;
  /** The optional capabilities to check. */
  readonly capabilities: Required<KeyVaultCapabilities>;
  /** numRuns and seed for fast-check. */
  readonly property: PropertyOptions;
}

/**
 * Applies the defaults to the contract's options.
 * @example
 * const ctx = resolveContractOptions({ vault, createdKeys: { exportable: false } });
 * ctx.traits('createKey').exportable; // false
 * ctx.traits('importKey').deterministicEcdsa; // true
 * ctx.traits('importKey').destroyable; // false
 */
export function resolveContractOptions(options: KeyVaultContractOptions): ContractContext {
  const given = options.vault;
  const instance = typeof given === 'function' ? undefined : given;
  const detect = (method: keyof KeyVaultCapabilities, declared: boolean | undefined) =>
    declared ??
    (instance !== undefined &&
      typeof (instance as unknown as Record<string, unknown>)[method] === 'function');
  const traits: Record<KeyOrigin, KeyOriginTraits | undefined> = {
    createKey: options.createdKeys,
    importKey: options.importedKeys,
    deriveKey: options.derivedKeys,
  };
  return {
    vault: async () => (typeof given === 'function' ? await given() : given),
    traits: (origin) => ({
      deterministicEcdsa: traits[origin]?.deterministicEcdsa ?? true,
      exportable: traits[origin]?.exportable ?? true,
      signTaproot: traits[origin]?.signTaproot ?? true,
      destroyable: traits[origin]?.destroyable ?? origin === 'createKey',
    }),
    capabilities: {
      signTaproot: detect('signTaproot', options.capabilities?.signTaproot),
      destroyKey: detect('destroyKey', options.capabilities?.destroyKey),
    },
    property: {
      ...(options.numRuns === undefined ? {} : { numRuns: options.numRuns }),
      ...(options.seed === undefined ? {} : { seed: options.seed }),
    },
  };
}
