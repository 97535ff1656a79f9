/**
 * Lifecycle through the published client: DISABLE_PRIVATE_KEY, DELETE_PRIVATE_KEYS,
 * DELETE_WALLETS and DELETE_WALLET_ACCOUNTS with the deleteWithoutExport rules (a wallet
 * account is exported by EXPORT_WALLET of its wallet or EXPORT_WALLET_ACCOUNT of itself).
 */

import type { RunningServer } from '@keyhold/cli';
import { decryptExportBundle, generateP256KeyPair } from '@turnkey/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ethereumAccountAt,
  type SdkClient,
  startTurnkeyServer,
} from './__fixtures__/turnkey-server.js';
import type { KeyholdClient } from './keyhold-client.js';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

let server: RunningServer;
let client: SdkClient;
/** The embedded client, for DISABLE_PRIVATE_KEY (which @turnkey/sdk-server lacks). */
let embedded: KeyholdClient;

beforeAll(async () => {
  ({ server, client, embedded } = await startTurnkeyServer());
});
afterAll(() => server.close());

/** Signs a digest; answers the activity status and failure message. */
async function sign(signWith: string) {
  const { activity } = await client.signRawPayload({
    signWith,
    payload: '11'.repeat(32),
    encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
    hashFunction: 'HASH_FUNCTION_NO_OP',
  });
  return { status: activity.status, message: activity.failure?.message };
}

async function newWallet(walletName: string, accounts = 2) {
  const { walletId, addresses } = await client.createWallet({
    walletName,
    accounts: Array.from({ length: accounts }, (_, i) => ethereumAccountAt(i)),
  });
  const { accounts: listed } = await client.getWalletAccounts({ walletId });
  return { walletId, addresses, accountIds: listed.map((a) => a.walletAccountId) };
}

async function newKey(privateKeyName: string) {
  const { privateKeys } = await client.createPrivateKeys({
    privateKeys: [
      {
        privateKeyName,
        curve: 'CURVE_SECP256K1',
        addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
        privateKeyTags: [],
      },
    ],
  });
  const created = privateKeys[0]!;
  return { privateKeyId: created.privateKeyId!, address: created.addresses![0]!.address! };
}

const walletIds = async () => (await client.getWallets()).wallets.map((w) => w.walletId);
const privateKeyIds = async () =>
  (await client.getPrivateKeys()).privateKeys.map((k) => k.privateKeyId);
const allAccountIds = async () =>
  (await client.getWalletAccounts({ walletId: undefined as unknown as string })).accounts.map(
    (a) => a.walletAccountId,
  );

describe('DELETE_WALLETS', () => {
  it('refuses an unexported wallet, deletes it once exported; its accounts vanish and stop signing', async () => {
    const { walletId, addresses, accountIds } = await newWallet('to-delete');
    const refused = await client.deleteWallets({ walletIds: [walletId] });
    expect(refused.activity.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(refused.activity.failure?.message).toMatch(/^wallet has not been exported/);
    expect(await walletIds()).toContain(walletId);

    await client.exportWallet({
      walletId,
      targetPublicKey: generateP256KeyPair().publicKeyUncompressed,
    });
    const deleted = await client.deleteWallets({ walletIds: [walletId] });
    expect(deleted.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(deleted.walletIds).toEqual([walletId]);
    expect(await walletIds()).not.toContain(walletId);
    const remaining = await allAccountIds();
    for (const id of accountIds) expect(remaining).not.toContain(id);
    await expect(client.getWallet({ walletId })).rejects.toThrow();
    expect((await sign(addresses[0]!)).status).toBe('ACTIVITY_STATUS_FAILED');
  });

  it('deletes unexported wallets with deleteWithoutExport; a batch with an unknown id changes nothing', async () => {
    const a = await newWallet('a', 1);
    const b = await newWallet('b', 1);
    const batch = await client.deleteWallets({
      walletIds: [a.walletId, UNKNOWN_ID],
      deleteWithoutExport: true,
    });
    expect(batch.activity.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(batch.activity.failure?.message).toBe('wallet not found');
    expect(await walletIds()).toEqual(expect.arrayContaining([a.walletId, b.walletId]));
    expect((await sign(a.addresses[0]!)).status).toBe('ACTIVITY_STATUS_COMPLETED');

    const deleted = await client.deleteWallets({
      walletIds: [a.walletId, b.walletId],
      deleteWithoutExport: true,
    });
    expect(deleted.walletIds).toEqual([a.walletId, b.walletId]);
    const left = await walletIds();
    expect(left).not.toContain(a.walletId);
    expect(left).not.toContain(b.walletId);
  });
});

describe('DELETE_WALLET_ACCOUNTS', () => {
  it('refuses accounts of an unexported wallet, deletes them with deleteWithoutExport', async () => {
    const { walletId, addresses, accountIds } = await newWallet('accounts');
    const refused = await client.deleteWalletAccounts({ walletAccountIds: [accountIds[0]!] });
    expect(refused.activity.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(refused.activity.failure?.message).toBe('wallet account has not been exported');

    const deleted = await client.deleteWalletAccounts({
      walletAccountIds: [accountIds[0]!],
      deleteWithoutExport: true,
    });
    expect(deleted.walletAccountIds).toEqual([accountIds[0]]);
    const { accounts } = await client.getWalletAccounts({ walletId });
    expect(accounts.map((a) => a.walletAccountId)).toEqual([accountIds[1]]);
    expect((await sign(addresses[0]!)).status).toBe('ACTIVITY_STATUS_FAILED');
    expect((await sign(addresses[1]!)).status).toBe('ACTIVITY_STATUS_COMPLETED');
  });

  it('deletes accounts of an exported wallet without the flag', async () => {
    const { walletId, accountIds } = await newWallet('exported');
    await client.exportWallet({
      walletId,
      targetPublicKey: generateP256KeyPair().publicKeyUncompressed,
    });
    const deleted = await client.deleteWalletAccounts({ walletAccountIds: accountIds });
    expect(deleted.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect((await client.getWalletAccounts({ walletId })).accounts).toEqual([]);
    // The wallet itself stays.
    expect(await walletIds()).toContain(walletId);
  });

  it('deletes an account exported on its own without the flag; its unexported sibling is refused', async () => {
    const { walletId, addresses } = await newWallet('one-account-exported');
    const listed = (await client.getWalletAccounts({ walletId })).accounts;
    const idOf = (address: string) => listed.find((a) => a.address === address)!.walletAccountId;
    const [exportedId, plainId] = [idOf(addresses[0]!), idOf(addresses[1]!)];

    const target = generateP256KeyPair();
    const exported = await client.exportWalletAccount({
      address: addresses[0]!,
      targetPublicKey: target.publicKeyUncompressed,
    });
    expect(exported.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(exported.address).toBe(addresses[0]);
    // The bundle holds this account's key.
    const hex = await decryptExportBundle({
      exportBundle: exported.exportBundle,
      embeddedKey: target.privateKey,
      organizationId: server.organizationId!,
      returnMnemonic: false,
      dangerouslyOverrideSignerPublicKey: server.keyhold.signerPublicKey,
    });
    const { privateKeyToAddress } = await import('viem/accounts');
    expect(privateKeyToAddress(`0x${hex}`)).toBe(addresses[0]);
    // Exporting one account does not export the wallet.
    expect((await client.getWallet({ walletId })).wallet.exported).toBe(false);

    const refused = await client.deleteWalletAccounts({ walletAccountIds: [plainId] });
    expect(refused.activity.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(refused.activity.failure?.message).toBe('wallet account has not been exported');
    // A batch with both: the unexported one refuses it all, nothing is deleted.
    const mixed = await client.deleteWalletAccounts({ walletAccountIds: [exportedId, plainId] });
    expect(mixed.activity.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(mixed.activity.failure?.message).toBe('wallet account has not been exported');
    const ids = async () =>
      (await client.getWalletAccounts({ walletId })).accounts.map((a) => a.walletAccountId);
    expect(await ids()).toEqual([exportedId, plainId]);

    const deleted = await client.deleteWalletAccounts({ walletAccountIds: [exportedId] });
    expect(deleted.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(deleted.walletAccountIds).toEqual([exportedId]);
    expect(await ids()).toEqual([plainId]);
    expect((await sign(addresses[0]!)).status).toBe('ACTIVITY_STATUS_FAILED');
    expect((await sign(addresses[1]!)).status).toBe('ACTIVITY_STATUS_COMPLETED');
    // The wallet still needs its own export (or deleteWithoutExport) to go.
    const wallet = await client.deleteWallets({ walletIds: [walletId] });
    expect(wallet.activity.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(wallet.activity.failure?.message).toMatch(/^wallet has not been exported/);
  });

  it('refuses a non-UUID id (400) and an id outside the organization; a bad batch changes nothing', async () => {
    const { walletId, accountIds } = await newWallet('bad-ids');
    await expect(
      client.deleteWalletAccounts({ walletAccountIds: ['not-a-uuid'], deleteWithoutExport: true }),
    ).rejects.toThrow('invalid wallet account UUID');

    const batch = await client.deleteWalletAccounts({
      walletAccountIds: [accountIds[0]!, UNKNOWN_ID],
      deleteWithoutExport: true,
    });
    expect(batch.activity.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(batch.activity.failure?.message).toBe('wallet account not part of your organization');
    const { accounts } = await client.getWalletAccounts({ walletId });
    expect(accounts.map((a) => a.walletAccountId)).toEqual(accountIds);
  });
});

describe('DISABLE_PRIVATE_KEY and DELETE_PRIVATE_KEYS', () => {
  it('a disabled key still lists but refuses to sign', async () => {
    const key = await newKey('to-disable');
    const address = key.address;
    expect((await sign(address)).status).toBe('ACTIVITY_STATUS_COMPLETED');
    const disabled = await embedded.submit('ACTIVITY_TYPE_DISABLE_PRIVATE_KEY', {
      privateKeyId: key.privateKeyId,
    });
    expect(disabled.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(disabled.result).toEqual({
      disablePrivateKeyResult: { privateKeyId: key.privateKeyId },
    });
    expect(await sign(address)).toEqual({
      status: 'ACTIVITY_STATUS_FAILED',
      message: 'private key is disabled',
    });
    expect(await privateKeyIds()).toContain(key.privateKeyId);

    const unknown = await embedded.submit('ACTIVITY_TYPE_DISABLE_PRIVATE_KEY', {
      privateKeyId: UNKNOWN_ID,
    });
    expect(unknown.failure?.message).toBe('private key not found');
  });

  it('refuses an unexported key, deletes it once exported or with deleteWithoutExport', async () => {
    const exported = await newKey('exported');
    const plain = await newKey('plain');
    const refused = await client.deletePrivateKeys({ privateKeyIds: [plain.privateKeyId] });
    expect(refused.activity.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(refused.activity.failure?.message).toMatch(/^private key has not been exported/);

    await client.exportPrivateKey({
      privateKeyId: exported.privateKeyId,
      targetPublicKey: generateP256KeyPair().publicKeyUncompressed,
    });
    // One unexported key in the batch: nothing is deleted.
    const mixed = await client.deletePrivateKeys({
      privateKeyIds: [exported.privateKeyId, plain.privateKeyId],
    });
    expect(mixed.activity.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(await privateKeyIds()).toEqual(
      expect.arrayContaining([exported.privateKeyId, plain.privateKeyId]),
    );

    const first = await client.deletePrivateKeys({ privateKeyIds: [exported.privateKeyId] });
    expect(first.privateKeyIds).toEqual([exported.privateKeyId]);
    const second = await client.deletePrivateKeys({
      privateKeyIds: [plain.privateKeyId],
      deleteWithoutExport: true,
    });
    expect(second.privateKeyIds).toEqual([plain.privateKeyId]);
    const left = await privateKeyIds();
    expect(left).not.toContain(exported.privateKeyId);
    expect(left).not.toContain(plain.privateKeyId);
    await expect(client.getPrivateKey({ privateKeyId: plain.privateKeyId })).rejects.toThrow();
    expect((await sign(plain.address)).status).toBe('ACTIVITY_STATUS_FAILED');
    expect((await sign(plain.privateKeyId)).status).toBe('ACTIVITY_STATUS_FAILED');
  });
});
