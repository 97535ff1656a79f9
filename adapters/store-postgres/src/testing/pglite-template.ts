/**
 * A pristine PGlite cluster for tests, made once and cached in the temp directory: a new
 * PGlite runs initdb (5–10 s), loading the cached dump takes about 1.5 s. The cache is
 * keyed by the installed PGlite build; it holds an empty cluster (no Keyhold schema).
 * @module
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

function cachePath(): string {
  const entry = realpathSync(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  const { size, mtimeMs } = statSync(entry);
  const key = createHash('sha256').update(`${entry}:${size}:${mtimeMs}`).digest('hex').slice(0, 16);
  return join(tmpdir(), `keyhold-pglite-cluster-${key}.tar.gz`);
}

let cached: Promise<Blob> | undefined;

/** The dump of an empty cluster, made on first use. */
export function pgliteTemplate(): Promise<Blob> {
  cached ??= (async () => {
    const path = cachePath();
    if (existsSync(path)) return new Blob([readFileSync(path)]);
    const db = await PGlite.create();
    const dump = await db.dumpDataDir('gzip');
    await db.close();
    const bytes = Buffer.from(await dump.arrayBuffer());
    // Write then rename: a concurrent test process never reads half a file.
    const partial = `${path}.${process.pid}.partial`;
    writeFileSync(partial, bytes);
    renameSync(partial, path);
    return new Blob([bytes]);
  })();
  return cached;
}

/** A PGlite (in memory, or in `dataDir`) started from the cached cluster. */
export async function templatePglite(dataDir?: string): Promise<PGlite> {
  const loadDataDir = await pgliteTemplate();
  return dataDir === undefined
    ? PGlite.create({ loadDataDir })
    : PGlite.create(dataDir, { loadDataDir });
}
