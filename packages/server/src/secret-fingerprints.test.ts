/**
 * A body that carries a secret (a card number and CVV, a one-time code in the clear) is
 * fingerprinted in its stored form: the activity's `fingerprint` is not the SHA-256 of the raw
 * bytes — which anyone reading it could match against every candidate card or code offline —
 * yet the same raw body is still the same activity.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { createApiKeyStamper, generateApiKeyPair } from './api-key-signer.js';
import { createKeyhold } from './keyhold.js';
import { silentLogger } from './logger.js';

describe('fingerprints of bodies that carry secrets', () => {
  it('SET_PAYMENT_METHOD V1: not the hash of the raw body; the same body is the same activity', async () => {
    const keyhold = createKeyhold({ logger: silentLogger });
    const key = generateApiKeyPair();
    const { organizationId } = await keyhold.bootstrap({
      organizationName: 'Cards',
      apiPublicKey: key.publicKey,
    });
    const body = JSON.stringify({
      type: 'ACTIVITY_TYPE_SET_PAYMENT_METHOD',
      timestampMs: String(Date.now()),
      organizationId,
      parameters: {
        number: '4111111111111111',
        cvv: '739',
        expiryMonth: '12',
        expiryYear: '2031',
        cardHolderName: 'Ada Lovelace',
        cardHolderEmail: 'ada@example.com',
      },
    });
    const submit = () =>
      keyhold.handle({
        method: 'POST',
        path: '/public/v1/submit/set_payment_method',
        headers: { 'x-stamp': createApiKeyStamper(key.privateKey).stamp(body) },
        rawBody: utf8ToBytes(body),
      });
    const first = await submit();
    expect(first.status).toBe(200);
    const { activity } = JSON.parse(first.body);
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(activity.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(activity.fingerprint).not.toBe(`sha256:${bytesToHex(sha256(utf8ToBytes(body)))}`);
    // What is stored and shown holds no card: the fingerprint is over the stored form.
    expect(JSON.stringify(activity)).not.toContain('4111111111111111');
    expect(JSON.stringify(activity)).not.toContain('"739"');
    const again = JSON.parse((await submit()).body).activity;
    expect(again.id).toBe(activity.id);
    expect(again.fingerprint).toBe(activity.fingerprint);
    await keyhold.close();
  });
});
