/**
 * The fiat on-ramp end to end, through the published clients: `@turnkey/sdk-server` creates
 * MoonPay and Coinbase credentials whose secrets `@turnkey/crypto`'s `encryptOnRampSecret`
 * encrypted to `onRampEncryptionPublicKey`, lists them (never a secret), updates and deletes
 * them; INIT_FIAT_ON_RAMP answers MoonPay's buy-widget URL that MoonPay's own SDK
 * (`@moonpay/moonpay-node`) verifies with the uploaded secret key, and the signature of a
 * `urlForSignature`; get_onramp_transaction_status answers the status Keyhold recorded and
 * refuses to claim a refreshed one. Refusals — a schema violation, a secret for another key, a
 * duplicate credential, a provider without an adapter or without a credential, a purchase
 * MoonPay does not offer, an unsignable URL, an unknown id — are Status bodies with the
 * catalogue's message and store nothing. Run on memory and embedded PGlite.
 */
import { MoonPay } from '@moonpay/moonpay-node';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { encryptOnRampSecret } from '@turnkey/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeStoreTargets, STORE_TARGETS } from './__fixtures__/store-targets.js';
import {
  rejection,
  startTurnkeyServer,
  type TurnkeyServer,
} from './__fixtures__/turnkey-server.js';

afterAll(closeStoreTargets);

const MOONPAY = 'FIAT_ON_RAMP_PROVIDER_MOONPAY' as const;
const COINBASE = 'FIAT_ON_RAMP_PROVIDER_COINBASE' as const;
const WALLET = '0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae';
const moonPay = (secretKey: string) => new MoonPay(secretKey, { debug: false }).url;

describe.each(STORE_TARGETS)('fiat on-ramp on %s', (_, openStore) => {
  let kh: TurnkeyServer;

  beforeAll(async () => {
    kh = await startTurnkeyServer(await openStore());
  });
  afterAll(() => kh?.server.close());

  const encrypted = (secret: string) =>
    encryptOnRampSecret(secret, kh.server.keyhold.onRampEncryptionPublicKey);
  const credentials = async () =>
    (await kh.client.listFiatOnRampCredentials({ organizationId: kh.organizationId }))
      .fiatOnRampCredentials;
  const activityCount = async () =>
    (await kh.client.getActivities({ organizationId: kh.organizationId })).activities.length;
  const init = (overrides: Record<string, unknown> = {}) =>
    kh.client.initFiatOnRamp({
      onrampProvider: MOONPAY,
      walletAddress: WALLET,
      network: 'FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_ETHEREUM',
      cryptoCurrencyCode: 'FIAT_ON_RAMP_CRYPTO_CURRENCY_ETH',
      sandboxMode: true,
      ...overrides,
    } as Parameters<TurnkeyServer['client']['initFiatOnRamp']>[0]);

  it('publishes the key encryptOnRampSecret takes: compressed P-256, also at /keyhold/v1/public_keys', async () => {
    const key = kh.server.keyhold.onRampEncryptionPublicKey;
    expect(key).toMatch(/^0[23][0-9a-f]{64}$/);
    const document = await (await fetch(`${kh.server.url}/keyhold/v1/public_keys`)).json();
    expect(document.onRampEncryptionPublicKey).toBe(key);
  });

  it('creates, lists, uses, updates and deletes a MoonPay credential; no answer carries a secret', async () => {
    const secret = 'sk_test_Keyhold1a2b3c';
    const created = await kh.client.createFiatOnRampCredential({
      onrampProvider: MOONPAY,
      publishableApiKey: 'pk_test_Keyhold',
      encryptedSecretApiKey: encrypted(secret),
      sandboxMode: true,
    });
    const id = created.fiatOnRampCredentialId;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const listed = await kh.client.listFiatOnRampCredentials({ organizationId: kh.organizationId });
    expect(listed.fiatOnRampCredentials.find((c) => c.fiatOnrampCredentialId === id)).toMatchObject(
      {
        organizationId: kh.organizationId,
        onrampProvider: MOONPAY,
        publishableApiKey: 'pk_test_Keyhold',
        encryptedSecretApiKey: '',
        sandboxMode: true,
      },
    );
    expect(JSON.stringify(listed)).not.toContain(secret);

    // The widget URL: MoonPay's sandbox, its parameters, signed with the uploaded secret.
    const first = await init({
      fiatCurrencyCode: 'FIAT_ON_RAMP_CURRENCY_USD',
      fiatCurrencyAmount: '100',
      paymentMethod: 'FIAT_ON_RAMP_PAYMENT_METHOD_APPLE_PAY',
    });
    const url = new URL(first.onRampUrl);
    expect(url.origin).toBe('https://buy-sandbox.moonpay.com');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      apiKey: 'pk_test_Keyhold',
      currencyCode: 'eth',
      walletAddress: WALLET,
      baseCurrencyCode: 'usd',
      baseCurrencyAmount: '100',
      paymentMethod: 'apple_pay',
      externalTransactionId: first.onRampTransactionId,
    });
    expect(moonPay(secret).isSignatureValid(first.onRampUrl)).toBe(true);
    expect(moonPay('sk_test_other').isSignatureValid(first.onRampUrl)).toBe(false);
    expect(first.onRampUrlSignature).toBeUndefined();
    expect(JSON.stringify(first)).not.toContain(secret);

    // urlForSignature: the signature MoonPay's SDK computes for that URL with the same key.
    const forSdk = `https://buy-sandbox.moonpay.com?apiKey=pk_test_Keyhold&currencyCode=usdc_base&walletAddress=${WALLET}`;
    const signed = await init({
      network: 'FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BASE',
      cryptoCurrencyCode: 'FIAT_ON_RAMP_CRYPTO_CURRENCY_USDC',
      urlForSignature: forSdk,
    });
    expect(signed.onRampUrlSignature).toBe(moonPay(secret).generateSignature(forSdk));
    expect(new URL(signed.onRampUrl).searchParams.get('currencyCode')).toBe('usdc_base');
    expect(signed.onRampTransactionId).not.toBe(first.onRampTransactionId);

    // The status Keyhold recorded; a refresh it cannot make is refused, not faked.
    const status = await kh.client.getOnRampTransactionStatus({
      organizationId: kh.organizationId,
      transactionId: first.onRampTransactionId,
    });
    expect(status.transactionStatus).toBe('INITIATED');
    const refreshed = await rejection(
      kh.client.getOnRampTransactionStatus({
        organizationId: kh.organizationId,
        transactionId: first.onRampTransactionId,
        refresh: true,
      }),
    );
    expect(refreshed.message).toContain(
      'this server cannot ask the on-ramp provider for a transaction status',
    );

    // A new secret signs from now on; the old one no longer verifies.
    const newSecret = 'sk_test_Rotated9z8y';
    await kh.client.updateFiatOnRampCredential({
      fiatOnrampCredentialId: id,
      onrampProvider: MOONPAY,
      publishableApiKey: 'pk_test_Keyhold2',
      encryptedSecretApiKey: encrypted(newSecret),
    });
    const after = await init();
    expect(new URL(after.onRampUrl).searchParams.get('apiKey')).toBe('pk_test_Keyhold2');
    expect(moonPay(newSecret).isSignatureValid(after.onRampUrl)).toBe(true);
    expect(moonPay(secret).isSignatureValid(after.onRampUrl)).toBe(false);

    const deleted = await kh.client.deleteFiatOnRampCredential({ fiatOnrampCredentialId: id });
    expect(deleted.fiatOnRampCredentialId).toBe(id);
    expect((await credentials()).map((c) => c.fiatOnrampCredentialId)).not.toContain(id);
    const missing = await rejection(init());
    expect(missing.message).toContain('no fiat on-ramp credential for this provider and mode');
    // The purchase it made is still known.
    expect(
      (
        await kh.client.getOnRampTransactionStatus({
          organizationId: kh.organizationId,
          transactionId: after.onRampTransactionId,
        })
      ).transactionStatus,
    ).toBe('INITIATED');
  });

  it('keeps a Coinbase credential (project id, private key) but has no adapter to use it', async () => {
    const { fiatOnRampCredentialId: fiatOnrampCredentialId } =
      await kh.client.createFiatOnRampCredential({
        onrampProvider: COINBASE,
        projectId: 'project-123',
        publishableApiKey: 'organizations/abc/apiKeys/def',
        encryptedSecretApiKey: encrypted('coinbase-secret'),
        encryptedPrivateApiKey: encrypted(
          '-----BEGIN EC PRIVATE KEY-----\nMHc…\n-----END EC PRIVATE KEY-----',
        ),
      });
    const listed = (await credentials()).find(
      (c) => c.fiatOnrampCredentialId === fiatOnrampCredentialId,
    );
    expect(listed).toMatchObject({ projectId: 'project-123', sandboxMode: false });
    expect(JSON.stringify(listed)).not.toContain('PRIVATE KEY');
    const refused = await rejection(init({ onrampProvider: COINBASE, sandboxMode: false }));
    expect(refused.message).toContain('this server has no adapter for this fiat on-ramp provider');
    await kh.client.deleteFiatOnRampCredential({ fiatOnrampCredentialId });
  });

  it('refuses bad input with the catalogue message and stores nothing', async () => {
    const secret = 'sk_test_Refusals';
    const { fiatOnRampCredentialId: fiatOnrampCredentialId } =
      await kh.client.createFiatOnRampCredential({
        onrampProvider: MOONPAY,
        publishableApiKey: 'pk_test_Refusals',
        encryptedSecretApiKey: encrypted(secret),
        sandboxMode: true,
      });
    const activities = await activityCount();
    const before = await credentials();
    const base = {
      onrampProvider: MOONPAY,
      publishableApiKey: 'pk_test_x',
      encryptedSecretApiKey: encrypted(secret),
    };
    const otherKey = bytesToHex(p256.getPublicKey(p256.utils.randomSecretKey(), true));
    const create = (overrides: Record<string, unknown>) => () =>
      kh.client.createFiatOnRampCredential({ ...base, ...overrides } as typeof base);
    const update = (overrides: Record<string, unknown>) => () =>
      kh.client.updateFiatOnRampCredential({
        fiatOnrampCredentialId,
        ...base,
        ...overrides,
      } as typeof base & { fiatOnrampCredentialId: string });
    const cases: [() => Promise<unknown>, string][] = [
      [
        create({ onrampProvider: 'FIAT_ON_RAMP_PROVIDER_UNSPECIFIED' }),
        'invalid fiat on-ramp provider',
      ],
      [create({ publishableApiKey: 'has space' }), 'invalid fiat on-ramp parameters'],
      [create({ encryptedSecretApiKey: 'not base58!' }), 'invalid encrypted on-ramp secret'],
      // Encrypted to another key, and to Turnkey's production key (the helper's default).
      [
        create({ encryptedSecretApiKey: encryptOnRampSecret(secret, otherKey) }),
        'invalid encrypted on-ramp secret',
      ],
      [
        create({ encryptedSecretApiKey: encryptOnRampSecret(secret) }),
        'invalid encrypted on-ramp secret',
      ],
      [
        create({ encryptedPrivateApiKey: encryptOnRampSecret('k', otherKey) }),
        'invalid encrypted on-ramp secret',
      ],
      // A second MoonPay sandbox credential.
      [
        create({ sandboxMode: true }),
        'a fiat on-ramp credential for this provider and mode already exists',
      ],
      [
        update({ encryptedSecretApiKey: encryptOnRampSecret('new', otherKey) }),
        'invalid encrypted on-ramp secret',
      ],
      [
        update({ fiatOnrampCredentialId: '0195f1d2-0000-7000-8000-000000000000' }),
        'fiat on-ramp credential not found',
      ],
      [
        () =>
          kh.client.deleteFiatOnRampCredential({
            fiatOnrampCredentialId: '0195f1d2-0000-7000-8000-000000000000',
          }),
        'fiat on-ramp credential not found',
      ],
      [() => init({ walletAddress: 'not an address' }), 'invalid fiat on-ramp parameters'],
      [
        () => init({ network: 'FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_UNSPECIFIED' }),
        'invalid fiat on-ramp parameters',
      ],
      [() => init({ fiatCurrencyAmount: '-5' }), 'invalid fiat on-ramp parameters'],
      [() => init({ countryCode: 'usa' }), 'invalid fiat on-ramp parameters'],
      [
        () =>
          init({
            network: 'FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BITCOIN',
            cryptoCurrencyCode: 'FIAT_ON_RAMP_CRYPTO_CURRENCY_SOL',
          }),
        'the fiat on-ramp provider does not offer this purchase',
      ],
      [
        () => init({ paymentMethod: 'FIAT_ON_RAMP_PAYMENT_METHOD_CRYPTO_ACCOUNT' }),
        'the fiat on-ramp provider does not offer this purchase',
      ],
      [() => init({ urlForSignature: 'http://buy.moonpay.com?a=1' }), 'invalid urlForSignature'],
      [() => init({ urlForSignature: 'https://buy.moonpay.com' }), 'invalid urlForSignature'],
      // Live mode has no credential here.
      [() => init({ sandboxMode: false }), 'no fiat on-ramp credential for this provider and mode'],
    ];
    for (const [call, message] of cases) {
      const refused = await rejection(call());
      expect(refused.message, message).toContain(message);
      expect(refused.message).not.toContain(secret);
    }
    for (const transactionId of ['0195f1d2-0000-7000-8000-000000000000']) {
      const unknown = await rejection(
        kh.client.getOnRampTransactionStatus({ organizationId: kh.organizationId, transactionId }),
      );
      expect(unknown.message).toContain('on-ramp transaction not found');
    }
    // Nothing of the refusals was stored: no activity, no credential, the old secret still signs.
    expect(await activityCount()).toBe(activities);
    expect(await credentials()).toEqual(before);
    expect(moonPay(secret).isSignatureValid((await init()).onRampUrl)).toBe(true);
    await kh.client.deleteFiatOnRampCredential({ fiatOnrampCredentialId });
  });
});
