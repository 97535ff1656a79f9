/**
 * `keyhold master-key rotate`, `keyhold backup` and `keyhold restore` on a data directory,
 * through the CLI as an operator runs it and the published `@turnkey/sdk-server`:
 * - a rotation killed inside its transaction leaves the data on the old key (the server starts
 *   on it and signs); one killed after the commit but before `master.key` is replaced is
 *   finished by the next start; a whole one re-seals every seed and key (the stored values
 *   change), and the wallet and private key still sign while the published keys stay the same;
 * - backup, wipe, restore: the organization, its wallet and private key are back and sign; a
 *   restore with another key is refused.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiKeyPair } from '@keyhold/server';
import { createPgliteStore } from '@keyhold/store-postgres';
import { Turnkey } from '@turnkey/sdk-server';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { keyholdProcess, killKeyholdProcesses } from './__fixtures__/keyhold-process.js';

vi.setConfig({ testTimeout: 120_000 });

const tmp = mkdtempSync(join(tmpdir(), 'keyhold-master-key-'));
afterAll(() => {
  killKeyholdProcesses();
  rmSync(tmp, { recursive: true, force: true });
});

const root = generateApiKeyPair();
const data = join(tmp, 'data');
const masterKeyOf = (dir: string) => readFileSync(join(dir, 'master.key'), 'utf8').trim();

/** Runs a command to its end: stdout lines, stderr, exit code and signal. */
async function keyhold(args: string[], env: Record<string, string> = {}) {
  const run = keyholdProcess(args, env);
  const lines: string[] = [];
  for (let l = await run.firstLine(); l !== undefined; l = await run.firstLine()) lines.push(l);
  const code = await run.exit();
  return { lines, code, signal: run.child.signalCode, stderr: run.stderr() };
}

/** Starts `serve --data` and hands its listening line and an SDK client to `work`. */
async function serving<T>(
  dir: string,
  work: (line: Record<string, string>, sdk: ReturnType<Turnkey['apiClient']>) => Promise<T>,
  bootstrap = false,
): Promise<T> {
  const run = keyholdProcess([
    'serve',
    '--data',
    dir,
    '--port',
    '0',
    '--crypto-threads',
    '0',
    ...(bootstrap ? ['--bootstrap-api-public-key', root.publicKey] : []),
  ]);
  const first = await run.firstLine();
  if (first === undefined) throw new Error(`serve did not start: ${run.stderr()}`);
  const line = JSON.parse(first);
  try {
    const sdk = new Turnkey({
      apiBaseUrl: line.url,
      apiPublicKey: root.publicKey,
      apiPrivateKey: root.privateKey,
      defaultOrganizationId: organizationId || line.organizationId,
      activityPoller: { intervalMs: 20, numRetries: 5 },
    }).apiClient();
    return await work(line, sdk);
  } finally {
    run.child.kill('SIGTERM');
    expect(await run.exit()).toBe(0);
  }
}

let organizationId = '';
let address = '';
let privateKeyId = '';
let published: Record<string, string> = {};

/** Both keys sign through the API (opening their sealed values under the current key). */
async function bothSign(sdk: ReturnType<Turnkey['apiClient']>): Promise<void> {
  const payload = 'ab'.repeat(32);
  for (const signWith of [address, privateKeyId]) {
    const signed = await sdk.signRawPayload({
      signWith,
      payload,
      encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    });
    expect(signed.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(signed.r).toMatch(/^[0-9a-fA-F]{64}$/);
  }
}

const publishedKeys = (line: Record<string, string>) => ({
  signerPublicKey: line.signerPublicKey!,
  notarizerPublicKey: line.notarizerPublicKey!,
  tlsFetcherSignPublicKey: line.tlsFetcherSignPublicKey!,
  tlsFetcherEncryptPublicKey: line.tlsFetcherEncryptPublicKey!,
  onRampEncryptionPublicKey: line.onRampEncryptionPublicKey!,
});

/** The sealed values of the data directory's secrets, read with the server stopped. */
async function sealedValues(dir: string): Promise<string[]> {
  const store = await createPgliteStore({ dataDir: join(dir, 'pgdata') });
  try {
    const rows = await store.sqlTransaction((sql) =>
      sql.query<{ v: string }>(
        `SELECT seed AS v FROM wallets UNION ALL SELECT key FROM wallet_accounts
         UNION ALL SELECT key FROM private_keys ORDER BY 1`,
      ),
    );
    return rows.map((r) => r.v);
  } finally {
    await store.close();
  }
}

/** The sealed values of `vault_state`. */
async function vaultState(dir: string): Promise<string[]> {
  const store = await createPgliteStore({ dataDir: join(dir, 'pgdata') });
  try {
    const rows = await store.sqlTransaction((sql) =>
      sql.query<{ sealed: string }>('SELECT sealed FROM vault_state'),
    );
    return rows.map((r) => r.sealed);
  } finally {
    await store.close();
  }
}

let firstMasterKey = '';

describe('keyhold master-key rotate', () => {
  it('sets up an organization with a wallet and a private key that sign', async () => {
    await serving(
      data,
      async (line, sdk) => {
        organizationId = line.organizationId!;
        firstMasterKey = masterKeyOf(data);
        published = publishedKeys(line);
        const wallet = await sdk.createWallet({
          walletName: 'treasury',
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
        const keys = await sdk.createPrivateKeys({
          privateKeys: [
            {
              privateKeyName: 'hot',
              curve: 'CURVE_SECP256K1',
              addressFormats: [],
              privateKeyTags: [],
            },
          ],
        });
        privateKeyId = keys.privateKeys[0]!.privateKeyId!;
        await bothSign(sdk);
      },
      true,
    );
  });

  it('killed inside its transaction, leaves the data on the old key, which starts and signs', async () => {
    const before = masterKeyOf(data);
    const sealed = await sealedValues(data);
    const run = await keyhold(['master-key', 'rotate', '--data', data], {
      KEYHOLD_TEST_ROTATE_FAULT: 'before-commit',
    });
    expect(run.signal).toBe('SIGKILL');
    expect(masterKeyOf(data)).toBe(before);
    expect(await sealedValues(data)).toEqual(sealed);
    await serving(data, async (line, sdk) => {
      expect(publishedKeys(line)).toEqual(published);
      await bothSign(sdk);
    });
    expect(masterKeyOf(data)).toBe(before);
  });

  it('killed after its commit, is finished by the next start', async () => {
    const before = masterKeyOf(data);
    const run = await keyhold(['master-key', 'rotate', '--data', data], {
      KEYHOLD_TEST_ROTATE_FAULT: 'after-commit',
    });
    expect(run.signal).toBe('SIGKILL');
    expect(masterKeyOf(data)).toBe(before); // master.key.next not yet renamed
    await serving(data, async (line, sdk) => {
      expect(publishedKeys(line)).toEqual(published);
      await bothSign(sdk);
    });
    expect(masterKeyOf(data)).not.toBe(before);
  });

  it('re-seals every seed and key under a new key; they still sign, the published keys stay', async () => {
    const before = masterKeyOf(data);
    const sealed = await sealedValues(data);
    const run = await keyhold(['master-key', 'rotate', '--data', data]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.lines[0]!)).toEqual({ seeds: 1, keys: 2, skipped: 0 });
    expect(masterKeyOf(data)).not.toBe(before);
    const after = await sealedValues(data);
    expect(after).toHaveLength(3);
    for (const value of after) expect(sealed).not.toContain(value);
    // The derivation root (the first master key) is stored sealed, never in the clear.
    const stored = await vaultState(data);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatch(/^ksw1\./);
    for (const key of [firstMasterKey, before]) {
      for (const encoded of [
        key,
        Buffer.from(key, 'hex').toString('base64'),
        Buffer.from(key, 'hex').toString('base64url'),
      ]) {
        expect(stored[0]!.toLowerCase()).not.toContain(encoded.toLowerCase());
      }
    }
    await serving(data, async (line, sdk) => {
      expect(publishedKeys(line)).toEqual(published);
      await bothSign(sdk);
    });
  });

  it('refuses the wrong current key and changes nothing', async () => {
    const before = masterKeyOf(data);
    const run = await keyhold(['master-key', 'rotate', '--data', data], {
      KEYHOLD_MASTER_KEY: 'ab'.repeat(32),
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/KEYHOLD_MASTER_KEY does not match/);
    expect(masterKeyOf(data)).toBe(before);
  });
});

describe('keyhold backup / restore', () => {
  it('round-trips: backup, wipe, restore; the organization, wallet and key sign again', async () => {
    const file = join(tmp, 'keyhold.backup.tgz');
    const key = masterKeyOf(data);
    const backup = await keyhold(['backup', '--data', data, '--out', file]);
    expect(backup.code, backup.stderr).toBe(0);
    expect(readFileSync(file).includes(Buffer.from(key))).toBe(false);
    rmSync(data, { recursive: true, force: true });

    const wrong = await keyhold(['restore', '--data', data, '--from', file], {
      KEYHOLD_MASTER_KEY: 'cd'.repeat(32),
    });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/does not open/);

    const restored = await keyhold(['restore', '--data', data, '--from', file], {
      KEYHOLD_MASTER_KEY: key,
    });
    expect(restored.code, restored.stderr).toBe(0);
    expect(masterKeyOf(data)).toBe(key);
    const whoami = await keyhold(['whoami', '--data', data]);
    expect(JSON.parse(whoami.lines[0]!).organizationId).toBe(organizationId);
    await serving(data, async (line, sdk) => {
      expect(publishedKeys(line)).toEqual(published);
      const { wallets } = await sdk.getWallets({});
      expect(wallets.map((w) => w.walletName)).toEqual(['treasury']);
      await bothSign(sdk);
    });
  });

  it('refuses a restore over existing data, and a backup of a running server', async () => {
    const file = join(tmp, 'again.tgz');
    const over = await keyhold(['restore', '--data', data, '--from', file], {
      KEYHOLD_MASTER_KEY: masterKeyOf(data),
    });
    expect(over.code).toBe(2);
    expect(over.stderr).toMatch(/already holds a database/);
    await serving(data, async () => {
      const busy = await keyhold(['backup', '--data', data, '--out', file]);
      expect(busy.code).toBe(2);
      expect(busy.stderr).toMatch(/in use by process/);
    });
  });
});
