/**
 * `keyhold master-key rotate --postgres URL`: the current key from KEYHOLD_MASTER_KEY, the new
 * one from KEYHOLD_NEW_MASTER_KEY. Killed inside its transaction, the old key still starts the
 * server and signs; done, the old key is refused at start (naming why) and the new one signs
 * with the same published keys.
 */
import { randomBytes } from 'node:crypto';
import { generateApiKeyPair } from '@keyhold/server';
import { Turnkey } from '@turnkey/sdk-server';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  dropSchemas,
  POSTGRES_URL,
  postgresReachable,
  testSchema,
} from '../../../adapters/store-postgres/src/testing/targets.js';
import { keyholdProcess, killKeyholdProcesses } from './__fixtures__/keyhold-process.js';

vi.setConfig({ testTimeout: 120_000 });

const schema = testSchema('rotate');
const url = `${POSTGRES_URL}?schema=${schema}`;
afterAll(async () => {
  killKeyholdProcesses();
  await dropSchemas([schema]);
});

const root = generateApiKeyPair();
const oldKey = randomBytes(32).toString('hex');
const newKey = randomBytes(32).toString('hex');
let organizationId = '';
let address = '';
let published = '';

async function serve(
  masterKey: string,
  work?: (sdk: ReturnType<Turnkey['apiClient']>) => Promise<void>,
) {
  const run = keyholdProcess(
    [
      'serve',
      '--postgres',
      url,
      '--port',
      '0',
      '--crypto-threads',
      '0',
      ...(organizationId ? [] : ['--bootstrap-api-public-key', root.publicKey]),
    ],
    { KEYHOLD_MASTER_KEY: masterKey },
  );
  const first = await run.firstLine();
  if (first === undefined) return { started: false, code: await run.exit(), stderr: run.stderr() };
  const line = JSON.parse(first);
  organizationId ||= line.organizationId;
  try {
    const sdk = new Turnkey({
      apiBaseUrl: line.url,
      apiPublicKey: root.publicKey,
      apiPrivateKey: root.privateKey,
      defaultOrganizationId: organizationId,
      activityPoller: { intervalMs: 20, numRetries: 5 },
    }).apiClient();
    await work?.(sdk);
  } finally {
    run.child.kill('SIGTERM');
    await run.exit();
  }
  return { started: true, published: `${line.signerPublicKey}/${line.notarizerPublicKey}` };
}

const signs = async (sdk: ReturnType<Turnkey['apiClient']>) => {
  const signed = await sdk.signRawPayload({
    signWith: address,
    payload: 'cd'.repeat(32),
    encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
    hashFunction: 'HASH_FUNCTION_NO_OP',
  });
  expect(signed.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
};

async function rotate(env: Record<string, string>) {
  const run = keyholdProcess(['master-key', 'rotate', '--postgres', url], env);
  const lines: string[] = [];
  for (let l = await run.firstLine(); l !== undefined; l = await run.firstLine()) lines.push(l);
  const code = await run.exit();
  return { lines, code, signal: run.child.signalCode, stderr: run.stderr() };
}

describe.runIf(await postgresReachable())('keyhold master-key rotate --postgres', () => {
  it('rotates in one transaction; killed, the old key still works; done, only the new one', async () => {
    const first = await serve(oldKey, async (sdk) => {
      const wallet = await sdk.createWallet({
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
      address = wallet.addresses[0]!;
      await signs(sdk);
    });
    published = first.published!;

    const missing = await rotate({ KEYHOLD_MASTER_KEY: oldKey });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/KEYHOLD_NEW_MASTER_KEY/);

    const killed = await rotate({
      KEYHOLD_MASTER_KEY: oldKey,
      KEYHOLD_NEW_MASTER_KEY: newKey,
      KEYHOLD_TEST_ROTATE_FAULT: 'before-commit',
    });
    expect(killed.signal).toBe('SIGKILL');
    expect((await serve(oldKey, signs)).published).toBe(published);

    const done = await rotate({ KEYHOLD_MASTER_KEY: oldKey, KEYHOLD_NEW_MASTER_KEY: newKey });
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.lines[0]!)).toEqual({ seeds: 1, keys: 1, skipped: 0 });

    const stale = await serve(oldKey);
    expect(stale.started).toBe(false);
    expect(stale.code).toBe(2);
    expect(stale.stderr).toMatch(/KEYHOLD_MASTER_KEY: the master key does not open this data/);
    expect((await serve(newKey, signs)).published).toBe(published);
  });
});
