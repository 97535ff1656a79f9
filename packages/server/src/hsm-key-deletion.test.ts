/**
 * DELETE_PRIVATE_KEYS on the PKCS#11 vault: a key born in the HSM is destroyed in the token once
 * the deletion commits, never when the activity fails, and a failing destroy leaves the
 * committed deletion standing (reported to the logger, without secrets).
 */
import type { KeyVault, SealedSecret } from '@keyhold/keys';
import { openPkcs11KeyVault, type Pkcs11KeyVault } from '@keyhold/vault-pkcs11';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSoftHsm,
  type SoftHsm,
  softHsmAvailable,
} from '../../../adapters/vault-pkcs11/src/__fixtures__/softhsm.js';
import { generateApiKeyPair } from './api-key-signer.js';
import { createKeyhold } from './keyhold.js';
import type { KeyholdClient } from './keyhold-client.js';
import type { Logger } from './logger.js';

const DIGEST = new Uint8Array(32).fill(7);

describe.skipIf(!softHsmAvailable())('DELETE_PRIVATE_KEYS destroys HSM keys', () => {
  let hsm: SoftHsm;
  let vault: Pkcs11KeyVault;
  /** What the server asked the vault to destroy, and what the vault answered. */
  const destroyed: { key: SealedSecret; result: boolean }[] = [];
  /** Makes the next destroyKey fail, as a token that went away would. */
  let failNextDestroy = false;
  const warnings: { message: string; fields?: Record<string, unknown> }[] = [];
  let client: KeyholdClient;

  beforeAll(async () => {
    hsm = createSoftHsm(['keyhold-delete']);
    vault = await openPkcs11KeyVault({
      modulePath: hsm.modulePath,
      tokenLabel: 'keyhold-delete',
      pin: hsm.tokens['keyhold-delete']!.pin,
    });
    // The real vault; only destroyKey is observed (and can be made to fail).
    const destroyKey = async (key: SealedSecret) => {
      if (failNextDestroy) {
        failNextDestroy = false;
        throw new Error('PKCS#11 destroy failed: CKR_DEVICE_REMOVED');
      }
      const result = await vault.destroyKey(key);
      destroyed.push({ key, result });
      return result;
    };
    const observed = new Proxy(vault, {
      get(target, property) {
        if (property === 'destroyKey') return destroyKey;
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as KeyVault;
    const logger: Logger = {
      info() {},
      error() {},
      warn: (message, fields) => warnings.push({ message, fields }),
    };
    const keyhold = createKeyhold({ logger, vault: observed });
    const apiKey = generateApiKeyPair();
    const { organizationId } = await keyhold.bootstrap({
      organizationName: 'HSM deletion',
      apiPublicKey: apiKey.publicKey,
    });
    client = keyhold.client({ organizationId, apiPrivateKey: apiKey.privateKey });
  });
  afterAll(async () => {
    await vault?.close();
    hsm?.cleanup();
  });

  async function newKey(privateKeyName: string) {
    const { privateKeys } = await client.run<{
      privateKeys: { privateKeyId: string; addresses: { address: string }[] }[];
    }>('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', {
      privateKeys: [
        {
          privateKeyName,
          curve: 'CURVE_SECP256K1',
          addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
          privateKeyTags: [],
        },
      ],
    });
    return privateKeys[0]!.privateKeyId;
  }

  const signStatus = async (signWith: string) =>
    (
      await client.submit('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', {
        signWith,
        payload: '11'.repeat(32),
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_NO_OP',
      })
    ).status;

  it('destroys the token objects after the deletion commits; the reference no longer signs', async () => {
    const privateKeyId = await newKey('doomed');
    expect(await signStatus(privateKeyId)).toBe('ACTIVITY_STATUS_COMPLETED');
    destroyed.length = 0;

    const activity = await client.submit('ACTIVITY_TYPE_DELETE_PRIVATE_KEYS', {
      privateKeyIds: [privateKeyId],
      deleteWithoutExport: true,
    });
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(destroyed).toHaveLength(1);
    expect(destroyed[0]!.key).toMatch(/^kp11\.key\.secp256k1\./);
    expect(destroyed[0]!.result).toBe(true);
    await expect(vault.sign(destroyed[0]!.key, 'CURVE_SECP256K1', DIGEST)).rejects.toThrow();
    expect(await vault.destroyKey(destroyed[0]!.key)).toBe(false); // nothing left to destroy
  });

  it('a deletion that fails destroys nothing: the key still signs', async () => {
    const privateKeyId = await newKey('kept');
    destroyed.length = 0;
    const unexported = await client.submit('ACTIVITY_TYPE_DELETE_PRIVATE_KEYS', {
      privateKeyIds: [privateKeyId],
    });
    expect(unexported.status).toBe('ACTIVITY_STATUS_FAILED');
    const withUnknown = await client.submit('ACTIVITY_TYPE_DELETE_PRIVATE_KEYS', {
      privateKeyIds: [privateKeyId, '00000000-0000-4000-8000-000000000000'],
      deleteWithoutExport: true,
    });
    expect(withUnknown.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(destroyed).toHaveLength(0);
    expect(await signStatus(privateKeyId)).toBe('ACTIVITY_STATUS_COMPLETED');
  });

  it('a destroy that fails leaves the committed deletion standing and is logged without secrets', async () => {
    const privateKeyId = await newKey('orphaned');
    warnings.length = 0;
    failNextDestroy = true;
    const activity = await client.submit('ACTIVITY_TYPE_DELETE_PRIVATE_KEYS', {
      privateKeyIds: [privateKeyId],
      deleteWithoutExport: true,
    });
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const { privateKeys } = await client.query<{ privateKeys: { privateKeyId: string }[] }>(
      'list_private_keys',
    );
    expect(privateKeys.map((k) => k.privateKeyId)).not.toContain(privateKeyId);
    expect(warnings).toEqual([
      {
        message: 'after-commit effect failed',
        fields: {
          effect: `destroy the vault key of private key ${privateKeyId}`,
          error: 'PKCS#11 destroy failed: CKR_DEVICE_REMOVED',
        },
      },
    ]);
  });

  it('wallet-derived keys have nothing in the token to destroy', async () => {
    const { walletId } = await client.run<{ walletId: string }>('ACTIVITY_TYPE_CREATE_WALLET', {
      walletName: 'w',
      accounts: [
        {
          curve: 'CURVE_SECP256K1',
          pathFormat: 'PATH_FORMAT_BIP32',
          path: "m/44'/60'/0'/0/0",
          addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
        },
      ],
    });
    destroyed.length = 0;
    const activity = await client.submit('ACTIVITY_TYPE_DELETE_WALLETS', {
      walletIds: [walletId],
      deleteWithoutExport: true,
    });
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(destroyed).toHaveLength(0);
  });
});
