/**
 * HTTPS and proxies: `startServer({ tls })` (`keyhold serve --tls-cert --tls-key`) answers a
 * stamped request over TLS to a client that trusts the certificate, and nothing over plain
 * HTTP; `trustProxyHops` (`--trust-proxy N`) reads the client's address from X-Forwarded-For
 * that many hops back — and by default the header is ignored, since any client can write it;
 * bad TLS flags fail the start naming the flag.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '@keyhold/activities';
import { createApiKeyStamper, generateApiKeyPair } from '@keyhold/server';
import { afterAll, describe, expect, it } from 'vitest';
import { keyholdProcess, killKeyholdProcesses } from './__fixtures__/keyhold-process.js';
import { startServer } from './start-server.js';

const dir = mkdtempSync(join(tmpdir(), 'keyhold-tls-'));
const certFile = join(dir, 'cert.pem');
const keyFile = join(dir, 'key.pem');
// A throwaway self-signed P-256 certificate for 127.0.0.1, made by the machine's OpenSSL.
execFileSync(
  'openssl',
  [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    keyFile,
    '-out',
    certFile,
    '-days',
    '1',
    '-subj',
    '/CN=keyhold test',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ],
  { stdio: 'ignore' },
);
const cert = readFileSync(certFile);
const key = readFileSync(keyFile);

afterAll(() => {
  killKeyholdProcesses();
  rmSync(dir, { recursive: true, force: true });
});

function accessLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger: Logger = {
    info: (message, fields) => message === 'request' && lines.push(fields ?? {}),
    warn() {},
    error() {},
  };
  return { lines, logger };
}

/** POST over HTTPS trusting only the test certificate. */
function post(url: string, body: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, { method: 'POST', ca: cert, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('HTTPS and reverse proxies', () => {
  it('serves stamped requests over TLS, and reads X-Forwarded-For only when told to trust it', async () => {
    for (const trustProxyHops of [0, 1]) {
      const apiKey = generateApiKeyPair();
      const { lines, logger } = accessLogger();
      const server = await startServer({
        port: 0,
        logger,
        tls: { cert, key },
        trustProxyHops,
        bootstrapApiPublicKey: apiKey.publicKey,
      });
      try {
        expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
        const body = JSON.stringify({ organizationId: server.organizationId });
        const answer = await post(`${server.url}/public/v1/query/whoami`, body, {
          'x-stamp': createApiKeyStamper(apiKey.privateKey).stamp(body),
          'x-forwarded-for': '203.0.113.7',
        });
        expect(answer.status).toBe(200);
        expect(JSON.parse(answer.body)).toMatchObject({ organizationId: server.organizationId });
        expect(lines.at(-1)!.clientAddress).toBe(trustProxyHops ? '203.0.113.7' : '127.0.0.1');
        // Plain HTTP to the TLS port gets no answer from Keyhold.
        const plain = await fetch(server.url.replace('https:', 'http:') + '/health').catch(
          (error: Error) => error,
        );
        expect(plain).toBeInstanceOf(Error);
      } finally {
        await server.close();
      }
    }
  });

  it('keyhold serve refuses TLS flags that cannot work, naming them, exit 2', async () => {
    const notPem = join(dir, 'not.pem');
    writeFileSync(notPem, 'hello');
    const cases: [string[], string][] = [
      [['--tls-cert', certFile], '--tls-cert and --tls-key go together'],
      [
        ['--tls-cert', join(dir, 'missing.pem'), '--tls-key', keyFile],
        `--tls-cert ${join(dir, 'missing.pem')}: ENOENT`,
      ],
      [['--tls-cert', notPem, '--tls-key', keyFile], 'not a PEM certificate and its private key'],
      [['--trust-proxy', 'all'], '--trust-proxy must be a number'],
    ];
    for (const [flags, message] of cases) {
      const run = keyholdProcess(['serve', '--memory', '--port', '0', ...flags]);
      expect(await run.exit()).toBe(2);
      expect(run.stderr()).toContain(message);
    }
  });
});
