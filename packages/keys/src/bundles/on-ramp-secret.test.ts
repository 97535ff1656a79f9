import { KeyholdError } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { encryptOnRampSecret } from '@turnkey/crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openOnRampSecret } from './on-ramp-secret.js';

const privateKey = p256.utils.randomSecretKey();
// encryptOnRampSecret takes the compressed key (it uncompresses it itself).
const publicKey = bytesToHex(p256.getPublicKey(privateKey, true));
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const refusal = (field: string, reason: string) =>
  new KeyholdError('INVALID_ENCRYPTED_ON_RAMP_SECRET', { field, reason });

describe('openOnRampSecret', () => {
  it('opens what @turnkey/crypto encryptOnRampSecret makes for our key, any text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 300 }), async (secret) => {
        const envelope = encryptOnRampSecret(secret, publicKey);
        expect(text(await openOnRampSecret({ envelope, privateKey }))).toBe(secret);
      }),
      { numRuns: 30 },
    );
  });

  it('refuses an envelope for another key, a changed character, and non-base58 input', async () => {
    const other = bytesToHex(p256.getPublicKey(p256.utils.randomSecretKey(), true));
    const forOther = encryptOnRampSecret('sk_test_123', other);
    const good = encryptOnRampSecret('sk_test_123', publicKey);
    const changed = `${good.slice(0, 10)}${good[10] === '2' ? '3' : '2'}${good.slice(11)}`;
    for (const envelope of [forOther, changed, '0OIl', '', 'x'.repeat(20_000)]) {
      await expect(
        openOnRampSecret({
          envelope,
          privateKey,
          field: 'encryptedSecretApiKey',
          toError: refusal,
        }),
      ).rejects.toMatchObject({ key: 'INVALID_ENCRYPTED_ON_RAMP_SECRET' });
    }
  });
});
