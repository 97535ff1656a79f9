import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisRateLimiter } from '@keyhold/ratelimit-redis';
import { createApiKeyStamper, generateApiKeyPair } from '@keyhold/server';
import { p256 } from '@noble/curves/nist.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { verifySessionJwtSignature } from '@turnkey/crypto';
import { Turnkey } from '@turnkey/sdk-server';
import { afterAll, describe, expect, it } from 'vitest';
import { keyholdProcess, killKeyholdProcesses } from './__fixtures__/keyhold-process.js';

const tmp = mkdtempSync(join(tmpdir(), 'keyhold-cli-'));

function keyhold(...args: string[]) {
  return keyholdProcess(args);
}

function keyholdWith(env: Record<string, string>, ...args: string[]) {
  return keyholdProcess(args, env);
}

afterAll(() => {
  killKeyholdProcesses();
  rmSync(tmp, { recursive: true, force: true });
});

describe('keyhold serve', () => {
  it('prints one listening line with the bootstrap ids, serves stamped requests, and exits 0 on SIGTERM', async () => {
    const key = generateApiKeyPair();
    const run = keyhold(
      'serve',
      '--port',
      '0',
      '--memory',
      '--bootstrap-api-public-key',
      key.publicKey,
    );
    const line = JSON.parse(await run.firstLine());
    expect(Object.keys(line)).toEqual([
      'event',
      'url',
      'organizationId',
      'userId',
      'signerPublicKey',
      'notarizerPublicKey',
      'tlsFetcherSignPublicKey',
      'tlsFetcherEncryptPublicKey',
      'authProxyUrl',
      // Development serves the export and import frames to loopback pages.
      'exportFrameUrl',
      'importFrameUrl',
    ]);
    expect(line.event).toBe('listening');
    expect(line.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(line.signerPublicKey).toMatch(/^04[0-9a-f]{128}$/);
    expect(line.notarizerPublicKey).toMatch(/^04[0-9a-f]{128}$/);
    expect(line.tlsFetcherSignPublicKey).toMatch(/^04[0-9a-f]{128}$/);
    expect(line.tlsFetcherEncryptPublicKey).toMatch(/^04[0-9a-f]{128}$/);
    expect(line.authProxyUrl).toBe(`${line.url}/auth-proxy`);
    // The discovery document publishes the same keys.
    const keys = await (await fetch(`${line.url}/keyhold/v1/public_keys`)).json();
    expect(keys).toMatchObject({
      signerPublicKey: line.signerPublicKey,
      notarizerPublicKey: line.notarizerPublicKey,
      tlsFetcherSignPublicKey: line.tlsFetcherSignPublicKey,
      tlsFetcherEncryptPublicKey: line.tlsFetcherEncryptPublicKey,
    });

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
    // Operators get an access line per request and Prometheus metrics by default.
    const requestId = res.headers.get('x-request-id');
    const metrics = await fetch(`${line.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('keyhold_http_request_duration_seconds_bucket');

    run.child.kill('SIGTERM');
    expect(await run.exit()).toBe(0);
    expect(run.stderr()).not.toContain(key.privateKey);
    const access = run
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l))
      .find((l) => l.message === 'request' && l.requestId === requestId);
    expect(access).toMatchObject({
      level: 'info',
      method: 'POST',
      path: '/public/v1/query/whoami',
      status: 200,
      organizationId: line.organizationId,
    });
  });

  it('takes every flag from KEYHOLD_* variables and a --config file, flags first', async () => {
    const key = generateApiKeyPair();
    const config = join(tmp, 'keyhold.json');
    writeFileSync(config, JSON.stringify({ 'bootstrap-org-name': 'FromFile', port: '1' }));
    const run = keyholdWith(
      {
        KEYHOLD_CONFIG: config,
        KEYHOLD_MEMORY: 'true',
        KEYHOLD_PORT: '0',
        KEYHOLD_BOOTSTRAP_API_PUBLIC_KEY: key.publicKey,
        KEYHOLD_BOOTSTRAP_ORG_NAME: 'FromEnv',
        KEYHOLD_LOG_LEVEL: 'error',
      },
      'serve',
      '--bootstrap-org-name',
      'FromFlag',
    );
    const line = JSON.parse(await run.firstLine());
    const body = JSON.stringify({ organizationId: line.organizationId });
    const res = await fetch(`${line.url}/public/v1/query/whoami`, {
      method: 'POST',
      body,
      headers: { 'x-stamp': createApiKeyStamper(key.privateKey).stamp(body) },
    });
    expect(await res.json()).toMatchObject({ organizationName: 'FromFlag' });
    run.child.kill('SIGTERM');
    expect(await run.exit()).toBe(0);
    expect(run.stderr()).toBe('');

    const printed = keyholdWith(
      { KEYHOLD_POSTGRES_URL: 'postgres://keyhold:hunter2@127.0.0.1/keyhold' },
      'serve',
      '--print-config',
    );
    const printedLines: string[] = [];
    for (let l = await printed.firstLine(); l !== undefined; l = await printed.firstLine()) {
      printedLines.push(l);
    }
    const out = JSON.parse(printedLines.join('\n'));
    expect(await printed.exit()).toBe(0);
    expect(out.settings.postgres).toBe('postgres://keyhold:***@127.0.0.1/keyhold');
    expect(out.sources).toMatchObject({ postgres: 'env', port: 'default' });
  });

  it('--dev starts in memory with a fresh root key, printed once, that the published client uses', async () => {
    const run = keyhold('serve', '--dev', '--port', '0');
    const line = JSON.parse(await run.firstLine());
    expect(line.apiPublicKey).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(line.apiPrivateKey).toMatch(/^[0-9a-f]{64}$/);
    const client = new Turnkey({
      apiBaseUrl: line.url,
      apiPublicKey: line.apiPublicKey,
      apiPrivateKey: line.apiPrivateKey,
      defaultOrganizationId: line.organizationId,
    }).apiClient();
    const { walletId } = await client.createWallet({ walletName: 'first', accounts: [] });
    expect(walletId).toBeTruthy();
    run.child.kill('SIGTERM');
    expect(await run.exit()).toBe(0);
    expect(run.stderr()).toContain('development mode');
    expect(run.stderr()).not.toContain(line.apiPrivateKey);

    const refused = keyhold('serve', '--dev', '--env', 'production');
    expect(await refused.exit()).toBe(2);
    expect(refused.stderr()).toContain('--dev prints a root credential');
  });

  it('--log-level warn writes no access lines; --log-level and --metrics refuse other values', async () => {
    const quiet = keyhold(
      'serve',
      '--port',
      '0',
      '--memory',
      '--log-level',
      'warn',
      '--metrics',
      'off',
    );
    const { url } = JSON.parse(await quiet.firstLine());
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
    quiet.child.kill('SIGTERM');
    expect(await quiet.exit()).toBe(0);
    expect(quiet.stderr()).not.toContain('"message":"request"');
    expect(quiet.stderr()).not.toContain('"level":"info"');
    for (const [flag, value] of [
      ['--log-level', 'loud'],
      ['--metrics', 'maybe'],
    ]) {
      const run = keyhold('serve', '--memory', flag!, value!);
      expect(await run.exit()).toBe(2);
      expect(run.stderr()).toContain(`${flag} must be`);
    }
  });

  it('--http koa serves through the Koa adapter, and exits 0 on SIGTERM', async () => {
    const key = generateApiKeyPair();
    const run = keyhold(
      'serve',
      '--http',
      'koa',
      '--port',
      '0',
      '--memory',
      '--bootstrap-api-public-key',
      key.publicKey,
    );
    const line = JSON.parse(await run.firstLine());
    expect(line.event).toBe('listening');
    const body = JSON.stringify({ organizationId: line.organizationId });
    const res = await fetch(`${line.url}/public/v1/query/whoami`, {
      method: 'POST',
      body,
      headers: { 'x-stamp': createApiKeyStamper(key.privateKey).stamp(body) },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ organizationId: line.organizationId });
    const refused = await fetch(`${line.url}/public/v1/query/whoami`, { method: 'POST', body });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { code: number }).code).toBe(16);
    // The log line names the adapter that is serving.
    const listening = run
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l))
      .find((l) => l.message === 'listening');
    expect(listening).toMatchObject({ http: 'koa' });

    run.child.kill('SIGTERM');
    expect(await run.exit()).toBe(0);
    expect(run.stderr()).toContain('"message":"stopped"');
  });

  it('prints no ids without a bootstrap key', async () => {
    const run = keyhold('serve', '--port', '0', '--memory');
    const line = JSON.parse(await run.firstLine());
    expect(Object.keys(line)).toEqual([
      'event',
      'url',
      'signerPublicKey',
      'notarizerPublicKey',
      'tlsFetcherSignPublicKey',
      'tlsFetcherEncryptPublicKey',
      'authProxyUrl',
      // Development serves the export and import frames to loopback pages.
      'exportFrameUrl',
      'importFrameUrl',
    ]);
    run.child.kill('SIGTERM');
    expect(await run.exit()).toBe(0);
  });

  it.concurrent.each([
    [['--memory', '--data', '/tmp/x'], 'choose one of --memory, --data and --postgres'],
    [['--postgres', 'postgres://127.0.0.1/test'], 'KEYHOLD_MASTER_KEY'],
    [['--memory', '--vault', 'pkcs11'], 'KEYHOLD_PKCS11_TOKEN_LABEL'],
    [['--http', 'fastify'], '--http must be express or koa, got "fastify"'],
    [['--env', 'production', '--memory'], 'KEYHOLD_MASTER_KEY'],
    [['--port', '70000'], '--port'],
    [['--memory', '--rate-limit', 'bogus'], '--rate-limit must be memory or a redis:// URL'],
    [
      ['--memory', '--rate-limit', 'redis://127.0.0.1:1'],
      'Redis at redis://127.0.0.1:1 is unreachable',
    ],
  ])('refuses %j and exits non-zero', async (args, message) => {
    const run = keyhold('serve', ...args);
    expect(await run.exit()).not.toBe(0);
    expect(run.stderr()).toContain(message);
  });
});

describe('keyhold serve --data (embedded PGlite)', () => {
  it('keeps its organization, wallets and signer key across a restart', async () => {
    const dir = join(tmp, 'data');
    const key = generateApiKeyPair();
    const stamper = createApiKeyStamper(key.privateKey);
    const post = async (url: string, path: string, body: unknown) => {
      const text = JSON.stringify(body);
      const res = await fetch(url + path, {
        method: 'POST',
        body: text,
        headers: { 'x-stamp': stamper.stamp(text) },
      });
      // biome-ignore lint/suspicious/noExplicitAny: JSON responses read loosely in a test.
      return (await res.json()) as Record<string, any>;
    };

    const first = keyhold(
      'serve',
      '--port',
      '0',
      '--data',
      dir,
      '--bootstrap-api-public-key',
      key.publicKey,
    );
    const one = JSON.parse(await first.firstLine());
    const created = await post(one.url, '/public/v1/submit/create_wallet', {
      type: 'ACTIVITY_TYPE_CREATE_WALLET',
      timestampMs: String(Date.now()),
      organizationId: one.organizationId,
      parameters: { walletName: 'kept', accounts: [] },
    });
    expect(created.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    first.child.kill('SIGTERM');
    expect(await first.exit()).toBe(0);
    expect(statSync(join(dir, 'master.key')).mode & 0o777).toBe(0o600);

    const second = keyhold(
      'serve',
      '--port',
      '0',
      '--data',
      dir,
      '--bootstrap-api-public-key',
      key.publicKey,
    );
    const two = JSON.parse(await second.firstLine());
    expect(two.organizationId).toBe(one.organizationId);
    expect(two.userId).toBe(one.userId);
    expect(two.signerPublicKey).toBe(one.signerPublicKey);
    expect(two.notarizerPublicKey).toBe(one.notarizerPublicKey);
    const wallets = await post(two.url, '/public/v1/query/list_wallets', {
      organizationId: one.organizationId,
    });
    expect(wallets.wallets.map((w: { walletName: string }) => w.walletName)).toEqual(['kept']);
    // While the server holds the directory, whoami refuses to open it.
    const busy = keyhold('whoami', '--data', dir);
    expect(await busy.exit()).toBe(2);
    expect(busy.stderr()).toMatch(/is in use by process \d+/);
    second.child.kill('SIGTERM');
    expect(await second.exit()).toBe(0);
    expect(second.stderr()).not.toContain(readFileSync(join(dir, 'master.key'), 'utf8').trim());

    // Stopped, the organization id is one command away.
    const whoami = keyhold('whoami', '--data', dir);
    expect(JSON.parse(await whoami.firstLine())).toMatchObject({
      organizationId: one.organizationId,
      name: 'Keyhold',
      rootUserIds: [one.userId],
      rootQuorumThreshold: 1,
    });
    expect(await whoami.exit()).toBe(0);
  }, 120_000); // two starts on a new embedded database: long on a busy machine

  it('whoami on a directory without data says so, and creates nothing', async () => {
    const empty = join(tmp, 'no-data');
    const run = keyhold('whoami', '--data', empty);
    expect(await run.exit()).toBe(2);
    expect(run.stderr()).toContain(`--data ${empty} holds no Keyhold data`);
    expect(() => statSync(empty)).toThrow();
  });

  it('refuses a master key that does not match the data directory', async () => {
    const dir = join(tmp, 'mismatch');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'master.key'), `${'11'.repeat(32)}\n`, { mode: 0o600 });
    const run = keyholdProcess(['serve', '--data', dir], { KEYHOLD_MASTER_KEY: '22'.repeat(32) });
    expect(await run.exit()).toBe(2);
    expect(run.stderr()).toContain('does not match');
  });
});

describe('keyhold serve --vault pkcs11 (SoftHSM)', () => {
  it('creates a key inside the token and signs with it', async () => {
    const dir = join(tmp, 'softhsm');
    mkdirSync(join(dir, 'tokens'), { recursive: true });
    writeFileSync(
      join(dir, 'softhsm2.conf'),
      `directories.tokendir = ${join(dir, 'tokens')}\nobjectstore.backend = file\n`,
    );
    const env = {
      SOFTHSM2_CONF: join(dir, 'softhsm2.conf'),
      KEYHOLD_PKCS11_TOKEN_LABEL: 'keyhold-cli',
      KEYHOLD_PKCS11_PIN: '1234',
    };
    execFileSync(
      'softhsm2-util',
      ['--init-token', '--free', '--label', 'keyhold-cli', '--so-pin', '5678', '--pin', '1234'],
      {
        env: { ...process.env, ...env },
        stdio: 'pipe',
      },
    );
    const key = generateApiKeyPair();
    const stamper = createApiKeyStamper(key.privateKey);
    const run = keyholdWith(
      env,
      'serve',
      '--port',
      '0',
      '--memory',
      '--vault',
      'pkcs11',
      '--bootstrap-api-public-key',
      key.publicKey,
    );
    const line = JSON.parse(await run.firstLine());
    const submit = async (path: string, type: string, parameters: unknown) => {
      const text = JSON.stringify({
        type,
        timestampMs: String(Date.now()),
        organizationId: line.organizationId,
        parameters,
      });
      const res = await fetch(`${line.url}/public/v1/submit/${path}`, {
        method: 'POST',
        body: text,
        headers: { 'x-stamp': stamper.stamp(text) },
      });
      return (
        (await res.json()) as {
          // biome-ignore lint/suspicious/noExplicitAny: JSON responses read loosely in a test.
          activity: Record<string, any>;
        }
      ).activity;
    };
    const created = await submit('create_private_keys', 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', {
      privateKeys: [
        {
          privateKeyName: 'hsm',
          curve: 'CURVE_P256',
          privateKeyTags: [],
          addressFormats: ['ADDRESS_FORMAT_COMPRESSED'],
        },
      ],
    });
    expect(created.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const { privateKeyId, addresses } = created.result.createPrivateKeysResultV2.privateKeys[0];
    const digest = '11'.repeat(32);
    const signed = await submit('sign_raw_payload', 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', {
      signWith: privateKeyId,
      payload: digest,
      encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    });
    expect(signed.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const { r, s } = signed.result.signRawPayloadResult;
    expect(
      p256.verify(hexToBytes(r + s), hexToBytes(digest), hexToBytes(addresses[0].address), {
        prehash: false,
      }),
    ).toBe(true);
    // Sessions are signed by the notarizer key in the token, whose public key the line prints.
    const login = await submit('stamp_login', 'ACTIVITY_TYPE_STAMP_LOGIN', {
      publicKey: generateApiKeyPair().publicKey,
    });
    expect(login.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const { session } = login.result.stampLoginResult;
    expect(await verifySessionJwtSignature(session, line.notarizerPublicKey)).toBe(true);
    run.child.kill('SIGTERM');
    expect(await run.exit()).toBe(0);
  });
});

const REDIS_URL = process.env.KEYHOLD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const redisProbe = new RedisRateLimiter({ url: REDIS_URL });
const withRedis = await redisProbe.ping().then(
  () => true,
  () => false,
);
await redisProbe.close();

describe('keyhold serve --rate-limit', () => {
  it.each([
    ['memory', true],
    [REDIS_URL, withRedis],
  ])('%s: sends the ratelimit headers, and SIGTERM closes it and exits 0', async (limiter, up) => {
    if (!up) return;
    const key = generateApiKeyPair();
    const run = keyhold(
      'serve',
      '--port',
      '0',
      '--memory',
      '--rate-limit',
      limiter,
      '--bootstrap-api-public-key',
      key.publicKey,
    );
    const line = JSON.parse(await run.firstLine());
    const body = JSON.stringify({ organizationId: line.organizationId });
    const res = await fetch(`${line.url}/public/v1/query/whoami`, {
      method: 'POST',
      body,
      headers: { 'x-stamp': createApiKeyStamper(key.privateKey).stamp(body) },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe('60');
    expect(Number(res.headers.get('ratelimit-remaining'))).toBeLessThan(60);
    expect(run.stderr()).toContain('"message":"rate limiter"');
    // Exiting at all shows the Redis connection was closed: an open socket keeps Node alive.
    run.child.kill('SIGTERM');
    expect(await run.exit()).toBe(0);
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

describe('keyhold usage', () => {
  it('--version prints the package version', async () => {
    const run = keyhold('--version');
    expect(await run.firstLine()).toMatch(/^\d+\.\d+\.\d+/);
    expect(await run.exit()).toBe(0);
  });

  it.each([
    'serve',
    'keygen',
    'conformance',
    'policy',
    'whoami',
    'master-key',
    'backup',
    'restore',
  ])('%s --help prints its usage and exits 0', async (command) => {
    const run = keyhold(command, '--help');
    expect(await run.firstLine()).toMatch(/^usage: keyhold /);
    expect(await run.exit()).toBe(0);
  });

  it.each(['serve', 'keygen', 'conformance', 'whoami', 'backup', 'restore'])(
    '%s with an unknown option: the option named, where help is, exit 2',
    async (command) => {
      const run = keyhold(command, '--bogus');
      expect(await run.exit()).toBe(2);
      expect(run.stderr()).toContain(`keyhold ${command}: Unknown option '--bogus'`);
      expect(run.stderr()).toContain(`(keyhold ${command} --help)`);
    },
  );
});
