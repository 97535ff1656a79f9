import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiKeyStamper, generateApiKeyPair } from '../api-key-signer.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const children: ChildProcessWithoutNullStreams[] = [];

function keyhold(...args: string[]) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=keyhold-source', 'packages/server/src/cli/main.ts', ...args],
    { cwd: root, env: { ...process.env, KEYHOLD_MASTER_KEY: undefined } },
  );
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    child,
    stderr: () => stderr,
    firstLine: async () => (await lines.next()).value as string,
    exit: async () => (child.exitCode ?? (await once(child, 'exit'))[0]) as number,
  };
}

afterAll(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('keyhold serve', () => {
  it('prints one listening line with the bootstrap ids, serves stamped requests, and exits 0 on SIGTERM', async () => {
    const key = generateApiKeyPair();
    const run = keyhold('serve', '--port', '0', '--bootstrap-api-public-key', key.publicKey);
    const line = JSON.parse(await run.firstLine());
    expect(Object.keys(line)).toEqual([
      'event',
      'url',
      'organizationId',
      'userId',
      'signerPublicKey',
    ]);
    expect(line.event).toBe('listening');
    expect(line.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(line.signerPublicKey).toMatch(/^04[0-9a-f]{128}$/);

    const body = JSON.stringify({ organizationId: line.organizationId });
    const res = await fetch(`${line.url}/public/v1/query/whoami`, {
      method: 'POST',
      body,
      headers: { 'x-stamp': createApiKeyStamper(key.privateKey).stamp(body) },
    });
    expect(await res.json()).toMatchObject({
      organizationId: line.organizationId,
      userId: line.userId,
    });

    run.child.kill('SIGTERM');
    expect(await run.exit()).toBe(0);
    expect(run.stderr()).not.toContain(key.privateKey);
  });

  it('prints no ids without a bootstrap key', async () => {
    const run = keyhold('serve', '--port', '0', '--memory');
    const line = JSON.parse(await run.firstLine());
    expect(Object.keys(line)).toEqual(['event', 'url', 'signerPublicKey']);
    run.child.kill('SIGTERM');
    expect(await run.exit()).toBe(0);
  });

  it.concurrent.each([
    [['--data', '/tmp/x'], 'not available yet'],
    [['--vault', 'pkcs11'], 'not available yet'],
    [['--http', 'koa'], 'not available yet'],
    [['--env', 'production'], 'KEYHOLD_MASTER_KEY'],
    [['--port', '70000'], '--port'],
  ])('refuses %j and exits non-zero', async (args, message) => {
    const run = keyhold('serve', ...args);
    expect(await run.exit()).not.toBe(0);
    expect(run.stderr()).toContain(message);
  });
});

describe('keyhold keygen', () => {
  it('prints a P-256 key pair whose halves match', async () => {
    const run = keyhold('keygen');
    const { apiPublicKey, apiPrivateKey } = JSON.parse(await run.firstLine());
    expect(createApiKeyStamper(apiPrivateKey).publicKey).toBe(apiPublicKey);
    expect(await run.exit()).toBe(0);
  });
});
