import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { HDKey } from '@scure/bip32';
import fc from 'fast-check';
import { hdKeyToAccount, HDKey as ViemHDKey } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import known from './__fixtures__/known-wallets.json' with { type: 'json' };
import { deriveAddress } from './address.js';
import { defaultPathFor } from './address-format.js';
import { formatDerivationPath, HARDENED_OFFSET } from './derivation-path.js';
import { deriveKeyFromSeed } from './hd-derivation.js';

const seed = hexToBytes(known.seed);
// viem's own (older) @scure/bip32 copy: an independent derivation to compare against.
const root = ViemHDKey.fromMasterSeed(seed);
const anySeed = fc.uint8Array({ minLength: 16, maxLength: 64 });
const hardened = fc.integer({ min: HARDENED_OFFSET, max: 2 * HARDENED_OFFSET - 1 });
const anyIndex = fc.integer({ min: 0, max: 2 * HARDENED_OFFSET - 1 });

describe('HD derivation (properties)', () => {
  it('Ethereum accounts match viem (independent BIP32 + address code) at every index', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (accountIndex) => {
        const path = defaultPathFor('ADDRESS_FORMAT_ETHEREUM', accountIndex)!;
        const key = deriveKeyFromSeed(seed, 'CURVE_SECP256K1', path);
        const viemAccount = hdKeyToAccount(root, { accountIndex });
        expect(deriveAddress('ADDRESS_FORMAT_ETHEREUM', 'CURVE_SECP256K1', key.publicKey)).toBe(
          viemAccount.address,
        );
      }),
      { numRuns: 25 },
    );
  });

  it('secp256k1 derivation equals @scure/bip32 on any seed and path', () => {
    fc.assert(
      fc.property(anySeed, fc.array(anyIndex, { maxLength: 5 }), (s, indices) => {
        const path = formatDerivationPath(indices);
        const ours = deriveKeyFromSeed(s, 'CURVE_SECP256K1', path);
        const theirs = HDKey.fromMasterSeed(s).derive(path);
        expect(bytesToHex(ours.privateKey)).toBe(bytesToHex(theirs.privateKey!));
        expect(bytesToHex(ours.publicKey)).toBe(bytesToHex(theirs.publicKey!));
      }),
      { numRuns: 30 },
    );
  });

  it('ed25519 and P-256 public keys are those of the derived private keys', () => {
    fc.assert(
      fc.property(anySeed, fc.array(hardened, { maxLength: 4 }), (s, indices) => {
        const path = formatDerivationPath(indices);
        const ed = deriveKeyFromSeed(s, 'CURVE_ED25519', path);
        expect(bytesToHex(ed.publicKey)).toBe(bytesToHex(ed25519.getPublicKey(ed.privateKey)));
        const nist = deriveKeyFromSeed(s, 'CURVE_P256', path);
        expect(p256.utils.isValidSecretKey(nist.privateKey)).toBe(true);
        expect(bytesToHex(nist.publicKey)).toBe(bytesToHex(p256.getPublicKey(nist.privateKey)));
      }),
      { numRuns: 30 },
    );
  });

  it('P-256 non-hardened children are valid keys (SLIP-10 normal derivation)', () => {
    fc.assert(
      fc.property(anySeed, fc.array(anyIndex, { minLength: 1, maxLength: 4 }), (s, indices) => {
        const key = deriveKeyFromSeed(s, 'CURVE_P256', formatDerivationPath(indices));
        expect(p256.utils.isValidSecretKey(key.privateKey)).toBe(true);
      }),
      { numRuns: 30 },
    );
  });

  it('derivation is deterministic and path-sensitive', () => {
    fc.assert(
      fc.property(anySeed, hardened, hardened, (s, a, b) => {
        fc.pre(a !== b);
        for (const curve of ['CURVE_SECP256K1', 'CURVE_P256', 'CURVE_ED25519'] as const) {
          const one = deriveKeyFromSeed(s, curve, formatDerivationPath([a]));
          const again = deriveKeyFromSeed(s, curve, formatDerivationPath([a]));
          const other = deriveKeyFromSeed(s, curve, formatDerivationPath([b]));
          expect(bytesToHex(one.privateKey)).toBe(bytesToHex(again.privateKey));
          expect(bytesToHex(one.privateKey)).not.toBe(bytesToHex(other.privateKey));
        }
      }),
      { numRuns: 20 },
    );
  });
});
