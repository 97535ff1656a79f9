/**
 * `keyhold policy check` and `keyhold policy explain`, spawned as the CLI runs: report lines
 * with positions and carets, exit codes, the explanation of a live server's decision, and the
 * messages of an unreachable or refusing server.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateApiKeyPair } from '@keyhold/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTurnkeyServer,
  type TurnkeyServer,
} from '../../server/src/__fixtures__/turnkey-server.js';
import { keyholdNodeArgs } from './__fixtures__/keyhold-process.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'keyhold-policy-cli-'));
const children: ChildProcess[] = [];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; `pnpm` runs `pnpm --silent keyhold …` as a user would. */
async function run(command: 'node' | 'pnpm', args: string[]): Promise<Run> {
  const child =
    command === 'node'
      ? spawn(process.execPath, keyholdNodeArgs(args), { cwd: root })
      : spawn('pnpm', ['--silent', 'keyhold', ...args], { cwd: root });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => {
    stdout += d;
  });
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  const [code] = (await once(child, 'exit')) as [number];
  return { code, stdout, stderr };
}

const keyhold = (...args: string[]) => run('node', args);

function file(name: string, content: unknown): string {
  const path = join(tmp, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

describe('keyhold policy check', () => {
  it.concurrent('prints OK per policy and exits 0 for an array of good policies', async () => {
    const path = file('good.json', [
      { policyName: 'sign hot', effect: 'EFFECT_ALLOW', condition: "activity.action == 'SIGN'" },
      {
        effect: 'EFFECT_DENY',
        condition: 'bitcoin.tx.fee > 50000',
        consensus: 'approvers.count() >= 2',
        notes: 'n',
      },
    ]);
    const result = await keyhold('policy', 'check', path);
    expect(result).toEqual({
      code: 0,
      stdout: `${path}: policy 1 (sign hot): OK\n${path}: policy 2: OK\n`,
      stderr: '',
    });
  });

  it.concurrent('reports where a CREATE_POLICIES policy is wrong, with the line and a caret, and exits 1', async () => {
    const condition = "activity.action == 'SIGN' && wallet.idd == 'w1'";
    const path = file('bad.json', {
      policies: [
        { policyName: 'fine', effect: 'EFFECT_ALLOW', condition: 'true' },
        { policyName: 'typo', effect: 'EFFECT_ALLOW', condition },
        {
          policyName: 'second line',
          effect: 'EFFECT_DENY',
          condition: "activity.action == 'SIGN'\n  && private_key.tagz.contains('hot')",
        },
        { policyName: 'no effect', condition: 'true' },
      ],
    });
    const result = await keyhold('policy', 'check', path);
    expect(result.code).toBe(1);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe(`${path}: policy 1 (fine): OK`);
    expect(lines[1]).toBe(
      `${path}: policy 2 (typo): condition line 1 column 37: Wallet has no field 'idd' (fields: id, imported, exported, label)`,
    );
    expect(lines[2]).toBe(`  ${condition}`);
    expect(lines[3]).toBe(`  ${' '.repeat(36)}^`);
    expect(lines[4]).toMatch(
      new RegExp(
        `^${escapeRegExp(path)}: policy 3 \\(second line\\): condition line 2 column (\\d+): `,
      ),
    );
    const column = Number(/column (\d+)/.exec(lines[4]!)![1]);
    expect(lines[5]).toBe("    && private_key.tagz.contains('hot')");
    expect(lines[6]).toBe(`  ${' '.repeat(column - 1)}^`);
    // The caret points into the offending text.
    expect("  && private_key.tagz.contains('hot')".slice(column - 1)).toMatch(
      /^(private_key|tagz)/,
    );
    expect(lines[7]).toBe(
      `${path}: policy 4 (no effect): effect must be EFFECT_ALLOW or EFFECT_DENY, got nothing`,
    );
    expect(result.stderr).toBe('');
  });

  it.concurrent('refuses a condition over the evaluation cost budget, saying where', async () => {
    const digits = `[${Array.from({ length: 100 }, (_, i) => i % 10).join(', ')}]`;
    const condition = `${digits}.all(a, ${digits}.all(b, ${digits}.all(c, true)))`;
    const path = file('costly.json', { effect: 'EFFECT_DENY', condition });
    const result = await keyhold('policy', 'check', path);
    expect(result.code).toBe(1);
    const [line, text, caret] = result.stdout.split('\n');
    expect(line).toMatch(
      new RegExp(
        `^${escapeRegExp(path)}: policy 1: condition line 1 column \\d+: too costly to evaluate`,
      ),
    );
    expect(text).toBe(`  ${condition}`);
    expect(caret).toMatch(/^ +\^$/);
  });

  it.concurrent('checks one policy object, through pnpm as a user runs it', async () => {
    const path = file('one.json', { policyName: 'one', effect: 'EFFECT_ALLOW' });
    const result = await run('pnpm', ['policy', 'check', path]);
    expect(result.stdout).toBe(`${path}: policy 1 (one): OK\n`);
    expect(result.code).toBe(0);
  });

  it.concurrent.each([
    [[], 'a FILE of policies is required'],
    [[join(tmp, 'absent.json')], 'ENOENT: no such file or directory'],
    [['NOT_JSON'], 'is not JSON'],
    [['NUMBER'], 'expected a JSON array of policies'],
    [['--bogus'], "Unknown option '--bogus'"],
  ])('exits 2 on the usage error %j', async (args, message) => {
    const paths: Record<string, string> = {
      NOT_JSON: file('not-json.json', '{"effect": '),
      NUMBER: file('number.json', '42'),
    };
    const result = await keyhold('policy', 'check', ...args.map((a) => paths[a] ?? a));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
  });

  it.concurrent('--help prints the usage and exits 0', async () => {
    const result = await keyhold('policy', 'check', '--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('usage: keyhold policy check FILE');
    const policy = await keyhold('policy', '--help');
    expect(policy.code).toBe(0);
    expect(policy.stdout).toContain('check FILE');
    expect(policy.stdout).toContain('explain');
  });
});

describe('keyhold policy explain', () => {
  let t: TurnkeyServer;
  let member: { publicKey: string; privateKey: string };
  let denyId: string;
  let body: string;

  beforeAll(async () => {
    t = await startTurnkeyServer();
    member = generateApiKeyPair();
    await t.embedded.run('ACTIVITY_TYPE_CREATE_USERS_V3', {
      users: [
        {
          userName: 'member',
          apiKeys: [
            { apiKeyName: 'm', publicKey: member.publicKey, curveType: 'API_KEY_CURVE_P256' },
          ],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    const policy = async (policyName: string, effect: string, condition: string) =>
      (
        await t.embedded.run<{ policyId: string }>('ACTIVITY_TYPE_CREATE_POLICY_V3', {
          policyName,
          effect,
          condition,
          notes: '',
        })
      ).policyId;
    await policy('allow everything', 'EFFECT_ALLOW', 'true');
    denyId = await policy(
      'no new private keys',
      'EFFECT_DENY',
      "activity.type == 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2'",
    );
    await policy('no big bitcoin fees', 'EFFECT_DENY', 'bitcoin.tx.fee > 50000');
    // No organizationId or timestampMs: the command fills them in.
    body = file('create-keys.json', {
      type: 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2',
      parameters: {
        privateKeys: [
          {
            privateKeyName: 'k',
            curve: 'CURVE_SECP256K1',
            privateKeyTags: [],
            addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
          },
        ],
      },
    });
  });

  afterAll(async () => {
    await t?.server.close();
  });

  const explain = (key: string, ...extra: string[]) =>
    keyhold(
      'policy',
      'explain',
      '--url',
      t.server.url,
      '--api-private-key',
      key,
      '--organization-id',
      t.organizationId,
      '--body',
      body,
      ...extra,
    );

  it('prints the decision, the deciding policy and each outcome with the error reason', async () => {
    const result = await explain(member.privateKey);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^activity: ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2 by user /);
    expect(lines[1]).toBe('decision: DENY (explicit-deny): a DENY policy applies');
    expect(lines[2]).toBe('submit would: refuse it with 403 (nothing stored)');
    expect(lines[3]).toBe(`deciding policies: no new private keys (${denyId})`);
    expect(lines[4]).toBe('policies:');
    expect(lines[5]).toMatch(/^ {2}allow everything \(.+\): EFFECT_ALLOW -> OUTCOME_ALLOW$/);
    expect(lines[6]).toBe(
      `  no new private keys (${denyId}): EFFECT_DENY -> OUTCOME_DENY_EXPLICIT  <- deciding`,
    );
    expect(lines[7]).toMatch(/^ {2}no big bitcoin fees \(.+\): EFFECT_DENY -> OUTCOME_ERROR$/);
    expect(lines[8]).toMatch(
      /^ {6}condition: missing data( \[bitcoin\.tx\])?, not counted as a deny: .*bitcoin\.tx/,
    );
    expect(lines).toHaveLength(9);
  });

  it('--json prints the server answer as it is', async () => {
    const result = await explain(member.privateKey, '--json');
    expect(result.code).toBe(0);
    const answer = JSON.parse(result.stdout);
    expect(answer).toMatchObject({ decision: 'DENY', decidingPolicyIds: [denyId] });
  });

  it('exits 1 with the Status message when the server refuses', async () => {
    const result = await explain(generateApiKeyPair().privateKey);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'keyhold policy explain: refused: HTTP 401: could not find public key in organization or its parent organization (code 16)',
    );
    expect(result.stdout).toBe('');
  });

  it('exits 1 naming the cause when the server cannot be reached', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    probe.listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as AddressInfo;
    probe.close();
    await once(probe, 'close');
    const url = `http://127.0.0.1:${port}`;
    const result = await keyhold(
      'policy',
      'explain',
      '--url',
      url,
      '--api-private-key',
      member.privateKey,
      '--organization-id',
      t.organizationId,
      '--body',
      body,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `keyhold policy explain: cannot reach ${url}: ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:${port})\n`,
    );
  });

  it('exits 2 on usage errors, and --help prints the usage', async () => {
    const missing = await keyhold('policy', 'explain', '--url', t.server.url);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      '--url, --api-private-key, --organization-id and --body are required',
    );
    const badKey = await explain('abc');
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toContain('--api-private-key must be 64 hex characters');
    const help = await keyhold('policy', 'explain', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: keyhold policy explain --url URL');
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
