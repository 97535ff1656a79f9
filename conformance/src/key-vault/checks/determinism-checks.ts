/**
 * Checks of deterministic ECDSA, for the key origins whose `deterministicEcdsa` trait is true:
 * RFC 6979 nonces, so the same digest gives the same signature, equal byte for byte to
 * @noble/curves' (and to the official vectors, for imported keys). Origins that sign with
 * random nonces (an HSM's own) are left out: their signatures are checked to verify, not to
 * repeat.
 * @module
 */
import assert from 'node:assert/strict';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { fcParameters } from '../../property.js';
import type { KeyVaultCheck } from '../key-vault-check.js';
import { type ContractContext, KEY_ORIGINS } from '../key-vault-contract-options.js';
import {
  deterministicSignature,
  ECDSA_CURVES,
  publicKeyOf,
  signatureHex,
} from '../signature-oracle.js';
import { type TestKey, TestKeys } from '../test-keys.js';
import { RFC6979_VECTORS } from '../vectors.js';

/**
 * The determinism checks (none when no origin is deterministic).
 * @example
 * determinismChecks(resolveContractOptions({ vault, createdKeys: { deterministicEcdsa: false } }));
 */
export function determinismChecks(ctx: ContractContext): KeyVaultCheck[] {
  const origins = KEY_ORIGINS.filter((origin) => ctx.traits(origin).deterministicEcdsa);
  const checks: KeyVaultCheck[] = [];
  if (ctx.traits('importKey').deterministicEcdsa) {
    checks.push({
      name: 'sign: imported keys give the RFC 6979 signatures, low-S (P-256 A.2.5 and the secp256k1 vectors)',
      async run() {
        const vault = await ctx.vault();
        for (const vector of RFC6979_VECTORS) {
          const { key } = await vault.importKey(vector.curve, hexToBytes(vector.privateKey));
          const digest = sha256(utf8ToBytes(vector.message));
          const signature = await vault.sign(key, vector.curve, digest);
          assert.equal(bytesToHex(signature.r), vector.r, `r of ${vector.source}`);
          assert.equal(bytesToHex(signature.s), vector.s, `s of ${vector.source}`);
        }
      },
    });
  }
  if (origins.length > 0) {
    checks.push({
      name: `sign: ECDSA signatures by keys from ${origins.join(', ')} are RFC 6979: the same every time, and @noble's (fast-check)`,
      async run() {
        const vault = await ctx.vault();
        const maker = new TestKeys(vault);
        const keys: TestKey[] = [];
        for (const curve of ECDSA_CURVES) {
          for (const made of await maker.each(curve, origins)) {
            const privateKey = await maker.privateKeyOf(made, ctx.traits(made.origin).exportable);
            if (privateKey) {
              assert.equal(
                bytesToHex(publicKeyOf(curve, privateKey)),
                bytesToHex(made.publicKey),
                `the private key of a ${curve} key from ${made.origin} does not match`,
              );
            }
            keys.push({ ...made, ...(privateKey ? { privateKey } : {}) });
          }
        }
        await fc.assert(
          fc.asyncProperty(
            fc.constantFrom(...keys),
            fc.uint8Array({ minLength: 32, maxLength: 32 }),
            async (made, digest) => {
              const what = `a ${made.curve} key from ${made.origin}`;
              const first = signatureHex(await vault.sign(made.key, made.curve, digest));
              const second = signatureHex(await vault.sign(made.key, made.curve, digest));
              assert.equal(second, first, `${what} signed one digest twice, differently`);
              if (made.privateKey) {
                const expected = deterministicSignature(made.curve, made.privateKey, digest);
                assert.equal(first, signatureHex(expected), `${what}: not the RFC 6979 signature`);
              }
            },
          ),
          fcParameters(ctx.property),
        );
      },
    });
  }
  return checks;
}
