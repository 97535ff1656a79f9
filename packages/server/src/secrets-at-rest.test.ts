/**
 * Secrets at rest: after wallets (12 and 24 words), wallet accounts and private keys on every
 * curve are created — and used to sign — through the public API, no table of the SQL store
 * (PGlite and Postgres) holds a plaintext secret in any column.
 *
 * The test holds the master key, so it opens the sealed values it reads from the store with a
 * SoftwareKeyVault of its own and gets the real secrets back (checked: each private key gives
 * the record's public key, each mnemonic has the wallet's length). It then reads every row of
 * every table of the store's schema as `row_to_json(t)::text` and looks for: each mnemonic
 * (whole, and every window of 3 consecutive words), its BIP39 entropy and 64-byte seed in hex
 * and base64, and every private key in hex (any case), base64 and base64url.
 *
 * The scanner is shown to work on the same data: a marker planted in a wallet name, and a decoy
 * "key" planted there as upper-case hex, are found; so are the sealed blobs and public keys it
 * must see. Without Postgres the Postgres run is skipped loudly (CI: it fails).
 *
 * One-time codes too: two codes are sent (INIT_OTP V3, the notifier keeps the messages), one
 * is verified through VERIFY_OTP V2 (`encryptOtpCodeToBundle`) and one left live; neither
 * code appears in any table (the `otps` table holds a keyed MAC of each).
 *
 * Mailed credentials too: EMAIL_AUTH and INIT_USER_EMAIL_RECOVERY mail a credential bundle,
 * CREATE_INVITATIONS an invitation key; neither the bundles nor the private keys inside them
 * (opened with `decryptCredentialBundle`), nor the invitation key, appear in any table (the
 * `invitations` table and `api_keys` hold public keys only).
 * A payment card's number and CVV (SET_PAYMENT_METHOD V1) are in no table: only its last four
 * digits and holder are kept. OAuth 2 client secrets too: a credential is created with one secret (encrypted by
 * `encryptOauth2ClientSecret` to `tlsFetcherEncryptPublicKey`) and updated with another; neither
 * secret appears in any table, in the clear or hex/base64-encoded (the `oauth2_credentials`
 * table holds each sealed, which the scanner is shown to find).
 * The `oauth_providers` table (store version 12) has no secret column: issuer, audience and
 * subject of a provider, never the id_token it was registered with (see the README, Security).
 * A provider is registered from a real id_token of a loopback `oidc-provider`; the table has
 * its row and no part of the token's signature.
 * The auth proxy's API key (ENABLE_AUTH_PROXY) is in no table: the setting holds it sealed,
 * which the scanner is shown to find, and the test opens it to the proxy user's public key.
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import {
  authProxySettingOf,
  type NotifierMessage,
  openAuthProxyApiKey,
  type Store,
  Store as StoreId,
} from '@keyhold/activities';
import { mnemonicToEntropy, mnemonicToSeedSync, publicKeyFromPrivateKey } from '@keyhold/keys';
import { joseOidcVerifier } from '@keyhold/oidc-jose';
import type { Curve } from '@keyhold/protocol';
import { createPgliteStore, createPostgresStore, KEYHOLD_TABLES } from '@keyhold/store-postgres';
import { generateMasterKey, SoftwareKeyVault } from '@keyhold/vault-software';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import {
  decryptCredentialBundle,
  encryptOauth2ClientSecret,
  encryptOtpCodeToBundle,
  generateP256KeyPair,
} from '@turnkey/crypto';
import { afterAll, describe, expect, it } from 'vitest';
// Test helpers of the SQL adapter (no package export: test-only code).
import { templatePglite } from '../../../adapters/store-postgres/src/testing/pglite-template.js';
import {
  dropSchemas,
  POSTGRES_URL,
  postgresReachable,
  testSchema,
} from '../../../adapters/store-postgres/src/testing/targets.js';
import { startOidcIssuer } from './__fixtures__/oidc-issuer.js';
import { generateApiKeyPair } from './api-key-signer.js';
import { createKeyhold } from './keyhold.js';
import { silentLogger } from './logger.js';
import { type SignerKey, TlsFetcherEncryptKey } from './signer-key.js';

/** A store under test plus read access to its raw rows. */
interface Target {
  store: Store;
  schema: string;
  /** Runs one SELECT and returns its rows. */
  rows(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  dispose(): Promise<void>;
}

async function pgliteTarget(): Promise<Target> {
  const db = await templatePglite();
  const schema = testSchema('secrets');
  const store = await createPgliteStore({ pglite: db, schema });
  return {
    store,
    schema,
    rows: async (sql, params) => (await db.query<Record<string, unknown>>(sql, params)).rows,
    dispose: () => db.close(),
  };
}

/** `pg`, from the SQL adapter's dependencies (the server package does not depend on it). */
interface PgClient {
  connect(): Promise<unknown>;
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
}
const pg = createRequire(new URL('../../../adapters/store-postgres/package.json', import.meta.url))(
  'pg',
) as { Client: new (config: { connectionString: string }) => PgClient };

async function postgresTarget(): Promise<Target> {
  const schema = testSchema('secrets');
  const store = await createPostgresStore({ connectionString: POSTGRES_URL, schema });
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  return {
    store,
    schema,
    rows: async (sql, params) => (await client.query(sql, params)).rows,
    async dispose() {
      await client.end();
      await dropSchemas([schema]);
    },
  };
}

// ---------------------------------------------------------------------------------------
// What to look for

interface Needle {
  what: string;
  text: string;
  /** Hex: matched in any letter case. */
  anyCase: boolean;
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64').replace(/=+$/, '');
const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** Every encoding of some secret bytes the scan looks for. */
function bytesNeedles(what: string, bytes: Uint8Array): Needle[] {
  return [
    { what: `${what} (hex)`, text: bytesToHex(bytes), anyCase: true },
    { what: `${what} (base64)`, text: base64(bytes), anyCase: false },
    { what: `${what} (base64url)`, text: base64url(bytes), anyCase: false },
  ];
}

function mnemonicNeedles(what: string, mnemonic: string): Needle[] {
  const words = mnemonic.split(' ');
  const needles: Needle[] = [{ what: `${what} mnemonic`, text: mnemonic, anyCase: true }];
  for (let i = 0; i + 3 <= words.length; i++) {
    const window = words.slice(i, i + 3);
    needles.push(
      { what: `${what} mnemonic words ${i}-${i + 2}`, text: window.join(' '), anyCase: true },
      // The words as a JSON array, and as one inside a JSON string (a stored request body).
      {
        what: `${what} mnemonic words ${i}-${i + 2} (list)`,
        text: window.join('","'),
        anyCase: true,
      },
      {
        what: `${what} mnemonic words ${i}-${i + 2} (escaped list)`,
        text: window.join('\\",\\"'),
        anyCase: true,
      },
    );
  }
  return [
    ...needles,
    ...bytesNeedles(`${what} BIP39 entropy`, mnemonicToEntropy(mnemonic)),
    ...bytesNeedles(`${what} BIP39 seed`, mnemonicToSeedSync(mnemonic)),
  ];
}

/** Every row of every table of the schema, as JSON text, by table. */
async function dumpSchema(target: Target): Promise<Map<string, string[]>> {
  const tables = (
    await target.rows(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY table_name`,
      [target.schema],
    )
  ).map((r) => String(r.table_name));
  const dump = new Map<string, string[]>();
  for (const table of tables) {
    const rows = await target.rows(
      `SELECT row_to_json(t)::text AS j FROM "${target.schema}"."${table}" t`,
    );
    dump.set(
      table,
      rows.map((r) => String(r.j)),
    );
  }
  return dump;
}

/** Where each needle occurs: `what @ table`. */
function scan(dump: Map<string, string[]>, needles: readonly Needle[]): string[] {
  const hits: string[] = [];
  for (const [table, rows] of dump) {
    const text = rows.join('\n');
    const lower = text.toLowerCase();
    for (const needle of needles) {
      const found = needle.anyCase
        ? lower.includes(needle.text.toLowerCase())
        : text.includes(needle.text);
      if (found) hits.push(`${needle.what} @ ${table}`);
    }
  }
  return hits;
}

// ---------------------------------------------------------------------------------------

const ACCOUNT: Record<Curve, { pathFormat: string; path: (i: number) => string; format: string }> =
  {
    CURVE_SECP256K1: {
      pathFormat: 'PATH_FORMAT_BIP32',
      path: (i) => `m/44'/60'/${i}'/0/0`,
      format: 'ADDRESS_FORMAT_ETHEREUM',
    },
    CURVE_ED25519: {
      pathFormat: 'PATH_FORMAT_BIP32',
      path: (i) => `m/44'/501'/${i}'/0'`,
      format: 'ADDRESS_FORMAT_SOLANA',
    },
    CURVE_P256: {
      pathFormat: 'PATH_FORMAT_BIP32',
      path: (i) => `m/44'/1'/${i}'/0/0`,
      format: 'ADDRESS_FORMAT_COMPRESSED',
    },
  };
const CURVES = Object.keys(ACCOUNT) as Curve[];
const accounts = (index: number) =>
  CURVES.map((curve) => ({
    curve,
    pathFormat: ACCOUNT[curve].pathFormat,
    path: ACCOUNT[curve].path(index),
    addressFormat: ACCOUNT[curve].format,
  }));

async function secretsStaySealed(target: Target) {
  const masterKey = generateMasterKey();
  // The notifier keeps what it is given to send: the test reads the codes from it.
  const sent: NotifierMessage[] = [];
  const issuer = await startOidcIssuer([{ clientId: 'app' }]);
  const keyhold = createKeyhold({
    store: target.store,
    masterKey,
    logger: silentLogger,
    notifier: { send: async (message) => void sent.push(message) },
    oidcVerifier: joseOidcVerifier({ trustedIssuers: [issuer.issuer], allowLoopbackHttp: true }),
  });
  try {
    const apiKey = generateApiKeyPair();
    const { organizationId, userId } = await keyhold.bootstrap({
      organizationName: 'Secrets at rest',
      apiPublicKey: apiKey.publicKey,
    });
    const client = keyhold.client({ organizationId, apiPrivateKey: apiKey.privateKey });

    // Everything that makes a secret, through the public API.
    const w12 = await client.createWallet({ walletName: 'w12', accounts: accounts(0) });
    const w24 = await client.createWallet({
      walletName: 'w24',
      accounts: accounts(0),
      mnemonicLength: 24,
    });
    const added = await client.run<{ addresses: string[] }>(
      'ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS',
      { walletId: w12.walletId, accounts: accounts(1) },
    );
    const keys = await client.run<{
      privateKeys: { privateKeyId: string; addresses: { address: string }[] }[];
    }>('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', {
      privateKeys: CURVES.map((curve) => ({
        privateKeyName: `key-${curve}`,
        curve,
        privateKeyTags: [],
        addressFormats: [ACCOUNT[curve].format],
      })),
    });
    // Sign with every key once: the signing path must not leave a secret behind either.
    const byCurve = (addresses: readonly string[]) =>
      addresses.map((signWith, i) => ({ signWith, curve: CURVES[i]! }));
    for (const { signWith, curve } of [
      ...byCurve(w12.addresses),
      ...byCurve(w24.addresses),
      ...byCurve(added.addresses),
      ...byCurve(keys.privateKeys.map((k) => k.privateKeyId)),
    ]) {
      await client.signRawPayload({
        signWith,
        payload: bytesToHex(randomBytes(32)),
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction:
          curve === 'CURVE_ED25519' ? 'HASH_FUNCTION_NOT_APPLICABLE' : 'HASH_FUNCTION_NO_OP',
      });
    }
    // The scanner's positive controls: a marker and a decoy key planted in a wallet name.
    const marker = `marker-${randomBytes(8).toString('hex')}`;
    const decoy = randomBytes(32);
    await client.createWallet({
      walletName: `${marker} ${bytesToHex(decoy).toUpperCase()}`,
      accounts: [],
    });

    // One-time codes: one verified by V2 (encrypted to the OTP's target), one by V1 (the code
    // in the clear in the intent, which the activity must not keep), one left live.
    const codes: string[] = [];
    for (const contact of ['verified@example.com', 'v1@example.com', 'live@example.com']) {
      const otp = await client.run<{ otpId: string; otpEncryptionTargetBundle: string }>(
        'ACTIVITY_TYPE_INIT_OTP_V3',
        { otpType: 'OTP_TYPE_EMAIL', contact, appName: 'Secrets' },
      );
      const code = sent.at(-1)!.text.match(/sign-in code is ([0-9A-Z]{9})/)![1]!;
      codes.push(code);
      if (contact === 'v1@example.com') {
        await client.run('ACTIVITY_TYPE_VERIFY_OTP', { otpId: otp.otpId, otpCode: code });
      }
      if (contact !== 'verified@example.com') continue;
      const encryptedOtpBundle = await encryptOtpCodeToBundle(
        code,
        otp.otpEncryptionTargetBundle,
        generateP256KeyPair().publicKey,
        keyhold.tlsFetcherSignPublicKey,
      );
      await client.run('ACTIVITY_TYPE_VERIFY_OTP_V2', { otpId: otp.otpId, encryptedOtpBundle });
    }

    // Mailed credentials: an email-auth and a recovery bundle, and an invitation key.
    const mailedSecrets: { what: string; bundle?: string; key: string }[] = [];
    const bundleTarget = generateP256KeyPair();
    const lastMailed = (label: string) =>
      (sent.at(-1) as { text: string }).text.match(new RegExp(`${label}: ([0-9A-Za-z]+)`))![1]!;
    await client.run('ACTIVITY_TYPE_CREATE_USERS_V3', {
      users: [
        {
          userName: 'mailbox',
          userEmail: 'mailbox@example.com',
          apiKeys: [],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    for (const [type, label] of [
      ['ACTIVITY_TYPE_EMAIL_AUTH_V3', 'Credential bundle'],
      ['ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2', 'Recovery bundle'],
    ] as const) {
      await client.run(type, {
        email: 'mailbox@example.com',
        targetPublicKey: bundleTarget.publicKey,
        emailCustomization: { appName: 'Secrets' },
      });
      const bundle = lastMailed(label);
      mailedSecrets.push({
        what: label,
        bundle,
        key: decryptCredentialBundle(bundle, bundleTarget.privateKey),
      });
    }
    const whoami = await client.whoami();
    await client.run('ACTIVITY_TYPE_CREATE_INVITATIONS', {
      invitations: [
        {
          receiverUserName: 'invitee',
          receiverUserEmail: 'invitee@example.com',
          receiverUserTags: [],
          accessType: 'ACCESS_TYPE_WEB',
          senderUserId: whoami.userId,
        },
      ],
    });
    mailedSecrets.push({ what: 'invitation key', key: lastMailed('Invitation key') });
    // OAuth 2 client secrets: one created, then replaced by another.
    const clientSecrets = [
      `client-secret-${randomBytes(12).toString('hex')}`,
      `client-secret-${randomBytes(12).toString('hex')}`,
    ];
    const encryptedClientSecret = (secret: string) =>
      encryptOauth2ClientSecret(secret, keyhold.tlsFetcherEncryptPublicKey);
    const { oauth2CredentialId } = await client.run<{ oauth2CredentialId: string }>(
      'ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL',
      {
        provider: 'OAUTH2_PROVIDER_X',
        clientId: 'secrets-app',
        encryptedClientSecret: await encryptedClientSecret(clientSecrets[0]!),
      },
    );
    await client.run('ACTIVITY_TYPE_UPDATE_OAUTH2_CREDENTIAL', {
      oauth2CredentialId,
      provider: 'OAUTH2_PROVIDER_X',
      clientId: 'secrets-app',
      encryptedClientSecret: await encryptedClientSecret(clientSecrets[1]!),
    });

    // An OAuth provider from a real id_token: its identity is stored, the token is not.
    const idToken = await issuer.idToken({ clientId: 'app', sub: 'root-at-op' });
    await client.run('ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2', {
      userId,
      oauthProviders: [{ providerName: 'OP', oidcToken: idToken }],
    });

    // A payment card (SET_PAYMENT_METHOD V1): only its last four digits and holder are kept.
    const card = { number: '4111111111111111', cvv: '739' };
    const paymentMethod = await client.run<{ lastFour: string }>(
      'ACTIVITY_TYPE_SET_PAYMENT_METHOD',
      {
        number: card.number,
        cvv: card.cvv,
        expiryMonth: '12',
        expiryYear: '2031',
        cardHolderName: 'Ada Lovelace',
        cardHolderEmail: 'ada@example.com',
      },
    );
    expect(paymentMethod.lastFour).toBe('1111');

    // The auth proxy's API key (ENABLE_AUTH_PROXY): stored sealed, never in the clear.
    const proxy = await client.run<{ userId: string; encryptedApiKey: string }>(
      'ACTIVITY_TYPE_ENABLE_AUTH_PROXY',
      {},
    );

    // The secrets, revealed with the master key from the sealed values in the store.
    const records = await keyhold.container.get<Store>(StoreId).transaction(async (tx) => ({
      wallets: await tx.wallets.list(organizationId),
      accounts: await tx.walletAccounts.list(organizationId, undefined, { limit: 1000 }),
      privateKeys: await tx.privateKeys.list(organizationId),
      oauth2Credentials: await tx.oauth2Credentials.list(organizationId),
      authProxy: await authProxySettingOf(tx, organizationId),
      proxyKeys: await tx.apiKeys.listByUser(organizationId, proxy.userId),
    }));
    const proxyKey = openAuthProxyApiKey(
      keyhold.container.get<SignerKey>(TlsFetcherEncryptKey),
      organizationId,
      records.authProxy,
    )!;
    // It is the real key: it gives the public key of the proxy user's API key.
    expect(bytesToHex(p256.getPublicKey(hexToBytes(proxyKey), true))).toBe(
      records.proxyKeys[0]!.publicKey,
    );
    expect(records.wallets.map((w) => w.mnemonicLength)).toEqual([12, 24, 12]);
    expect(records.accounts).toHaveLength(9);
    expect(records.privateKeys.map((k) => k.curve).sort()).toEqual([...CURVES].sort());
    const vault = new SoftwareKeyVault({ masterKey });
    const needles: Needle[] = [];
    for (const wallet of records.wallets) {
      const mnemonic = await vault.revealMnemonic(wallet.seed);
      expect(mnemonic.split(' ')).toHaveLength(wallet.mnemonicLength);
      needles.push(...mnemonicNeedles(`wallet "${wallet.walletName}"`, mnemonic));
    }
    for (const key of [...records.accounts, ...records.privateKeys]) {
      const secret = await vault.revealKey(key.key);
      // It is the real key: it gives the public key the record (and the client) has.
      expect(bytesToHex(publicKeyFromPrivateKey(key.curve, secret))).toBe(
        key.publicKey.replace(/^0x/, '').toLowerCase(),
      );
      const name =
        'path' in key ? `account ${key.path} (${key.curve})` : `private key ${key.curve}`;
      needles.push(...bytesNeedles(name, secret));
    }
    // Per mnemonic of n words: itself, 3 forms of each of its n-2 windows, 3 encodings each of
    // entropy and seed; 3 encodings per key. Two 12-word wallets, one 24-word, 12 keys.
    const perMnemonic = (n: number) => 1 + 3 * (n - 2) + 6;
    expect(needles.length).toBe(2 * perMnemonic(12) + perMnemonic(24) + 12 * 3);
    needles.push(
      ...codes.map((code, i) => ({ what: `one-time code ${i}`, text: code, anyCase: true })),
      { what: 'card number', text: card.number, anyCase: false },
      { what: 'card number, first twelve digits', text: card.number.slice(0, 12), anyCase: false },
      { what: 'card CVV', text: `"${card.cvv}"`, anyCase: false },
      ...clientSecrets.flatMap((secret, i) => [
        { what: `OAuth 2 client secret ${i}`, text: secret, anyCase: true },
        ...bytesNeedles(`OAuth 2 client secret ${i}`, new TextEncoder().encode(secret)),
      ]),
    );
    needles.push(...bytesNeedles('auth proxy API key', hexToBytes(proxyKey)));
    for (const secret of mailedSecrets) {
      expect(secret.key).toMatch(/^[0-9a-f]{64}$/);
      needles.push(...bytesNeedles(`${secret.what} private key`, Buffer.from(secret.key, 'hex')));
      if (secret.bundle) needles.push({ what: secret.what, text: secret.bundle, anyCase: false });
    }

    // Every row of every table.
    const dump = await dumpSchema(target);
    expect([...dump.keys()].sort()).toEqual(expect.arrayContaining([...KEYHOLD_TABLES].sort()));
    for (const table of [
      'wallets',
      'wallet_accounts',
      'private_keys',
      'activities',
      'otps',
      'invitations',
      'oauth2_credentials',
      'oauth_providers',
      'organization_documents',
    ]) {
      expect(dump.get(table)!.length, table).toBeGreaterThan(0);
    }
    const providers = new Map([['oauth_providers', dump.get('oauth_providers')!]]);
    expect(
      scan(providers, [
        { what: 'subject', text: 'root-at-op', anyCase: false },
        { what: 'id_token signature', text: idToken.split('.')[2]!, anyCase: false },
      ]),
    ).toEqual(['subject @ oauth_providers']);

    // The scanner finds what is there…
    expect(
      scan(dump, [
        { what: 'marker', text: marker, anyCase: false },
        ...bytesNeedles('decoy key', decoy).slice(0, 1),
      ]),
    ).toEqual([
      'marker @ activities',
      'decoy key (hex) @ activities',
      'marker @ wallets',
      'decoy key (hex) @ wallets',
    ]);
    const sealed = [
      ...records.wallets.map((w) => w.seed),
      ...records.accounts.map((a) => a.key),
      ...records.privateKeys.map((k) => k.key),
      ...records.oauth2Credentials.map((c) => c.sealedClientSecret),
      records.authProxy.sealedApiKey!,
    ];
    expect(
      scan(
        dump,
        sealed.map((text) => ({ what: 'sealed', text, anyCase: false })),
      ),
      // The proxy's sealed key is found twice: in its setting and as ENABLE's result.
    ).toHaveLength(sealed.length + 1);
    expect(
      scan(dump, [
        { what: 'account public key', text: records.accounts[0]!.publicKey, anyCase: true },
      ]),
    ).toContain('account public key @ wallet_accounts');

    // …and no plaintext secret anywhere.
    expect(scan(dump, needles)).toEqual([]);
    return {
      tables: dump.size,
      rows: [...dump.values()].reduce((n, r) => n + r.length, 0),
      needles: needles.length,
    };
  } finally {
    await keyhold.close();
    await issuer.close();
  }
}

const postgresUp = await postgresReachable();

describe('secrets at rest', () => {
  const disposals: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const dispose of disposals) await dispose();
  });

  it('PGlite: no table holds a plaintext mnemonic, seed or private key', async () => {
    const target = await pgliteTarget();
    disposals.push(target.dispose);
    console.log('secrets at rest (PGlite):', JSON.stringify(await secretsStaySealed(target)));
  }, 60_000);

  it.skipIf(!postgresUp)(
    'Postgres: no table holds a plaintext mnemonic, seed or private key',
    async () => {
      const target = await postgresTarget();
      disposals.push(target.dispose);
      console.log('secrets at rest (Postgres):', JSON.stringify(await secretsStaySealed(target)));
    },
    60_000,
  );
});
