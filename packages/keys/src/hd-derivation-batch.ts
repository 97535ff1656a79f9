/**
 * Many account keys from one wallet seed, sharing the nodes their paths have in common. A wallet's
 * accounts differ in the last index (m/86'/0'/0'/0/0 … m/86'/0'/0'/0/99): derived one by one,
 * each repeats the master key and the four levels above it; here those are derived once, so a
 * hundred accounts cost about a hundred child derivations instead of five hundred. Results are
 * exactly those of `deriveKeyFromSeed` for each path.
 * @module
 */
import type { Curve } from '@keyhold/protocol';
import { HDKey } from '@scure/bip32';
import { assertCurve } from './curves.js';
import { parseDerivationPath } from './derivation-path.js';
import { publicKeyFromPrivateKey } from './public-key.js';
import { type ExtendedPrivateKey, slip10ChildKey, slip10MasterKey } from './slip10.js';

/**
 * One key to derive: its curve and BIP32 path.
 * @example
 * const request: DerivationRequest = { curve: 'CURVE_SECP256K1', path: "m/86'/0'/0'/0/7" };
 */
export interface DerivationRequest {
  readonly curve: Curve;
  readonly path: string;
}

/**
 * A derived account key: the 32-byte private key (the caller zeroes it) and its stored-form
 * public key (compressed SEC1 for ECDSA curves, 32 bytes for Ed25519).
 */
export interface DerivedAccountKey {
  readonly privateKey: Uint8Array;
  readonly publicKey: Uint8Array;
}

/** A node of one curve's tree: @scure/bip32's HDKey for secp256k1, SLIP-10 otherwise. */
type Node = { kind: 'bip32'; key: HDKey } | { kind: 'slip10'; key: ExtendedPrivateKey };

/**
 * The keys at `requests` (any mix of curves and paths), in order. Every path is checked first
 * (INVALID_PATH, as `deriveKeyFromSeed` would refuse it); the shared nodes are wiped before
 * this returns, and the caller zeroes the private keys it gets.
 * @example
 * const keys = deriveKeysFromSeed(seed, [0, 1, 2].map((i) => ({ curve: 'CURVE_SECP256K1', path: `m/86'/0'/0'/0/${i}` })));
 * keys[1].publicKey; // = deriveKeyFromSeed(seed, 'CURVE_SECP256K1', "m/86'/0'/0'/0/1").publicKey
 */
export function deriveKeysFromSeed(
  seed: Uint8Array,
  requests: readonly DerivationRequest[],
): DerivedAccountKey[] {
  if (!(seed instanceof Uint8Array) || seed.length < 16 || seed.length > 64) {
    throw new RangeError('seed must be 16 to 64 bytes');
  }
  const parsed = requests.map(({ curve, path }) => {
    assertCurve(curve);
    return { curve, indices: parseDerivationPath(path, curve) };
  });
  // Inner nodes by curve and index prefix ("CURVE_SECP256K1/2147483734/…"); the master is "".
  const nodes = new Map<string, Node>();
  const nodeAt = (curve: Curve, indices: readonly number[]): Node => {
    const id = `${curve}/${indices.join('/')}`;
    const known = nodes.get(id);
    if (known) return known;
    let node: Node;
    if (indices.length === 0) {
      node =
        curve === 'CURVE_SECP256K1'
          ? { kind: 'bip32', key: HDKey.fromMasterSeed(seed) }
          : {
              kind: 'slip10',
              key: slip10MasterKey(curve === 'CURVE_ED25519' ? 'ed25519' : 'nist256p1', seed),
            };
    } else {
      const parent = nodeAt(curve, indices.slice(0, -1));
      const index = indices[indices.length - 1] as number;
      node =
        parent.kind === 'bip32'
          ? { kind: 'bip32', key: parent.key.deriveChild(index) }
          : {
              kind: 'slip10',
              key: slip10ChildKey(
                curve === 'CURVE_ED25519' ? 'ed25519' : 'nist256p1',
                parent.key,
                index,
              ),
            };
    }
    nodes.set(id, node);
    return node;
  };
  try {
    return parsed.map(({ curve, indices }) => {
      const parent = nodeAt(curve, indices.slice(0, -1));
      const last = indices[indices.length - 1];
      if (last === undefined) return ownKeyOf(curve, parent); // the master key itself ("m")
      const child: Node =
        parent.kind === 'bip32'
          ? { kind: 'bip32', key: parent.key.deriveChild(last) }
          : {
              kind: 'slip10',
              key: slip10ChildKey(
                curve === 'CURVE_ED25519' ? 'ed25519' : 'nist256p1',
                parent.key,
                last,
              ),
            };
      try {
        return ownKeyOf(curve, child);
      } finally {
        wipe(child);
      }
    });
  } finally {
    for (const node of nodes.values()) wipe(node);
  }
}

/** A copy of the node's private key and its public key in stored form. */
function ownKeyOf(curve: Curve, node: Node): DerivedAccountKey {
  const secret = node.kind === 'bip32' ? node.key.privateKey : node.key.privateKey;
  if (!secret) throw new Error('BIP32 derivation produced no private key');
  const privateKey = secret.slice();
  const publicKey =
    node.kind === 'bip32' && node.key.publicKey
      ? node.key.publicKey.slice() // compressed SEC1, computed with the node
      : publicKeyFromPrivateKey(curve, privateKey);
  return { privateKey, publicKey };
}

function wipe(node: Node): void {
  if (node.kind === 'bip32') {
    node.key.wipePrivateData();
  } else {
    node.key.privateKey.fill(0);
    node.key.chainCode.fill(0);
  }
}
