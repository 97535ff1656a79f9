/**
 * Tests of the KeyVault contract itself: a small in-memory reference vault passes every check
 * (in its in-process form and in an HSM-like form, with the matching traits), and each mutant —
 * the reference vault broken in one way — fails the check that guards against that break. A
 * check no mutant can fail would prove nothing.
 */
import { randomBytes } from 'node:crypto';
import {
  assertCurve,
  deriveKeyFromSeed,
  entropyToMnemonic,
  type KeyVault,
  mnemonicEntropyLength,
  mnemonicToEntropy,
  mnemonicToSeedSync,
  parseDerivationPath,
  publicKeyFromPrivateKey,
  type RawSignature,
  type SealedSecret,
  type VaultKey,
} from '@keyhold/keys';
import { type Curve, KeyholdError } from '@keyhold/protocol';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { taprootTweakPrivKey } from '@scure/btc-signer/utils.js';
import { describe, expect, it } from 'vitest';
import type { KeyVaultCheck } from './key-vault-check.js';
import { keyVaultContract } from './key-vault-contract.js';
import type { KeyVaultContractOptions } from './key-vault-contract-options.js';
import { runKeyVaultChecks } from './run-key-vault-checks.js';
import { secretEncodings } from './secret-leak.js';
import { tamperAt, truncations } from './tamper.js';

type Secret =
  | { kind: 'seed'; entropy: Uint8Array }
  | { kind: 'key'; curve: Curve; privateKey: Uint8Array; publicKey: Uint8Array; held: boolean };

interface ReferenceOptions {
  /** Keys from createKey behave as an HSM's: random nonces, not exportable, no Taproot. */
  hsmLike?: boolean;
}

const refused = () => new Error('sealed secret could not be opened');

/**
 * The reference: secrets in a Map, sealed strings are `ref.<kind>.<random id>`. Keys made by
 * createKey are "held" (destroyKey removes them); the others are not.
 */
class ReferenceVault implements KeyVault {
  readonly kind = 'reference';
  readonly secrets = new Map<string, Secret>();
  readonly hsmLike: boolean;

  constructor(options: ReferenceOptions = {}) {
    this.hsmLike = options.hsmLike ?? false;
  }

  seal(secret: Secret): SealedSecret {
    const id = `ref.${secret.kind}.${bytesToHex(randomBytes(16))}`;
    this.secrets.set(id, secret);
    return id;
  }

  open(sealed: SealedSecret, kind: 'seed'): Secret & { kind: 'seed' };
  open(sealed: SealedSecret, kind: 'key'): Secret & { kind: 'key' };
  open(sealed: SealedSecret, kind: Secret['kind']): Secret {
    const secret = this.secrets.get(sealed);
    if (!secret || secret.kind !== kind) throw refused();
    return secret;
  }

  sealKey(curve: Curve, privateKey: Uint8Array, held: boolean): VaultKey {
    const publicKey = publicKeyFromPrivateKey(curve, privateKey);
    return { key: this.seal({ kind: 'key', curve, privateKey, publicKey, held }), publicKey };
  }

  async createSeed(mnemonicLength: number) {
    return this.seal({ kind: 'seed', entropy: randomBytes(mnemonicEntropyLength(mnemonicLength)) });
  }

  async importSeed(mnemonic: string) {
    return this.seal({ kind: 'seed', entropy: mnemonicToEntropy(mnemonic) });
  }

  async deriveKey(seed: SealedSecret, curve: Curve, path: string) {
    assertCurve(curve);
    parseDerivationPath(path, curve);
    const { entropy } = this.open(seed, 'seed');
    const bip39Seed = mnemonicToSeedSync(entropyToMnemonic(entropy));
    return this.sealKey(curve, deriveKeyFromSeed(bip39Seed, curve, path).privateKey, false);
  }

  async createKey(curve: Curve) {
    assertCurve(curve);
    const privateKey =
      curve === 'CURVE_ED25519'
        ? ed25519.utils.randomSecretKey()
        : (curve === 'CURVE_P256' ? p256 : secp256k1).utils.randomSecretKey();
    return this.sealKey(curve, privateKey, true);
  }

  async importKey(curve: Curve, privateKey: Uint8Array) {
    publicKeyFromPrivateKey(curve, privateKey);
    return this.sealKey(curve, privateKey.slice(), false);
  }

  async sign(key: SealedSecret, curve: Curve, message: Uint8Array): Promise<RawSignature> {
    assertCurve(curve);
    if (!(message instanceof Uint8Array)) throw new KeyholdError('INVALID_PAYLOAD');
    if (curve !== 'CURVE_ED25519' && message.length !== 32) {
      throw new KeyholdError('INVALID_PAYLOAD');
    }
    const secret = this.open(key, 'key');
    if (secret.curve !== curve) throw refused();
    if (curve === 'CURVE_ED25519') {
      const signature = ed25519.sign(message, secret.privateKey);
      return { r: signature.slice(0, 32), s: signature.slice(32) };
    }
    const random = this.hsmLike && secret.held;
    const signature = (curve === 'CURVE_P256' ? p256 : secp256k1).sign(message, secret.privateKey, {
      prehash: false,
      lowS: true,
      format: 'recovered',
      extraEntropy: random,
    });
    return { r: signature.slice(1, 33), s: signature.slice(33), recovery: signature[0] as 0 | 1 };
  }

  async revealMnemonic(seed: SealedSecret) {
    return entropyToMnemonic(this.open(seed, 'seed').entropy);
  }

  async revealKey(key: SealedSecret) {
    const secret = this.open(key, 'key');
    if (this.hsmLike && secret.held) throw new KeyholdError('PRIVATE_KEY_NOT_EXPORTABLE');
    return secret.privateKey.slice();
  }

  async signTaproot(key: SealedSecret, digest: Uint8Array, merkleRoot: Uint8Array) {
    if (digest.length !== 32 || (merkleRoot.length !== 0 && merkleRoot.length !== 32)) {
      throw new KeyholdError('INVALID_PAYLOAD');
    }
    const secret = this.open(key, 'key');
    if (secret.curve !== 'CURVE_SECP256K1') throw refused();
    if (this.hsmLike && secret.held) throw new KeyholdError('TRANSACTION_INPUT_NOT_SIGNABLE');
    return schnorr.sign(digest, taprootTweakPrivKey(secret.privateKey, merkleRoot));
  }

  async destroyKey(key: SealedSecret) {
    const secret = this.secrets.get(key);
    if (secret?.kind !== 'key' || !secret.held) return false;
    this.secrets.delete(key);
    return true;
  }
}

const HSM_TRAITS = {
  createdKeys: { deterministicEcdsa: false, exportable: false, signTaproot: false },
} satisfies Partial<KeyVaultContractOptions>;

/** The checks whose name contains `fragment`, failing or not against `vault`. */
async function failuresOf(
  vault: KeyVault,
  fragment: string,
  options: Partial<KeyVaultContractOptions> = {},
): Promise<{ ran: string[]; failed: string[] }> {
  const checks: readonly KeyVaultCheck[] = keyVaultContract({ vault, numRuns: 30, ...options });
  const selected = checks.filter((check) => check.name.includes(fragment));
  const failures = await runKeyVaultChecks(selected);
  return { ran: selected.map((check) => check.name), failed: failures.map((f) => f.name) };
}

/** A reference vault with some methods replaced. */
function mutant(
  change: (vault: ReferenceVault) => Partial<Record<keyof ReferenceVault, unknown>>,
  options: ReferenceOptions = {},
): ReferenceVault {
  const vault = new ReferenceVault(options);
  return Object.assign(vault, change(vault));
}

const flipS = (curve: Curve, signature: RawSignature): RawSignature => {
  const n = (curve === 'CURVE_P256' ? p256 : secp256k1).Point.Fn.ORDER;
  const s = n - BigInt(`0x${bytesToHex(signature.s)}`);
  const bytes = Uint8Array.from(Buffer.from(s.toString(16).padStart(64, '0'), 'hex'));
  return { ...signature, s: bytes, recovery: signature.recovery === 0 ? 1 : 0 };
};

describe('the contract against the reference vault', () => {
  it('passes every check of an in-process vault (with signTaproot and destroyKey detected)', async () => {
    const checks = keyVaultContract({ vault: new ReferenceVault(), numRuns: 10 });
    expect(checks.some((c) => c.name.startsWith('signTaproot'))).toBe(true);
    expect(checks.some((c) => c.name.startsWith('destroyKey'))).toBe(true);
    expect(await runKeyVaultChecks(checks)).toEqual([]);
  });

  it('passes every check of an HSM-like vault with the matching traits', async () => {
    const checks = keyVaultContract({
      vault: new ReferenceVault({ hsmLike: true }),
      numRuns: 10,
      ...HSM_TRAITS,
    });
    const names = checks.map((c) => c.name);
    expect(names).toContain(
      'keys: revealKey refuses keys from createKey with PRIVATE_KEY_NOT_EXPORTABLE',
    );
    expect(names).toContain(
      'signTaproot: refuses secp256k1 keys from createKey (declared not to sign Taproot)',
    );
    expect(await runKeyVaultChecks(checks)).toEqual([]);
  });

  it('lists optional capabilities only when present or declared', () => {
    const plain = mutant(() => ({ signTaproot: undefined, destroyKey: undefined }));
    const optional = (checks: readonly KeyVaultCheck[]) =>
      checks.filter((c) => /^(signTaproot|destroyKey):/.test(c.name)).length;
    expect(optional(keyVaultContract({ vault: plain }))).toBe(0);
    const reference = new ReferenceVault();
    expect(optional(keyVaultContract({ vault: () => reference }))).toBe(0);
    expect(
      optional(
        keyVaultContract({
          vault: () => reference,
          capabilities: { signTaproot: true, destroyKey: true },
        }),
      ),
    ).toBeGreaterThan(0);
    expect(
      optional(keyVaultContract({ vault: reference, capabilities: { signTaproot: false } })),
    ).toBe(2);
  });

  it('fails a declared capability the vault lacks', async () => {
    const vault = mutant(() => ({ signTaproot: undefined }));
    const checks = keyVaultContract({ vault: () => vault, capabilities: { signTaproot: true } });
    const failures = await runKeyVaultChecks(
      checks.filter((c) => c.name.startsWith('signTaproot')),
    );
    expect(failures.length).toBeGreaterThan(0);
    expect(String(failures[0]!.error)).toContain('the vault has no signTaproot method');
  });
});

describe('the helpers', () => {
  it('finds a secret in any base64 alignment', () => {
    const secret = randomBytes(32);
    for (let shift = 0; shift < 3; shift++) {
      const text = Buffer.concat([randomBytes(shift + 5), secret, randomBytes(7)]);
      for (const encoding of ['hex', 'base64', 'base64url'] as const) {
        const encoded = text.toString(encoding);
        expect(secretEncodings(secret).some((needle) => encoded.includes(needle))).toBe(true);
      }
    }
  });

  it('tampers a character of the same kind, never the last, and truncates', () => {
    expect(tamperAt('kp11.key.p256.00ff', 15)).toBe('kp11.key.p256.01ff');
    expect(tamperAt('kp11.key.p256.00ff', 4)).toBe('kp11.ley.p256.00ff');
    expect(tamperAt('ab', 1)).toBe('bb');
    expect(tamperAt('..', 0)).toBeUndefined();
    for (let position = 0; position < 40; position++) {
      const sealed = `ksw1.${randomBytes(20).toString('base64url')}`;
      const tampered = tamperAt(sealed, position)!;
      expect(tampered).toHaveLength(sealed.length);
      expect(tampered.at(-1)).toBe(sealed.at(-1));
      expect(tampered).toMatch(/^[a-z0-9]+\.[A-Za-z0-9_-]+$/);
      expect(tampered).not.toBe(sealed);
    }
    expect(truncations('ksw1.abcdef')).toEqual(['ksw1.abcde', 'ksw1.']);
  });
});

/** [what is broken, the check it must fail (a fragment of its name), the mutant, traits]. */
const MUTANTS: readonly [
  string,
  string,
  () => ReferenceVault,
  Partial<KeyVaultContractOptions>?,
][] = [
  [
    'createSeed ignores the length',
    'createSeed gives a valid BIP39 mnemonic',
    () => mutant((v) => ({ createSeed: () => ReferenceVault.prototype.createSeed.call(v, 12) })),
  ],
  [
    'createSeed accepts 13 words as 12',
    'createSeed refuses any other word count',
    () =>
      mutant((v) => ({
        createSeed: (n: number) => ReferenceVault.prototype.createSeed.call(v, n === 13 ? 12 : n),
      })),
  ],
  [
    'importSeed keeps the mnemonic as given',
    'importSeed takes a mnemonic in any case',
    () =>
      mutant((v) => ({
        revealMnemonic: async (seed: string) =>
          (await ReferenceVault.prototype.revealMnemonic.call(v, seed)).toUpperCase(),
      })),
  ],
  [
    'importSeed skips the checksum',
    'importSeed refuses an invalid mnemonic',
    () =>
      mutant((v) => ({
        importSeed: async (mnemonic: string) =>
          v.seal({
            kind: 'seed',
            entropy: sha256(new TextEncoder().encode(String(mnemonic))).slice(0, 16),
          }),
      })),
  ],
  [
    'deriveKey drops the last path segment',
    'deriveKey: "abandon … about" gives the published accounts',
    () =>
      mutant((v) => ({
        deriveKey: (seed: string, curve: Curve, path: string) =>
          ReferenceVault.prototype.deriveKey.call(v, seed, curve, path.replace(/\/[^/]+$/, '')),
      })),
  ],
  [
    'deriveKey derives P-256 keys by BIP32 (secp256k1) instead of SLIP-10',
    'any path of any curve gives the BIP32 / SLIP-10 key',
    () =>
      mutant((v) => ({
        deriveKey: async (seed: string, curve: Curve, path: string) => {
          if (curve !== 'CURVE_P256')
            return ReferenceVault.prototype.deriveKey.call(v, seed, curve, path);
          const derived = await ReferenceVault.prototype.deriveKey.call(
            v,
            seed,
            'CURVE_SECP256K1',
            path,
          );
          const { privateKey } = v.open(derived.key, 'key');
          return v.sealKey('CURVE_P256', privateKey, false);
        },
      })),
  ],
  [
    'deriveKey accepts a normal Ed25519 segment',
    'deriveKey: refuses a malformed path',
    () =>
      mutant((v) => ({
        deriveKey: (seed: string, curve: Curve, path: string) =>
          ReferenceVault.prototype.deriveKey.call(
            v,
            seed,
            curve,
            curve === 'CURVE_ED25519' ? path.replace(/\/(\d+)$/, "/$1'") : path,
          ),
      })),
  ],
  [
    'createKey returns the same key twice',
    'createKey gives a valid public key',
    () => {
      let first: VaultKey | undefined;
      return mutant((v) => ({
        createKey: async (curve: Curve) => {
          first ??= await ReferenceVault.prototype.createKey.call(v, curve);
          return curve === 'CURVE_SECP256K1'
            ? first
            : ReferenceVault.prototype.createKey.call(v, curve);
        },
      }));
    },
  ],
  [
    'importKey returns an uncompressed public key',
    'importKey gives the public key of the private key',
    () =>
      mutant((v) => ({
        importKey: async (curve: Curve, privateKey: Uint8Array) => {
          const made = await ReferenceVault.prototype.importKey.call(v, curve, privateKey);
          if (curve !== 'CURVE_P256') return made;
          return { ...made, publicKey: p256.getPublicKey(privateKey, false) };
        },
      })),
  ],
  [
    'importKey reduces the key modulo n',
    'importKey refuses a private key of 0, n or more',
    () =>
      mutant((v) => ({
        importKey: (curve: Curve, privateKey: Uint8Array) => {
          const n = secp256k1.Point.Fn.ORDER;
          const value = BigInt(`0x${bytesToHex(privateKey) || '0'}`) % n || 1n;
          const reduced = Uint8Array.from(Buffer.from(value.toString(16).padStart(64, '0'), 'hex'));
          return ReferenceVault.prototype.importKey.call(
            v,
            curve,
            curve === 'CURVE_SECP256K1' && privateKey.length === 32 ? reduced : privateKey,
          );
        },
      })),
  ],
  [
    'revealKey returns the key reversed',
    'keys: revealKey returns the private key',
    () =>
      mutant((v) => ({
        revealKey: async (key: string) =>
          (await ReferenceVault.prototype.revealKey.call(v, key)).reverse(),
      })),
  ],
  [
    'revealKey exports what is declared not exportable',
    'revealKey refuses keys from createKey with PRIVATE_KEY_NOT_EXPORTABLE',
    () =>
      mutant((v) => ({ revealKey: async (key: string) => v.open(key, 'key').privateKey.slice() }), {
        hsmLike: true,
      }),
    HSM_TRAITS,
  ],
  [
    'sign returns high-S signatures',
    'sign: CURVE_SECP256K1 signatures',
    () =>
      mutant((v) => ({
        sign: async (key: string, curve: Curve, message: Uint8Array) => {
          const signature = await ReferenceVault.prototype.sign.call(v, key, curve, message);
          const high = BigInt(`0x${bytesToHex(signature.s)}`) > secp256k1.Point.Fn.ORDER >> 1n;
          return curve === 'CURVE_SECP256K1' && !high ? flipS(curve, signature) : signature;
        },
      })),
  ],
  [
    'sign returns the wrong recovery id',
    'sign: CURVE_P256 signatures',
    () =>
      mutant((v) => ({
        sign: async (key: string, curve: Curve, message: Uint8Array) => {
          const signature = await ReferenceVault.prototype.sign.call(v, key, curve, message);
          return curve === 'CURVE_P256'
            ? { ...signature, recovery: signature.recovery === 0 ? 1 : 0 }
            : signature;
        },
      })),
  ],
  [
    'Ed25519 signs the SHA-256 of the message',
    'sign: CURVE_ED25519 signatures',
    () =>
      mutant((v) => ({
        sign: (key: string, curve: Curve, message: Uint8Array) =>
          ReferenceVault.prototype.sign.call(
            v,
            key,
            curve,
            curve === 'CURVE_ED25519' ? sha256(message) : message,
          ),
      })),
  ],
  [
    'Ed25519 imports hash the private key first',
    'RFC 8032 signatures',
    () =>
      mutant((v) => ({
        importKey: (curve: Curve, privateKey: Uint8Array) =>
          ReferenceVault.prototype.importKey.call(
            v,
            curve,
            curve === 'CURVE_ED25519' ? sha256(privateKey) : privateKey,
          ),
      })),
  ],
  [
    'ECDSA pads a short digest',
    'sign: refuses an ECDSA message that is not a 32-byte digest',
    () =>
      mutant((v) => ({
        sign: (key: string, curve: Curve, message: Uint8Array) => {
          const padded =
            message instanceof Uint8Array && message.length < 32 ? new Uint8Array(32) : message;
          return ReferenceVault.prototype.sign.call(v, key, curve, padded);
        },
      })),
  ],
  [
    'sign ignores the curve it is given',
    'sign: a key is refused as any other curve',
    () =>
      mutant((v) => ({
        sign: (key: string, curve: Curve, message: Uint8Array) => {
          const secret = v.secrets.get(key);
          const own = secret?.kind === 'key' ? secret.curve : curve;
          return ReferenceVault.prototype.sign.call(v, key, own, message);
        },
      })),
  ],
  [
    'ECDSA uses random nonces where declared deterministic',
    'are RFC 6979: the same every time',
    () => new ReferenceVault({ hsmLike: true }),
    { createdKeys: { exportable: false, signTaproot: false } },
  ],
  [
    'ECDSA uses another deterministic nonce than RFC 6979',
    'imported keys give the RFC 6979 signatures',
    () =>
      mutant((v) => ({
        sign: async (key: string, curve: Curve, message: Uint8Array) => {
          if (curve === 'CURVE_ED25519')
            return ReferenceVault.prototype.sign.call(v, key, curve, message);
          const { privateKey } = v.open(key, 'key');
          const signature = (curve === 'CURVE_P256' ? p256 : secp256k1).sign(message, privateKey, {
            prehash: false,
            format: 'recovered',
            extraEntropy: sha256(message),
          });
          return {
            r: signature.slice(1, 33),
            s: signature.slice(33),
            recovery: signature[0] as 0 | 1,
          };
        },
      })),
  ],
  [
    'sealed keys carry the private key in base64',
    'sealed: no sealed seed or key contains its secret',
    () =>
      mutant((v) => ({
        sealKey: (curve: Curve, privateKey: Uint8Array, held: boolean) => {
          const made = ReferenceVault.prototype.sealKey.call(v, curve, privateKey, held);
          const key = `${made.key}.${Buffer.from(privateKey).toString('base64')}`;
          v.secrets.set(key, v.secrets.get(made.key)!);
          return { ...made, key };
        },
      })),
  ],
  [
    'a seed opens as a key',
    'sealed: a seed is not a key',
    () =>
      mutant((v) => ({
        revealKey: async (key: string) => {
          const secret = v.secrets.get(key);
          return secret?.kind === 'seed'
            ? sha256(secret.entropy)
            : ReferenceVault.prototype.revealKey.call(v, key);
        },
      })),
  ],
  [
    'sealed keys are looked up by a prefix of their id',
    'sealed: a tampered or truncated seed or key is refused',
    () =>
      mutant((v) => ({
        open: (sealed: string, kind: Secret['kind']) => {
          const found = [...v.secrets.entries()].find(
            ([id]) => id.slice(0, 24) === String(sealed).slice(0, 24),
          );
          if (!found || found[1].kind !== kind) throw refused();
          return found[1];
        },
      })),
  ],
  [
    'signTaproot does not tweak the key',
    'signTaproot: BIP340 signatures',
    () =>
      mutant((v) => ({
        signTaproot: async (key: string, digest: Uint8Array) =>
          schnorr.sign(digest, v.open(key, 'key').privateKey),
      })),
  ],
  [
    'signTaproot ignores the merkle root',
    'signTaproot: BIP340 signatures',
    () =>
      mutant((v) => ({
        signTaproot: (key: string, digest: Uint8Array) =>
          ReferenceVault.prototype.signTaproot.call(v, key, digest, new Uint8Array(0)),
      })),
  ],
  [
    'signTaproot tweaks an empty merkle root as 32 zero bytes',
    'signTaproot: the BIP86 key',
    () =>
      mutant((v) => ({
        signTaproot: (key: string, digest: Uint8Array, merkleRoot: Uint8Array) =>
          ReferenceVault.prototype.signTaproot.call(
            v,
            key,
            digest,
            merkleRoot.length === 0 ? new Uint8Array(32) : merkleRoot,
          ),
      })),
  ],
  [
    'signTaproot signs with a P-256 key',
    'signTaproot: refuses a P-256 or Ed25519 key',
    () =>
      mutant((v) => ({
        signTaproot: async (key: string, digest: Uint8Array, merkleRoot: Uint8Array) => {
          if (merkleRoot.length !== 0 && merkleRoot.length !== 32)
            throw new KeyholdError('INVALID_PAYLOAD');
          if (digest.length !== 32) throw new KeyholdError('INVALID_PAYLOAD');
          return schnorr.sign(
            digest,
            taprootTweakPrivKey(v.open(key, 'key').privateKey, merkleRoot),
          );
        },
      })),
  ],
  [
    'signTaproot signs with an HSM key declared not to',
    'signTaproot: refuses secp256k1 keys from createKey',
    () =>
      mutant(
        (v) => ({
          signTaproot: async (key: string, digest: Uint8Array, merkleRoot: Uint8Array) =>
            schnorr.sign(digest, taprootTweakPrivKey(v.open(key, 'key').privateKey, merkleRoot)),
        }),
        { hsmLike: true },
      ),
    HSM_TRAITS,
  ],
  [
    'destroyKey says true but keeps the key',
    'destroyKey: a key from createKey',
    () => mutant(() => ({ destroyKey: async () => true })),
  ],
  [
    'destroyKey destroys imported keys too',
    'destroyKey: keys from importKey, deriveKey live only in their sealed form',
    () =>
      mutant((v) => ({
        destroyKey: async (key: string) => v.secrets.delete(key),
      })),
  ],
];

describe('each mutant fails the check that guards against it', () => {
  it.each(MUTANTS)('%s → fails "%s"', async (_what, fragment, make, options) => {
    const { ran, failed } = await failuresOf(make(), fragment, options);
    expect(ran.length).toBeGreaterThan(0);
    expect(failed.length).toBeGreaterThan(0);
  });
});
