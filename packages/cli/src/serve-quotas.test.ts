/**
 * Quotas through a real process and the published `@turnkey/sdk-server` client. `keyhold serve
 * --signing-quota free-tier` behaves like the hosted free tier: 25 signatures a month, then the
 * spec's over-quota message (with `--quota-contact`); `--resource-limits` (or its environment
 * variable) refuses a wallet past its limit with the same message; a bad value of either is a
 * usage error that names the flag.
 */
import { generateApiKeyPair } from '@keyhold/server';
import { DEFAULT_ETHEREUM_ACCOUNTS } from '@turnkey/sdk-server';
import { afterAll, describe, expect, it } from 'vitest';
import { rejection, sdkClient } from '../../server/src/__fixtures__/turnkey-server.js';
import {
  keyholdProcess,
  keyholdServe,
  killKeyholdProcesses,
  listeningLine,
} from './__fixtures__/keyhold-process.js';

/** Production wants a master key; development takes one as well. */
const MASTER_KEY = { KEYHOLD_MASTER_KEY: '11'.repeat(32) };
afterAll(killKeyholdProcesses);

describe('keyhold serve --signing-quota', () => {
  it('free-tier: 25 signatures a month, then the over-quota message', async () => {
    const key = generateApiKeyPair();
    const line = await listeningLine(
      keyholdServe(key, ['--signing-quota', 'free-tier', '--quota-contact', 'ops@example.com'], {
        env: MASTER_KEY,
      }),
    );
    const client = sdkClient(line.url, line.organizationId, key);
    const { addresses } = await client.createWallet({
      walletName: 'w',
      accounts: DEFAULT_ETHEREUM_ACCOUNTS,
    });
    const sign = () =>
      client.signRawPayload({
        signWith: addresses[0]!,
        payload: `0x${'22'.repeat(32)}`,
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_NO_OP',
      });
    for (let i = 0; i < 25; i++) await sign();
    const over = await rejection(sign());
    expect(over.message).toContain(
      'this organization cannot execute activities because it is over its allotted quota. Please reach out to the team (ops@example.com) for more information.',
    );
  }, 60_000);

  it('a bad value is a usage error naming the flag', async () => {
    const run = keyholdProcess(['serve', '--memory', '--signing-quota', 'lots']);
    expect(await run.exit()).toBe(2);
    expect(run.stderr()).toContain(
      '--signing-quota must be a number of signatures a month or free-tier',
    );
  });
});

describe('keyhold serve --resource-limits', () => {
  it('from KEYHOLD_RESOURCE_LIMITS: a wallet past the limit is refused with the over-quota message', async () => {
    const key = generateApiKeyPair();
    const line = await listeningLine(
      keyholdServe(key, [], {
        env: {
          ...MASTER_KEY,
          KEYHOLD_RESOURCE_LIMITS: 'wallets=1, walletAccounts=5',
          KEYHOLD_QUOTA_CONTACT: 'ops@example.com',
        },
      }),
    );
    const client = sdkClient(line.url, line.organizationId, key);
    await client.createWallet({ walletName: 'one', accounts: DEFAULT_ETHEREUM_ACCOUNTS });
    const over = await rejection(
      client.createWallet({ walletName: 'two', accounts: DEFAULT_ETHEREUM_ACCOUNTS }),
    );
    expect(over.message).toContain(
      'this organization cannot execute activities because it is over its allotted quota. Please reach out to the team (ops@example.com) for more information.',
    );
    expect((await client.getWallets({})).wallets.map((w) => w.walletName)).toEqual(['one']);
  }, 60_000);

  it.each([
    [
      'wallet=1',
      'NAME one of users, wallets, walletAccounts, privateKeys, policies, subOrganizations; got "wallet=1"',
    ],
    ['wallets=ten', 'wallets must be a whole number, got "ten"'],
    ['wallets=1,wallets=2', 'wallets is given twice'],
  ])('%s is a usage error naming the flag', async (value, message) => {
    const run = keyholdProcess(['serve', '--memory', '--resource-limits', value]);
    expect(await run.exit()).toBe(2);
    expect(run.stderr()).toContain('--resource-limits');
    expect(run.stderr()).toContain(message);
  });
});
