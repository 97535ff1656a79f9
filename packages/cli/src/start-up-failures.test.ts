/**
 * `keyhold serve` start-up failures on a data directory (issue #17 "never hangs", issue #10.3
 * "files only Keyhold can read"): every failure exits with code 2 within a second of saying
 * why, names the flag and the fix, and releases the data directory for the next start; a
 * data directory others can open is refused, and what the server creates is private.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiKeyPair } from '@keyhold/server';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type KeyholdProcess,
  keyholdProcess,
  killKeyholdProcesses,
} from './__fixtures__/keyhold-process.js';

const tmp = mkdtempSync(join(tmpdir(), 'keyhold-start-'));

afterAll(() => {
  killKeyholdProcesses();
  rmSync(tmp, { recursive: true, force: true });
});

interface Run {
  child: KeyholdProcess['child'];
  stderr: () => string;
  firstLine: () => Promise<string>;
  /** The exit code, and how long after the last stderr output the process ended. */
  exit: () => Promise<{ code: number; afterMessageMs: number }>;
}

function serve(...args: string[]): Run {
  const run = keyholdProcess(['serve', ...args]);
  return {
    child: run.child,
    stderr: run.stderr,
    firstLine: run.firstLine,
    exit: async () => {
      const code = await run.exit();
      return { code, afterMessageMs: performance.now() - run.lastStderrAt() };
    },
  };
}

/** Starts on `dir` with a bootstrap key, waits for the listening line, stops it. */
async function startAndStop(dir: string, publicKey: string): Promise<string> {
  const run = serve('--data', dir, '--port', '0', '--bootstrap-api-public-key', publicKey);
  const listening = JSON.parse(await run.firstLine()) as { organizationId: string };
  run.child.kill('SIGTERM');
  expect((await run.exit()).code).toBe(0);
  return listening.organizationId;
}

function modesUnder(dir: string): Array<[string, number]> {
  const found: Array<[string, number]> = [[dir, statSync(dir).mode & 0o777]];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...modesUnder(path));
    else found.push([path, statSync(path).mode & 0o777]);
  }
  return found;
}

// Each test starts the server up to three times on an embedded database: minutes on a busy machine.
describe('keyhold serve --data: failures exit at once and release the directory', {
  timeout: 120_000,
}, () => {
  const dir = join(tmp, 'data');
  const owner = generateApiKeyPair();

  it('refuses an invalid bootstrap key before opening anything, naming the flag', async () => {
    const run = serve('--data', join(tmp, 'never-made'), '--bootstrap-api-public-key', '02abc');
    const { code, afterMessageMs } = await run.exit();
    expect(code).toBe(2);
    expect(run.stderr()).toContain('--bootstrap-api-public-key must be a compressed P-256');
    expect(run.stderr()).toContain('keyhold keygen');
    expect(afterMessageMs).toBeLessThan(1_000);
    expect(() => statSync(join(tmp, 'never-made'))).toThrow();
  });

  it('refuses another bootstrap key on existing data, says what to do, and frees the lock', async () => {
    const organizationId = await startAndStop(dir, owner.publicKey);
    const other = serve(
      '--data',
      dir,
      '--bootstrap-api-public-key',
      generateApiKeyPair().publicKey,
    );
    const { code, afterMessageMs } = await other.exit();
    expect(code).toBe(2);
    expect(other.stderr()).toContain(
      '--bootstrap-api-public-key: organization "Keyhold" already exists with other root credentials',
    );
    expect(other.stderr()).toContain('start without --bootstrap-api-public-key');
    expect(afterMessageMs).toBeLessThan(1_000);
    // The lock was released: the rightful key starts on the same directory.
    expect(await startAndStop(dir, owner.publicKey)).toBe(organizationId);
  });

  it('refuses a busy port, naming --port, and frees the lock', async () => {
    const busy: Server = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as { port: number };
    try {
      const run = serve('--data', dir, '--port', String(port));
      const { code, afterMessageMs } = await run.exit();
      expect(code).toBe(2);
      expect(run.stderr()).toContain(`--port ${port}: 127.0.0.1:${port} is already in use`);
      expect(afterMessageMs).toBeLessThan(1_000);
    } finally {
      busy.close();
    }
    await startAndStop(dir, owner.publicKey);
  });

  it('creates nothing that another user can read or write', () => {
    const open = modesUnder(dir).filter(([, mode]) => (mode & 0o077) !== 0);
    expect(open).toEqual([]);
  });
});

describe('keyhold serve --data: a directory others can open is refused', () => {
  it.each([0o755, 0o770, 0o707])(
    'mode %d (decimal): exit 2 with the chmod that fixes it',
    async (mode) => {
      const dir = join(tmp, `open-${mode.toString(8)}`);
      mkdirSync(dir);
      chmodSync(dir, mode);
      const run = serve('--data', dir);
      const { code } = await run.exit();
      expect(code).toBe(2);
      expect(run.stderr()).toContain(
        `--data ${dir} is open to other users (mode 0${mode.toString(8)})`,
      );
      expect(run.stderr()).toContain(`chmod 700 ${dir}`);
      // Nothing was written into it.
      expect(readdirSync(dir)).toEqual([]);
    },
  );
});
