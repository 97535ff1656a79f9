import type { RunningServer } from '@keyhold/cli';
import {
  decryptExportBundle,
  encryptPrivateKeyToBundle,
  encryptWalletToBundle,
  generateP256KeyPair,
} from '@turnkey/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SdkClient, startTurnkeyServer } from './__fixtures__/turnkey-server.js';

const ABANDON =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const ETH = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;
const SOL = {
  curve: 'CURVE_ED25519',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/501'/0'/0'",
  addressFormat: 'ADDRESS_FORMAT_SOLANA',
} as const;

let server: RunningServer;
let client: SdkClient;
let organizationId: string;
let userId: string;

beforeAll(async () => {
  ({ server, client, organizationId, userId } = await startTurnkeyServer());
});
afterAll(() => server.close());

describe('export through @turnkey/crypto', () => {
  it('exports a wallet whose mnemonic derives the same addresses, and marks it exported', async () => {
    const { walletId, addresses } = await client.createWallet({
      walletName: 'exp',
      accounts: [ETH, SOL],
    });
    const target = generateP256KeyPair();
    const { exportBundle } = await client.exportWallet({
      walletId,
      targetPublicKey: target.publicKeyUncompressed,
    });
    const mnemonic = await decryptExportBundle({
      exportBundle,
      embeddedKey: target.privateKey,
      organizationId,
      returnMnemonic: true,
      dangerouslyOverrideSignerPublicKey: server.keyhold.signerPublicKey,
    });
    expect(mnemonic.split(' ')).toHaveLength(12);
    const { walletId: again, addresses: reimported } = await importMnemonic(mnemonic, 'copy');
    expect(again).not.toBe(walletId);
    expect(reimported).toEqual(addresses);
    const { wallet } = await client.getWallet({ walletId });
    expect(wallet.exported).toBe(true);
  });

  it('refuses to decrypt for another organization (the client checks)', async () => {
    const { walletId } = await client.createWallet({ walletName: 'exp2', accounts: [] });
    const target = generateP256KeyPair();
    const { exportBundle } = await client.exportWallet({
      walletId,
      targetPublicKey: target.publicKeyUncompressed,
    });
    await expect(
      decryptExportBundle({
        exportBundle,
        embeddedKey: target.privateKey,
        organizationId: '00000000-0000-4000-8000-000000000000',
        returnMnemonic: true,
        dangerouslyOverrideSignerPublicKey: server.keyhold.signerPublicKey,
      }),
    ).rejects.toThrow();
  });

  it('exports a private key that signs like the original', async () => {
    const { privateKeys } = await client.createPrivateKeys({
      privateKeys: [
        {
          privateKeyName: 'k',
          curve: 'CURVE_SECP256K1',
          privateKeyTags: [],
          addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
        },
      ],
    });
    const { privateKeyId, addresses } = privateKeys[0]!;
    const target = generateP256KeyPair();
    const { exportBundle } = await client.exportPrivateKey({
      privateKeyId: privateKeyId!,
      targetPublicKey: target.publicKeyUncompressed,
    });
    const hex = await decryptExportBundle({
      exportBundle,
      embeddedKey: target.privateKey,
      organizationId,
      returnMnemonic: false,
      dangerouslyOverrideSignerPublicKey: server.keyhold.signerPublicKey,
    });
    const { privateKeyToAddress } = await import('viem/accounts');
    expect(privateKeyToAddress(`0x${hex}`)).toBe(addresses![0]!.address);
  });
});

async function importMnemonic(mnemonic: string, walletName: string) {
  const { importBundle } = await client.initImportWallet({ userId });
  const encryptedBundle = await encryptWalletToBundle({
    mnemonic,
    importBundle,
    userId,
    organizationId,
    dangerouslyOverrideSignerPublicKey: server.keyhold.signerPublicKey,
  });
  return client.importWallet({ userId, walletName, encryptedBundle, accounts: [ETH, SOL] });
}

describe('import through @turnkey/crypto', () => {
  it('imports the BIP39 test mnemonic and reproduces the known addresses', async () => {
    const { addresses } = await importMnemonic(ABANDON, 'imported');
    expect(addresses[0]).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    expect(addresses[1]).toBe('HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk');
    const { wallets } = await client.getWallets();
    expect(wallets.find((w) => w.walletName === 'imported')?.imported).toBe(true);
  });

  it('imports a private key', async () => {
    const { importBundle } = await client.initImportPrivateKey({ userId });
    const privateKey = '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
    const encryptedBundle = await encryptPrivateKeyToBundle({
      privateKey,
      keyFormat: 'HEXADECIMAL',
      importBundle,
      userId,
      organizationId,
      dangerouslyOverrideSignerPublicKey: server.keyhold.signerPublicKey,
    });
    const result = await client.importPrivateKey({
      userId,
      privateKeyName: 'imported',
      encryptedBundle,
      curve: 'CURVE_SECP256K1',
      addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
    });
    const { privateKeyToAddress } = await import('viem/accounts');
    expect(result.addresses![0]!.address).toBe(privateKeyToAddress(`0x${privateKey}`));
  });

  it('fails an import whose bundle was sealed to another user’s target, leaving nothing behind', async () => {
    const { userIds } = await client.createUsers({
      users: [
        {
          userName: 'other importer',
          apiKeys: [],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    const otherUserId = userIds[0]!;
    const { importBundle } = await client.initImportWallet({ userId: otherUserId });
    const encryptedBundle = await encryptWalletToBundle({
      mnemonic: ABANDON,
      importBundle,
      userId: otherUserId,
      organizationId,
      dangerouslyOverrideSignerPublicKey: server.keyhold.signerPublicKey,
    });
    // Sealed to the other user's target: this user's import cannot open it.
    const { activity } = await client.importWallet({
      userId,
      walletName: 'stolen bundle',
      encryptedBundle,
      accounts: [ETH],
    });
    expect(activity.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(activity.failure?.details?.[0]).toMatchObject({
      field: 'encryptedBundle',
      reason: expect.stringContaining('encrypted to another target'),
    });
    const { wallets } = await client.getWallets();
    expect(wallets.some((w) => w.walletName === 'stolen bundle')).toBe(false);
    // The user it was sealed to can import it.
    const imported = await client.importWallet({
      userId: otherUserId,
      walletName: 'rightful',
      encryptedBundle,
      accounts: [ETH],
    });
    expect(imported.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(imported.addresses[0]).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
  });

  it('fails an import whose bundle was sealed to another target', async () => {
    const other = generateP256KeyPair();
    const { activity } = await client.importWallet({
      userId,
      walletName: 'bad',
      encryptedBundle: JSON.stringify({
        encappedPublic: other.publicKeyUncompressed,
        ciphertext: '00'.repeat(40),
      }),
      accounts: [ETH],
    });
    expect(activity.status).toBe('ACTIVITY_STATUS_FAILED');
    const { wallets } = await client.getWallets();
    expect(wallets.some((w) => w.walletName === 'bad')).toBe(false);
  });
});
