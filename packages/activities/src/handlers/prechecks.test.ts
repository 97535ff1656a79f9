/**
 * What the handlers' prechecks refuse from the parameters alone (the request answers 400 and
 * nothing is stored): one case per handler that has a precheck of its own, no store or HTTP.
 */
import type { IntentOf, ServedActivityType } from '@keyhold/protocol';
import { describe, expect, it } from 'vitest';
import { handlerContext } from './__fixtures__/handler-context.js';
import { createUsersHandler } from './create-users.js';
import { exportWalletHandler, importPrivateKeyHandler } from './export-import.js';
import { createPrivateKeysHandler } from './private-keys.js';
import { signTransactionHandler } from './sign-transaction.js';
import { createSubOrganizationHandler } from './sub-organizations.js';
import { createWalletHandler } from './wallets.js';
import { createWebhookEndpointHandler } from './webhook-endpoints.js';

const settings = { allowPrivateWebhookDestinations: false };
const definitionOf = (type: ServedActivityType) => handlerContext({ type }).definition;
const refusal = (key: string) => expect.objectContaining({ name: 'KeyholdError', key });

/** The P-256 generator point, compressed: a valid public key. */
const P256_KEY = '036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296';
const account = {
  curve: 'CURVE_ED25519',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/501'/0'/0'",
  addressFormat: 'ADDRESS_FORMAT_SOLANA',
} as const;

describe('handler prechecks', () => {
  it('CREATE_USERS refuses one public key given twice, across users', () => {
    const apiKeys = [{ apiKeyName: 'k', publicKey: P256_KEY }];
    const p: IntentOf<'ACTIVITY_TYPE_CREATE_USERS_V2'> = {
      users: [
        { userName: 'a', apiKeys },
        { userName: 'b', apiKeys },
      ],
    };
    expect(() =>
      createUsersHandler.precheck?.(p, definitionOf('ACTIVITY_TYPE_CREATE_USERS_V2'), settings),
    ).toThrow(refusal('API_KEY_ALREADY_EXISTS'));
  });

  it('CREATE_WALLET refuses a path repeated in the request', () => {
    const p: IntentOf<'ACTIVITY_TYPE_CREATE_WALLET'> = {
      walletName: 'w',
      accounts: [account, account],
    };
    expect(() =>
      createWalletHandler.precheck?.(p, definitionOf('ACTIVITY_TYPE_CREATE_WALLET'), settings),
    ).toThrow(refusal('INVALID_PATH'));
  });

  it('CREATE_PRIVATE_KEYS refuses an address format its curve cannot make', () => {
    const p: IntentOf<'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2'> = {
      privateKeys: [
        {
          privateKeyName: 'k',
          curve: 'CURVE_ED25519',
          addressFormats: ['ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR'],
        },
      ],
    };
    const definition = definitionOf('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2');
    expect(() => createPrivateKeysHandler.precheck?.(p, definition, settings)).toThrow(
      refusal('INVALID_ADDRESS_FORMAT'),
    );
  });

  it('CREATE_SUB_ORGANIZATION refuses a threshold above its root users, and checks the wallet', () => {
    const definition = definitionOf('ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7');
    const base = { subOrganizationName: 's', rootUsers: [{ userName: 'r' }] };
    expect(() =>
      createSubOrganizationHandler.precheck?.(
        { ...base, rootQuorumThreshold: 2 },
        definition,
        settings,
      ),
    ).toThrow(refusal('INVALID_QUORUM_THRESHOLD'));
    expect(() =>
      createSubOrganizationHandler.precheck?.(
        {
          ...base,
          rootQuorumThreshold: 1,
          wallet: { walletName: 'w', accounts: [account, account] },
        },
        definition,
        settings,
      ),
    ).toThrow(refusal('INVALID_PATH'));
  });

  it('SIGN_TRANSACTION refuses bytes that do not decode, before any key is looked up', () => {
    const p: IntentOf<'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'> = {
      signWith: 'anything',
      type: 'TRANSACTION_TYPE_ETHEREUM',
      unsignedTransaction: 'zz',
    };
    expect(() =>
      signTransactionHandler.precheck?.(
        p,
        definitionOf('ACTIVITY_TYPE_SIGN_TRANSACTION_V2'),
        settings,
      ),
    ).toThrow(refusal('INVALID_TRANSACTION'));
  });

  it('EXPORT_WALLET refuses a mnemonic language other than English', () => {
    const p: IntentOf<'ACTIVITY_TYPE_EXPORT_WALLET'> = {
      walletId: 'w',
      targetPublicKey: P256_KEY,
      language: 'MNEMONIC_LANGUAGE_SPANISH',
    };
    expect(() =>
      exportWalletHandler.precheck?.(p, definitionOf('ACTIVITY_TYPE_EXPORT_WALLET'), settings),
    ).toThrow(refusal('REQUEST_INVALID'));
  });

  it('IMPORT_PRIVATE_KEY refuses an address format its curve cannot make', () => {
    const p: IntentOf<'ACTIVITY_TYPE_IMPORT_PRIVATE_KEY'> = {
      userId: 'u',
      privateKeyName: 'k',
      encryptedBundle: '{}',
      curve: 'CURVE_P256',
      addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
    };
    expect(() =>
      importPrivateKeyHandler.precheck?.(
        p,
        definitionOf('ACTIVITY_TYPE_IMPORT_PRIVATE_KEY'),
        settings,
      ),
    ).toThrow(refusal('INVALID_ADDRESS_FORMAT'));
  });

  it('CREATE_WEBHOOK_ENDPOINT refuses a private URL unless allowed, and filters that are not JSON', () => {
    const definition = definitionOf('ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT');
    const local = { url: 'https://127.0.0.1/hook', name: 'n' };
    expect(() => createWebhookEndpointHandler.precheck?.(local, definition, settings)).toThrow(
      refusal('INVALID_WEBHOOK_URL'),
    );
    expect(() =>
      createWebhookEndpointHandler.precheck?.(local, definition, {
        allowPrivateWebhookDestinations: true,
      }),
    ).not.toThrow();
    const badFilters: IntentOf<'ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT'> = {
      url: 'https://hooks.example.com/k',
      name: 'n',
      subscriptions: [{ eventType: 'ACTIVITY_UPDATES', filtersJson: '{' }],
    };
    expect(() => createWebhookEndpointHandler.precheck?.(badFilters, definition, settings)).toThrow(
      expect.objectContaining({
        key: 'INVALID_WEBHOOK_FILTERS',
        context: expect.objectContaining({ field: '/parameters/subscriptions/0/filtersJson' }),
      }),
    );
  });
});
