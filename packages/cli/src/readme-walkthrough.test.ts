/**
 * The README's quickstart, followed as written: the commands of its shell block (keygen, serve
 * with the printed key), its client snippet run as the `.mjs` file it says to save — taken
 * from README.md itself, placeholders filled from what the commands printed — then the server
 * stopped, `keyhold whoami` finding the organization again, and `serve --dev` giving a key the
 * same snippet works with. If the README and Keyhold disagree, this fails.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { keyholdProcess, killKeyholdProcesses } from './__fixtures__/keyhold-process.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const quickstart = readme.slice(
  readme.indexOf('## Quickstart'),
  readme.indexOf('## What it serves'),
);
const tmp = mkdtempSync(join(tmpdir(), 'keyhold-readme-'));

afterAll(() => {
  killKeyholdProcesses();
  rmSync(tmp, { recursive: true, force: true });
});

/** The fenced blocks of a language in the quickstart, in order. */
const blocks = (lang: string) =>
  [...quickstart.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!);

/** The snippet as `sign.mjs`, its placeholders filled, printing what it got. */
function signScript(values: {
  url: string;
  publicKey: string;
  privateKey: string;
  organizationId: string;
}) {
  const snippet = blocks('ts')[0]!;
  const filled = [
    ["apiBaseUrl: 'http://127.0.0.1:8080'", `apiBaseUrl: '${values.url}'`],
    ["apiPublicKey: '02…'", `apiPublicKey: '${values.publicKey}'`],
    ["apiPrivateKey: '…'", `apiPrivateKey: '${values.privateKey}'`],
    ["defaultOrganizationId: '…'", `defaultOrganizationId: '${values.organizationId}'`],
    ["payload: '0x…32-byte digest…'", `payload: '0x${'ab'.repeat(32)}'`],
  ].reduce((text, [placeholder, value]) => {
    expect(text, `README snippet placeholder ${placeholder}`).toContain(placeholder);
    return text.replace(placeholder!, value!);
  }, snippet);
  return `${filled}\nconsole.log(JSON.stringify({ walletId, address: addresses[0], r, s, v }));\n`;
}

/** Runs a script as the README says: `node sign.mjs`, in a project with the published client. */
async function runSnippet(
  script: string,
): Promise<{ walletId: string; address: string; r: string }> {
  const project = mkdtempSync(join(tmp, 'app-'));
  mkdirSync(join(project, 'node_modules', '@turnkey'), { recursive: true });
  // What `npm install @turnkey/sdk-server` would give: the published package (the workspace's copy).
  symlinkSync(
    join(root, 'node_modules', '@turnkey', 'sdk-server'),
    join(project, 'node_modules', '@turnkey', 'sdk-server'),
  );
  writeFileSync(join(project, 'sign.mjs'), script);
  const { stdout } = await promisify(execFile)(process.execPath, ['sign.mjs'], { cwd: project });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

describe('the README quickstart, step by step', () => {
  it('keygen, serve with the key, the sign.mjs snippet, stop, whoami, and serve --dev', async () => {
    const shell = blocks('sh')[1]!.split('\n');
    expect(shell[0]).toBe('pnpm --silent keyhold keygen');
    expect(shell[2]).toMatch(
      /^pnpm --silent keyhold serve --port 8080 --bootstrap-api-public-key 02…$/,
    );

    const keygen = keyholdProcess(['keygen']);
    const key = JSON.parse(await keygen.firstLine()) as {
      apiPublicKey: string;
      apiPrivateKey: string;
    };
    expect(await keygen.exit()).toBe(0);

    const data = join(tmp, 'data');
    // The README's serve line, on a free port and a directory of this test's own.
    const serve = keyholdProcess([
      'serve',
      '--port',
      '0',
      '--data',
      data,
      '--bootstrap-api-public-key',
      key.apiPublicKey,
    ]);
    const listening = JSON.parse(await serve.firstLine());
    const printed = JSON.parse(shell[3]!.replace(/^# /, ''));
    expect(Object.keys(listening)).toEqual(Object.keys(printed));

    const signed = await runSnippet(
      signScript({
        url: listening.url,
        publicKey: key.apiPublicKey,
        privateKey: key.apiPrivateKey,
        organizationId: listening.organizationId,
      }),
    );
    expect(signed.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(signed.r).toMatch(/^[0-9a-f]{64}$/);

    serve.child.kill('SIGTERM');
    expect(await serve.exit()).toBe(0);
    const whoami = keyholdProcess(['whoami', '--data', data]);
    expect(JSON.parse(await whoami.firstLine())).toMatchObject({
      organizationId: listening.organizationId,
    });
    expect(await whoami.exit()).toBe(0);

    const dev = keyholdProcess(['serve', '--dev', '--port', '0']);
    const devLine = JSON.parse(await dev.firstLine());
    const devSigned = await runSnippet(
      signScript({
        url: devLine.url,
        publicKey: devLine.apiPublicKey,
        privateKey: devLine.apiPrivateKey,
        organizationId: devLine.organizationId,
      }),
    );
    expect(devSigned.walletId).toBeTruthy();
    dev.child.kill('SIGTERM');
    expect(await dev.exit()).toBe(0);
  }, 180_000);
});
