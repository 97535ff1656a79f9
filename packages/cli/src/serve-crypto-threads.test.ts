/**
 * `keyhold serve --crypto-threads N`: key crypto on N worker threads (default one per core), 0
 * inline; the pool is closed on SIGTERM, so the process exits; a bad N is a usage error.
 */

import { createApiKeyStamper, generateApiKeyPair } from '@keyhold/server';
import { afterAll, describe, expect, it } from 'vitest';
import { keyholdProcess, killKeyholdProcesses } from './__fixtures__/keyhold-process.js';

afterAll(killKeyholdProcesses);

const serve = (...args: string[]) => keyholdProcess(['serve', ...args]);

/** The JSON log lines on stderr with this `message`. */
const logged = (stderr: string, message: string) =>
  stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.message === message);

describe('keyhold serve --crypto-threads', () => {
  it.each([
    ['2', 'piscina', 2],
    ['0', 'inline', 0],
  ] as const)(
    '--crypto-threads %s: %s; a Taproot wallet is created, and SIGTERM exits 0',
    async (flag, kind, threads) => {
      const key = generateApiKeyPair();
      const run = serve(
        '--port',
        '0',
        '--memory',
        '--crypto-threads',
        flag,
        '--bootstrap-api-public-key',
        key.publicKey,
      );
      const line = JSON.parse(await run.firstLine());
      const text = JSON.stringify({
        type: 'ACTIVITY_TYPE_CREATE_WALLET',
        timestampMs: String(Date.now()),
        organizationId: line.organizationId,
        parameters: {
          walletName: 'taproot',
          accounts: [0, 1, 2].map((i) => ({
            curve: 'CURVE_SECP256K1',
            pathFormat: 'PATH_FORMAT_BIP32',
            path: `m/86'/0'/0'/0/${i}`,
            addressFormat: 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR',
          })),
          mnemonicLength: 12,
        },
      });
      const res = await fetch(`${line.url}/public/v1/submit/create_wallet`, {
        method: 'POST',
        body: text,
        headers: { 'x-stamp': createApiKeyStamper(key.privateKey).stamp(text) },
      });
      const { activity } = (await res.json()) as {
        activity: { status: string; result: { createWalletResult: { addresses: string[] } } };
      };
      expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(activity.result.createWalletResult.addresses).toHaveLength(3);
      for (const address of activity.result.createWalletResult.addresses) {
        expect(address).toMatch(/^bc1p[02-9ac-hj-np-z]{58}$/);
      }
      expect(logged(run.stderr(), 'crypto work pool')).toEqual([
        expect.objectContaining({ kind, threads }),
      ]);
      run.child.kill('SIGTERM');
      expect(await run.exit()).toBe(0); // live worker threads would keep it running
    },
    60_000,
  );

  it.each(['-1', 'two', '1000'])(
    'refuses --crypto-threads "%s" before opening anything',
    async (flag) => {
      const run = serve('--port', '0', '--memory', `--crypto-threads=${flag}`);
      expect(await run.exit()).toBe(2);
      expect(run.stderr()).toContain(`--crypto-threads must be 0–256, got "${flag}"`);
    },
    30_000,
  );
});
