/**
 * Quotas through a real process and the published `@turnkey/sdk-server` client. `keyhold serve
 * --signing-quota free-tier` behaves like the hosted free tier: 25 signatures a month, then the
 * spec's over-quota message (with `--quota-contact`); `--resource-limits` (or its environment
 * variable) refuses a wallet past its limit with the same message; a bad value of either is a
 * usage error that names the flag.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { generateApiKeyPair } from '@keyhold/server';
import { afterAll, describe, expect, it } from 'vitest';
import { rejection, sdkClient } from '../../server/src/__fixtures__/turnkey-server.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const children: ChildProcessWithoutNullStreams[] = [];
const CLI = ['--import', 'tsx', '--conditions=keyhold-source', 'packages/cli/src/main.ts', 'serve'];
afterAll(async () => {
  for (const child of children) {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  }
});

describe('keyhold serve --signing-quota', () => {
  it('free-tier: 25 signatures a month, then the over-quota message', async () => {
    const key = generateApiKeyPair();
    const child = spawn(
      process.execPath,
      [
        ...CLI,
        '--port',
        '0',
        '--memory',
        '--bootstrap-api-public-key',
        key.publicKey,
        '--signing-quota',
        'free-tier',
        '--quota-contact',
        'ops@example.com',
      ],
      { cwd: root, env: { ...process.env, KEYHOLD_MASTER_KEY: '11'.repeat(32) } },
    );
    children.push(child);
    child.stderr.resume();
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const line = JSON.parse((await lines.next()).value as string) as {
      url: string;
      organizationId: string;
    };
    const client = sdkClient(line.url, line.organizationId, key);
    const { addresses } = await client.createWallet({
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

  it('a bad value is a usage error naming the flag', () => {
    const run = spawnSync(process.execPath, [...CLI, '--memory', '--signing-quota', 'lots'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(
      '--signing-quota must be a number of signatures a month or free-tier',
    );
  });
});

describe('keyhold serve --resource-limits', () => {
  it('from KEYHOLD_RESOURCE_LIMITS: a wallet past the limit is refused with the over-quota message', async () => {
    const key = generateApiKeyPair();
    const child = spawn(
      process.execPath,
      [...CLI, '--port', '0', '--memory', '--bootstrap-api-public-key', key.publicKey],
      {
        cwd: root,
        env: {
          ...process.env,
          KEYHOLD_MASTER_KEY: '11'.repeat(32),
          KEYHOLD_RESOURCE_LIMITS: 'wallets=1, walletAccounts=5',
          KEYHOLD_QUOTA_CONTACT: 'ops@example.com',
        },
      },
    );
    children.push(child);
    child.stderr.resume();
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const line = JSON.parse((await lines.next()).value as string) as {
      url: string;
      organizationId: string;
    };
    const client = sdkClient(line.url, line.organizationId, key);
    const account = {
      curve: 'CURVE_SECP256K1',
      pathFormat: 'PATH_FORMAT_BIP32',
      path: "m/44'/60'/0'/0/0",
      addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
    } as const;
    await client.createWallet({ walletName: 'one', accounts: [account] });
    const over = await rejection(client.createWallet({ walletName: 'two', accounts: [account] }));
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
  ])('%s is a usage error naming the flag', (value, message) => {
    const run = spawnSync(process.execPath, [...CLI, '--memory', '--resource-limits', value], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--resource-limits');
    expect(run.stderr).toContain(message);
  });
});
