/**
 * `observedKeyVault`: a KeyVault that reports how long each signature took to the Metrics
 * port, by the vault's kind and the curve, and otherwise is the vault it wraps.
 * @module
 */
import type { Metrics } from '@keyhold/activities';
import type { KeyVault } from '@keyhold/keys';

/**
 * The vault, with `sign` (and `signTaproot`, as curve `CURVE_SECP256K1_TAPROOT`) timed.
 * @example
 * const vault = observedKeyVault(new SoftwareKeyVault({ masterKey }), metrics);
 */
export function observedKeyVault(vault: KeyVault, metrics: Metrics): KeyVault {
  const timed = async <T>(curve: string, work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      metrics.vaultSigned(vault.kind, curve, (performance.now() - started) / 1000);
    }
  };
  const sign: KeyVault['sign'] = (key, curve, message) =>
    timed(curve, () => vault.sign(key, curve, message));
  const signTaproot: KeyVault['signTaproot'] = vault.signTaproot
    ? (key, digest, merkleRoot) =>
        timed('CURVE_SECP256K1_TAPROOT', () => vault.signTaproot!(key, digest, merkleRoot))
    : undefined;
  // A proxy, not a copy or a subclass: every other member is the vault's own, called on the
  // vault itself (its private fields), and `instanceof` still sees its class.
  return new Proxy(vault, {
    get(target, property) {
      if (property === 'sign') return sign;
      if (property === 'signTaproot') return signTaproot;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
