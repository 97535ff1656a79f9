import { isKeyholdError } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import {
  decryptCredentialBundle,
  decryptExportBundle,
  encryptPrivateKeyToBundle,
  generateP256KeyPair,
} from '@turnkey/crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bundleSignerPublicKey,
  createCredentialBundle,
  createExportBundle,
  createImportTarget,
  openImportBundle,
} from './index.js';

const signer = { privateKey: p256.utils.randomSecretKey() };
const signerPublicKey = bundleSignerPublicKey(signer);
const RUNS = { numRuns: 40 };

const plaintexts = fc.uint8Array({ minLength: 0, maxLength: 512 });
const ids = fc.uuid();
const targetForm = fc.constantFrom('publicKey', 'publicKeyUncompressed') as fc.Arbitrary<
  'publicKey' | 'publicKeyUncompressed'
>;

describe('bundles (properties, against the published client)', () => {
  it('export: decryptExportBundle(createExportBundle(p)) = p, for any bytes, org and target form', async () => {
    await fc.assert(
      fc.asyncProperty(plaintexts, ids, targetForm, async (plaintext, organizationId, form) => {
        const client = generateP256KeyPair();
        const exportBundle = await createExportBundle({
          plaintext,
          targetPublicKey: client[form],
          organizationId,
          signer,
        });
        const hex = await decryptExportBundle({
          exportBundle,
          embeddedKey: client.privateKey,
          organizationId,
          returnMnemonic: false,
          dangerouslyOverrideSignerPublicKey: signerPublicKey,
        });
        expect(hex).toBe(bytesToHex(plaintext));
      }),
      RUNS,
    );
  });

  it('import: openImportBundle(encryptPrivateKeyToBundle(p)) = p, for any non-empty bytes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 512 }),
        ids,
        ids,
        async (plaintext, organizationId, userId) => {
          const { importBundle, targetPrivateKey } = createImportTarget({
            organizationId,
            userId,
            signer,
          });
          const encryptedBundle = await encryptPrivateKeyToBundle({
            privateKey: bytesToHex(plaintext),
            keyFormat: 'HEXADECIMAL',
            importBundle,
            organizationId,
            userId,
            dangerouslyOverrideSignerPublicKey: signerPublicKey,
          });
          const opened = await openImportBundle({ encryptedBundle, targetPrivateKey });
          expect(bytesToHex(opened)).toBe(bytesToHex(plaintext));
        },
      ),
      RUNS,
    );
  });

  it('import: any single-bit change of the ciphertext is refused with no plaintext', async () => {
    const organizationId = 'org';
    const userId = 'user';
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.nat(),
        fc.integer({ min: 0, max: 7 }),
        async (plaintext, position, bit) => {
          const { importBundle, targetPrivateKey } = createImportTarget({
            organizationId,
            userId,
            signer,
          });
          const bundle = JSON.parse(
            await encryptPrivateKeyToBundle({
              privateKey: bytesToHex(plaintext),
              keyFormat: 'HEXADECIMAL',
              importBundle,
              organizationId,
              userId,
              dangerouslyOverrideSignerPublicKey: signerPublicKey,
            }),
          );
          const ciphertext = hexToBytes(bundle.ciphertext);
          ciphertext[position % ciphertext.length]! ^= 1 << bit;
          const outcome = await openImportBundle({
            encryptedBundle: JSON.stringify({ ...bundle, ciphertext: bytesToHex(ciphertext) }),
            targetPrivateKey,
          }).then(
            () => 'opened',
            (error: unknown) => (isKeyholdError(error) ? error.key : String(error)),
          );
          expect(outcome).toBe('REQUEST_INVALID');
        },
      ),
      RUNS,
    );
  });

  it('credential: decryptCredentialBundle(createCredentialBundle(p)) = p', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 256 }),
        targetForm,
        async (plaintext, form) => {
          const client = generateP256KeyPair();
          const bundle = await createCredentialBundle({ plaintext, targetPublicKey: client[form] });
          expect(decryptCredentialBundle(bundle, client.privateKey)).toBe(bytesToHex(plaintext));
        },
      ),
      RUNS,
    );
  });
});
