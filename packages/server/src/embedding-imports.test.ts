/**
 * Embedding Keyhold (`import '@keyhold/server'`, then `createKeyhold()`) loads no database
 * driver, no HTTP framework, no Redis client and no PKCS#11 binding (issue #11.4). A child
 * process records every module resolved while importing the package. The `keyhold` command,
 * `startServer` and their store, HTTP, vault, rate-limit and worker-pool selection are
 * `@keyhold/cli`, so installing `@keyhold/server` does not install Postgres, PGlite, Express,
 * Koa, Redis, PKCS#11 or the conformance suite either.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const recorder = fileURLToPath(new URL('./__fixtures__/modules-loaded-by.mjs', import.meta.url));

function modulesLoadedBy(specifier: string): string[] {
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', '--conditions=keyhold-source', recorder, specifier],
    { cwd: root, encoding: 'utf8' },
  );
  return JSON.parse(out.trim().split('\n').at(-1)!) as string[];
}

const HEAVY = [
  '/node_modules/pg/',
  '/node_modules/@electric-sql/pglite/',
  '/node_modules/koa/',
  '/node_modules/express/',
  '/node_modules/ioredis/',
  '/node_modules/pkcs11js/',
  // @keyhold/frames bundles its pages only when asked to (bundleFrameScripts).
  '/node_modules/esbuild/',
  '/adapters/store-postgres/',
  '/adapters/http-koa/',
  '/adapters/http-express/',
  '/adapters/ratelimit-redis/',
  '/adapters/vault-pkcs11/',
];

describe('embedding @keyhold/server', () => {
  it('loads no database driver, HTTP framework, Redis client or PKCS#11 binding', () => {
    const loaded = modulesLoadedBy('@keyhold/server');
    // The recorder works: the package and its domain were seen.
    expect(loaded.some((url) => url.includes('/packages/server/src/keyhold.ts'))).toBe(true);
    expect(loaded.some((url) => url.includes('/packages/activities/'))).toBe(true);
    expect(loaded.filter((url) => HEAVY.some((part) => url.includes(part)))).toEqual([]);
  }, 60_000);

  it('loads nothing of @keyhold/cli', () => {
    const loaded = modulesLoadedBy('@keyhold/server');
    expect(loaded.filter((url) => url.includes('/packages/cli/'))).toEqual([]);
  }, 60_000);

  it('depends on none of the heavy adapters: @keyhold/cli does', () => {
    const manifest = (dir: string) =>
      JSON.parse(readFileSync(`${root}/${dir}/package.json`, 'utf8')) as {
        dependencies: Record<string, string>;
        bin?: Record<string, string>;
      };
    const server = manifest('packages/server');
    const cli = manifest('packages/cli');
    const heavy = [
      '@keyhold/store-postgres',
      '@keyhold/ratelimit-redis',
      '@keyhold/vault-pkcs11',
      '@keyhold/worker-pool-piscina',
      '@keyhold/conformance',
      '@keyhold/http-express',
      '@keyhold/http-koa',
      'express',
      'koa',
      'pg',
      '@electric-sql/pglite',
      'ioredis',
      'pkcs11js',
    ];
    expect(Object.keys(server.dependencies).filter((name) => heavy.includes(name))).toEqual([]);
    expect(server.bin).toBeUndefined();
    expect(cli.bin).toEqual({ keyhold: './dist/main.js' });
    expect(cli.dependencies).toMatchObject({
      '@keyhold/server': 'workspace:*',
      '@keyhold/store-postgres': 'workspace:*',
      '@keyhold/vault-pkcs11': 'workspace:*',
      '@keyhold/http-express': 'workspace:*',
      '@keyhold/http-koa': 'workspace:*',
    });
  });

  it('does load them for a server (the recorder can see them)', () => {
    const loaded = modulesLoadedBy('@keyhold/store-postgres');
    expect(loaded.some((url) => url.includes('/node_modules/pg/') || url.includes('/pg/lib'))).toBe(
      true,
    );
  }, 60_000);
});
