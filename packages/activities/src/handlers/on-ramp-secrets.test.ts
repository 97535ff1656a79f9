import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { encryptOnRampSecret } from '@turnkey/crypto';
import { describe, expect, it } from 'vitest';
import type { FiatOnRampCredentialRecord } from '../records.js';
import { openOnRampCredential, sealOnRampSecret } from './on-ramp-secrets.js';

const encryptionKey = { privateKey: p256.utils.randomSecretKey() };
const publicKey = bytesToHex(p256.getPublicKey(encryptionKey.privateKey, true));
const ids = { organizationId: 'org-1', fiatOnrampCredentialId: 'cred-1' };
const record = (over: Partial<FiatOnRampCredentialRecord>): FiatOnRampCredentialRecord => ({
  ...ids,
  onrampProvider: 'FIAT_ON_RAMP_PROVIDER_COINBASE',
  publishableApiKey: 'pk',
  sealedSecretApiKey: '',
  sandboxMode: false,
  createdAt: 1,
  updatedAt: 1,
  ...over,
});

describe('on-ramp secrets, sealed', () => {
  it('seals what encryptOnRampSecret made and opens it for the same record only', async () => {
    const sealedSecretApiKey = await sealOnRampSecret(
      encryptionKey,
      encryptOnRampSecret('sk_secret', publicKey),
      'encryptedSecretApiKey',
      ids,
    );
    const sealedPrivateApiKey = await sealOnRampSecret(
      encryptionKey,
      encryptOnRampSecret('private-pem', publicKey),
      'encryptedPrivateApiKey',
      ids,
    );
    expect(sealedSecretApiKey).not.toContain('sk_secret');
    const opened = openOnRampCredential(
      encryptionKey,
      record({ sealedSecretApiKey, sealedPrivateApiKey, projectId: 'p' }),
    );
    expect(opened).toEqual({
      publishableApiKey: 'pk',
      secretApiKey: 'sk_secret',
      projectId: 'p',
      privateApiKey: 'private-pem',
      sandboxMode: false,
    });
    // Bound to the record and the field: copied onto another credential, or swapped between
    // the two fields, a sealed value does not open; nor under another key.
    expect(() =>
      openOnRampCredential(
        encryptionKey,
        record({ sealedSecretApiKey, fiatOnrampCredentialId: 'cred-2' }),
      ),
    ).toThrow();
    expect(() =>
      openOnRampCredential(
        encryptionKey,
        record({
          sealedSecretApiKey: sealedPrivateApiKey,
          sealedPrivateApiKey: sealedSecretApiKey,
        }),
      ),
    ).toThrow();
    expect(() =>
      openOnRampCredential(
        { privateKey: p256.utils.randomSecretKey() },
        record({ sealedSecretApiKey }),
      ),
    ).toThrow();
  });

  it('refuses an empty secret and one for another key, naming the field', async () => {
    for (const [envelope, reason] of [
      [encryptOnRampSecret('', publicKey), 'empty'],
      [
        encryptOnRampSecret('x', bytesToHex(p256.getPublicKey(p256.utils.randomSecretKey(), true))),
        'decrypt',
      ],
    ] as const) {
      await expect(
        sealOnRampSecret(encryptionKey, envelope, 'encryptedPrivateApiKey', ids),
      ).rejects.toMatchObject({
        key: 'INVALID_ENCRYPTED_ON_RAMP_SECRET',
        context: { field: 'encryptedPrivateApiKey', reason: expect.stringContaining(reason) },
      });
    }
  });
});
