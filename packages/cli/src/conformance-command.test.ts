/**
 * `keyhold conformance` as a vendor runs it, against a Keyhold started here: the suite runs in a
 * fresh sub-organization (the organization given gets the one CREATE_SUB_ORGANIZATION activity
 * and nothing else: no wallet, key, user or policy), prints each property's one-line
 * description as it starts, and writes a JUnit or JSON report. A dead URL, a name that does not
 * resolve, TLS to a plain-HTTP port and a wrong key each stop it with the cause named (exit 1),
 * and the report still lists every property, as not run.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { conformanceProperties } from '@keyhold/conformance';
import { generateApiKeyPair, silentLogger } from '@keyhold/server';
import { Turnkey } from '@turnkey/sdk-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyholdProcess, killKeyholdProcesses } from './__fixtures__/keyhold-process.js';
import { type RunningServer, startServer } from './start-server.js';

const tmp = mkdtempSync(join(tmpdir(), 'keyhold-conformance-'));
const root = generateApiKeyPair();
let server: RunningServer;
beforeAll(async () => {
  server = await startServer({
    port: 0,
    logger: silentLogger,
    bootstrapApiPublicKey: root.publicKey,
  });
});
afterAll(async () => {
  killKeyholdProcesses();
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function conformance(...args: string[]) {
  const run = keyholdProcess(['conformance', ...args]);
  const lines: string[] = [];
  for (let l = await run.firstLine(); l !== undefined; l = await run.firstLine()) lines.push(l);
  return { lines, code: await run.exit(), stderr: run.stderr() };
}

/** A local port nothing listens on. */
async function deadPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('keyhold conformance', () => {
  it('runs in a fresh sub-organization, explains each property, shows progress, writes JUnit', async () => {
    const file = join(tmp, 'conformance.xml');
    const run = await conformance(
      '--url',
      server.url,
      '--api-private-key',
      root.privateKey,
      '--organization-id',
      server.organizationId!,
      '--runs',
      '2',
      '--report',
      file,
    );
    expect(run.code, `${run.lines.join('\n')}\n${run.stderr}`).toBe(0);
    const total = conformanceProperties.length;
    conformanceProperties.forEach((property, i) => {
      expect(run.lines).toContain(`[${i + 1}/${total}] ${property.name}: ${property.description}`);
      expect(run.lines.some((l) => l.startsWith(`ok   ${property.name} (`))).toBe(true);
    });
    const ranIn = /in a new sub-organization (\S+) of/.exec(run.lines.join('\n'))?.[1];
    expect(ranIn).toBeDefined();
    expect(ranIn).not.toBe(server.organizationId);

    const xml = readFileSync(file, 'utf8');
    expect(xml).toContain(`<testsuite name="keyhold-conformance"`);
    expect(xml).toContain(`tests="${total}" failures="0"`);
    expect(xml.match(/<testcase /g)).toHaveLength(total);

    // The organization given holds nothing of the suite's: one activity, its sub-organization.
    const sdk = new Turnkey({
      apiBaseUrl: server.url,
      apiPublicKey: root.publicKey,
      apiPrivateKey: root.privateKey,
      defaultOrganizationId: server.organizationId!,
    }).apiClient();
    const { activities } = await sdk.getActivities({});
    expect(activities.map((a) => a.type)).toEqual(['ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7']);
    expect((await sdk.getWallets({})).wallets).toEqual([]);
    expect((await sdk.getPrivateKeys({})).privateKeys).toEqual([]);
    expect((await sdk.getUsers({})).users).toHaveLength(1);
    expect((await sdk.getPolicies({})).policies).toEqual([]);
    const { organizationIds } = await sdk.getSubOrgIds({});
    expect(organizationIds).toContain(ranIn);
  }, 300_000);

  const given = () => [
    '--api-private-key',
    root.privateKey,
    '--organization-id',
    server.organizationId!,
  ];

  it('names a refused connection and still writes the JSON report, every property not run', async () => {
    const file = join(tmp, 'dead.json');
    const url = `http://127.0.0.1:${await deadPort()}`;
    const run = await conformance('--url', url, ...given(), '--report', file);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/connection refused by 127\.0\.0\.1:\d+ \(nothing listens there/);
    const report = JSON.parse(readFileSync(file, 'utf8'));
    expect(report).toMatchObject({ target: url, passed: 0, failed: conformanceProperties.length });
    expect(report.results[0].error).toMatch(/^not run: cannot reach/);
    expect(report.results[0].description).toBe(conformanceProperties[0]!.description);
  }, 60_000);

  it('names DNS, TLS to a plain-HTTP port, and a key the organization does not know', async () => {
    const dns = await conformance('--url', 'http://conformance.keyhold.invalid:8080', ...given());
    expect(dns.code).toBe(1);
    expect(dns.stderr).toMatch(
      /DNS: the host name of conformance\.keyhold\.invalid:8080 does not resolve/,
    );

    const tls = await conformance('--url', server.url.replace('http:', 'https:'), ...given());
    expect(tls.code).toBe(1);
    expect(tls.stderr).toMatch(/TLS with 127\.0\.0\.1:\d+ failed: .*try http:\/\//);

    const stranger = generateApiKeyPair();
    const key = await conformance(
      '--url',
      server.url,
      '--api-private-key',
      stranger.privateKey,
      '--organization-id',
      server.organizationId!,
    );
    expect(key.code).toBe(1);
    expect(key.stderr).toMatch(/whoami with this API key failed \(check --api-private-key/);
  }, 60_000);

  it('refuses usage errors with exit 2', async () => {
    const run = await conformance('--url', server.url);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--url, --api-private-key and --organization-id are required/);
    const format = await conformance(
      '--url',
      server.url,
      ...given(),
      '--report',
      'x',
      '--report-format',
      'tap',
    );
    expect(format.code).toBe(2);
  });
});
