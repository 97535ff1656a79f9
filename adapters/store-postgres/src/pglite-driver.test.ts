/**
 * PGlite in a data directory: state survives close and reopen, and a kill -9; the store
 * refuses directories that hold something else, are damaged, or are already open. (The
 * migration runner's refusals — newer schema, changed migration, foreign or incomplete
 * schema — are tested on both drivers in migrations.test.ts.)
 */
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgliteStore } from './pglite-driver.js';
import { StoreOpenError, type StoreOpenFailure } from './store-open-error.js';
import { templatePglite } from './testing/pglite-template.js';
import { activity, organization, privateKey, wallet } from './testing/records.js';

let root: string;
let template: string;
let copies = 0;

/** A fresh data directory: a copy of a migrated template (initdb takes seconds). */
async function freshDir(): Promise<string> {
  const dir = join(root, `copy-${++copies}`);
  await cp(template, dir, { recursive: true });
  return dir;
}

async function refusal(promise: Promise<unknown>): Promise<StoreOpenFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreOpenError);
  return (error as StoreOpenError).reason;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'keyhold-pglite-'));
  template = join(root, 'template');
  // A cluster from the cached dump (initdb is slow), then migrated by the store.
  await (await templatePglite(template)).close();
  const store = await createPgliteStore({ dataDir: template });
  await store.close();
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('PGlite data directory', () => {
  it('keeps what was committed across close and reopen; is locked while open', async () => {
    const dir = await freshDir();
    const org = organization();
    const o = org.organizationId;
    const w = wallet(o);
    const p = privateKey(o, { privateKeyTags: ['a', 'b'] });
    const a = activity(o, { result: { walletId: w.walletId } });
    const first = await createPgliteStore({ dataDir: dir });
    await first.transaction(async (tx) => {
      await tx.organizations.insert(org);
      await tx.wallets.insert(w);
      await tx.privateKeys.insert(p);
      await tx.activities.insert(a);
    });
    // Open elsewhere: a second store (here, or in another process) is refused.
    expect(await refusal(createPgliteStore({ dataDir: dir }))).toBe('in-use');
    await first.close();
    expect(await readdir(dir)).not.toContain('keyhold.lock');

    // A lock left by a process that no longer runs (a crash) does not block a restart.
    await writeFile(join(dir, 'keyhold.lock'), '2147483646\n');
    const second = await createPgliteStore({ dataDir: dir });
    const back = await second.transaction(async (tx) => ({
      org: await tx.organizations.get(o),
      wallets: await tx.wallets.list(o),
      key: await tx.privateKeys.findByAddress(o, p.addresses[0]!.address),
      activity: await tx.activities.findByFingerprint(a.fingerprint),
    }));
    expect(back).toEqual({ org, wallets: [w], key: p, activity: a });
    await second.close();

    // Reopening applied no migration twice.
    const db = await PGlite.create(dir);
    const rows = await db.query('SELECT version FROM keyhold_migrations');
    await db.close();
    expect(rows.rows).toEqual([
      { version: 1 },
      { version: 2 },
      { version: 3 },
      { version: 4 },
      { version: 5 },
      { version: 6 },
      { version: 7 },
      { version: 8 },
      { version: 9 },
      { version: 10 },
      { version: 11 },
      { version: 12 },
      { version: 13 },
      { version: 14 },
      { version: 15 },
      { version: 16 },
      { version: 17 },
      { version: 18 },
      { version: 19 },
      { version: 20 },
      { version: 22 },
      { version: 23 },
      { version: 24 },
    ]);
  });

  it('keeps every committed transaction when the process is killed (SIGKILL)', async () => {
    const dir = await freshDir();
    const repo = fileURLToPath(new URL('../../../', import.meta.url));
    const child = spawn(
      process.execPath,
      [
        '--conditions=keyhold-source',
        '--import',
        'tsx',
        fileURLToPath(new URL('./testing/crash-writer.ts', import.meta.url)),
        dir,
      ],
      { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const committed: string[] = [];
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    await new Promise<void>((resolve, reject) => {
      let buffer = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        const lines = buffer.split('\n');
        buffer = lines.pop()!;
        for (const line of lines) {
          if (line.startsWith('committed ')) committed.push(line.slice('committed '.length));
        }
        if (committed.length >= 25) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.on('exit', () => reject(new Error(`writer exited early: ${stderr}`)));
    }).catch((error) => {
      if (committed.length < 25) throw error;
    });
    await new Promise((resolve) => child.once('close', resolve));

    const store = await createPgliteStore({ dataDir: dir });
    const listed = await store.transaction((tx) =>
      tx.activities.list('crash-org', {}, { limit: 1000 }),
    );
    await store.close();
    const ids = new Set(listed.map((a) => a.id));
    for (const id of committed) expect(ids.has(id), `committed ${id} is missing`).toBe(true);
    // Nothing twice, and at most the one transaction in flight beyond what was reported.
    expect(ids.size).toBe(listed.length);
    expect(listed.length - committed.length).toBeLessThanOrEqual(1);
  }, 60_000);

  it('refuses a directory of foreign files, and leaves it untouched', async () => {
    const dir = join(root, 'foreign');
    await mkdir(dir);
    await writeFile(join(dir, 'notes.txt'), 'mine');
    expect(await refusal(createPgliteStore({ dataDir: dir }))).toBe('foreign');
    expect(await readdir(dir)).toEqual(['notes.txt']);
  });

  it('refuses a path that is a file', async () => {
    const file = join(root, 'a-file');
    await writeFile(file, 'x');
    expect(await refusal(createPgliteStore({ dataDir: file }))).toBe('foreign');
  });

  it('refuses a damaged data directory with a clear message', async () => {
    const dir = await freshDir();
    await writeFile(join(dir, 'global', 'pg_control'), Buffer.alloc(8192, 7));
    const error = await createPgliteStore({ dataDir: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreOpenError);
    expect((error as StoreOpenError).reason).toBe('corrupt');
    expect((error as Error).message).toContain(dir);
    // The failed open released the directory's lock.
    expect(await readdir(dir)).not.toContain('keyhold.lock');
  });
});
