/**
 * The tamper-evident audit log, end to end on Postgres: activities (root's and a user's),
 * a vote, and an authenticated refusal join the organization's chain through the published
 * `@turnkey/sdk-server`; an unauthenticated request does not. `keyhold audit verify` finds the
 * chain intact, `keyhold audit export` writes lines a script re-checks with SHA-256 alone; then
 * one stored row is edited and both name that entry; a cut-off tail is caught by the head.
 */
import { createHash } from 'node:crypto';
import { verifyAuditChain } from '@keyhold/activities';
import { createApiKeyStamper, generateApiKeyPair, silentLogger } from '@keyhold/server';
import { createPostgresStore } from '@keyhold/store-postgres';
import { Turnkey } from '@turnkey/sdk-server';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  dropSchemas,
  POSTGRES_URL,
  postgresReachable,
  testSchema,
} from '../../../adapters/store-postgres/src/testing/targets.js';
import { createApiKeyUser } from '../../server/src/__fixtures__/turnkey-server.js';
import { keyholdProcess, killKeyholdProcesses } from './__fixtures__/keyhold-process.js';
import { type RunningServer, startServer } from './start-server.js';

const schema = testSchema('audit');
const storeUrl = `${POSTGRES_URL}?schema=${schema}`;
afterAll(async () => {
  killKeyholdProcesses();
  await dropSchemas([schema]);
});

/** What a command printed on stdout, as JSON lines, and its exit code. */
async function keyholdLines(...args: string[]) {
  const run = keyholdProcess(args);
  const lines: Record<string, unknown>[] = [];
  for (let l = await run.firstLine(); l !== undefined; l = await run.firstLine()) {
    lines.push(JSON.parse(l));
  }
  return { lines, code: await run.exit(), stderr: run.stderr() };
}

const client = (
  url: string,
  organizationId: string,
  key: { publicKey: string; privateKey: string },
) =>
  new Turnkey({
    apiBaseUrl: url,
    apiPublicKey: key.publicKey,
    apiPrivateKey: key.privateKey,
    defaultOrganizationId: organizationId,
    activityPoller: { intervalMs: 20, numRetries: 2 },
  }).apiClient();

describe.runIf(await postgresReachable())('the audit log', () => {
  let server: RunningServer;

  it('records activities, votes and authenticated refusals; verify and export hold, then catch an edit', async () => {
    const root = generateApiKeyPair();
    const store = await createPostgresStore({ connectionString: POSTGRES_URL, schema });
    server = await startServer({
      port: 0,
      store,
      logger: silentLogger,
      bootstrapApiPublicKey: root.publicKey,
    });
    const organizationId = server.organizationId!;
    const sdk = client(server.url, organizationId, root);
    const bobKey = generateApiKeyPair();
    const bobId = await createApiKeyUser(sdk, 'bob', bobKey);
    await sdk.createPolicy({
      policyName: 'bob makes wallets with root approval',
      effect: 'EFFECT_ALLOW',
      condition: `activity.type == 'ACTIVITY_TYPE_CREATE_WALLET' && activity.resource == 'WALLET'`,
      consensus: `approvers.any(user, user.id == '${server.userId}')`,
      notes: '',
    });
    const bob = client(server.url, organizationId, bobKey);
    const pending = await bob
      .createWallet({ walletName: 'bob', accounts: [] })
      .catch((e: { activityId?: string }) => e);
    const { activities } = await sdk.getActivities({
      filterByStatus: ['ACTIVITY_STATUS_CONSENSUS_NEEDED'],
    });
    expect(activities).toHaveLength(1);
    expect(pending).toBeTruthy();
    await sdk.approveActivity({ fingerprint: activities[0]!.fingerprint });
    // Refused by policy after the stamp verified: an entry. A stranger's stamp: none.
    await expect(bob.createPrivateKeys({ privateKeys: [] })).rejects.toThrow();
    const body = JSON.stringify({ organizationId });
    const stranger = await fetch(`${server.url}/public/v1/query/whoami`, {
      method: 'POST',
      body,
      headers: { 'x-stamp': createApiKeyStamper(generateApiKeyPair().privateKey).stamp(body) },
    });
    expect(stranger.status).toBe(401);
    await server.close();

    const {
      lines: verified,
      code,
      stderr,
    } = await keyholdLines('audit', 'verify', '--postgres', storeUrl);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(verified).toEqual([{ organizationId, entries: 5, intact: true }]);

    const { lines: exported } = await keyholdLines('audit', 'export', '--postgres', storeUrl);
    const bodies = exported.map((e) => JSON.parse(e.body as string));
    expect(bodies.map((b) => [b.event, b.activityType, b.status ?? b.errorCode, b.userId])).toEqual(
      [
        [
          'activity',
          expect.stringMatching(/^ACTIVITY_TYPE_CREATE_USERS/),
          'ACTIVITY_STATUS_COMPLETED',
          server.userId,
        ],
        ['activity', 'ACTIVITY_TYPE_CREATE_POLICY_V3', 'ACTIVITY_STATUS_COMPLETED', server.userId],
        ['activity', 'ACTIVITY_TYPE_CREATE_WALLET', 'ACTIVITY_STATUS_CONSENSUS_NEEDED', bobId],
        ['vote', 'ACTIVITY_TYPE_CREATE_WALLET', 'ACTIVITY_STATUS_COMPLETED', server.userId],
        ['refusal', 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', expect.any(String), bobId],
      ],
    );
    // An outside check, with SHA-256 and nothing of Keyhold's.
    const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
    const recheck = (lines: Record<string, unknown>[]) => {
      let previous = '0'.repeat(64);
      for (const line of lines) {
        if (line.prevHash !== previous) return line.seq;
        if (sha256(`${previous}\n${line.body}`) !== line.hash) return line.seq;
        previous = line.hash as string;
      }
      return undefined;
    };
    expect(recheck(exported)).toBeUndefined();

    // Someone with write access to the database rewrites entry 3: who made the wallet.
    const db = new pg.Client({ connectionString: POSTGRES_URL });
    await db.connect();
    try {
      await db.query(
        `UPDATE "${schema}".audit_entries SET body = replace(body, $1, $2) WHERE seq = 3`,
        [bobId, server.userId],
      );
      const edited = await keyholdLines('audit', 'verify', '--postgres', storeUrl);
      expect(edited.code).toBe(1);
      expect(edited.lines).toEqual([
        {
          organizationId,
          intact: false,
          seq: 3,
          reason: 'the hash does not match the previous hash and the body',
        },
      ]);
      const { lines: after } = await keyholdLines('audit', 'export', '--postgres', storeUrl);
      expect(recheck(after)).toBe(3);

      // Entry 5 removed (the tail cut off): every remaining link holds, the head does not.
      await db.query(`DELETE FROM "${schema}".audit_entries WHERE seq = 5`);
      const reopened = await createPostgresStore({ connectionString: POSTGRES_URL, schema });
      try {
        const entries = await reopened.transaction((tx) => tx.auditLog.list(organizationId, 1, 10));
        const head = (await reopened.transaction((tx) => tx.auditLog.heads()))[0];
        expect(verifyAuditChain(entries.slice(3), head)).toEqual({
          seq: 1,
          reason: 'entry 1 is missing (next is 4)',
        });
        expect(verifyAuditChain([], head)).toEqual({
          seq: 1,
          reason: 'the head is at entry 5, the chain ends at 0',
        });
      } finally {
        await reopened.close();
      }
    } finally {
      await db.end();
    }
  }, 120_000);
});
