/**
 * Crash safety of `keyhold serve` on its durable stores (embedded PGlite in a data directory,
 * and a Postgres server): the real CLI serves 8 concurrent streams of stamped requests
 * (create_wallet, sign_raw_payload, create_wallet_accounts); it is killed with SIGKILL while
 * requests are in flight, restarted on the same data, and then it must show that
 *
 * - every activity a client saw COMPLETED is still there, identical (get_activity);
 * - nothing is duplicated: ids and fingerprints are unique in list_activities, resubmitting a
 *   body returns the activity it made, and resubmitting every body sent (including those whose
 *   answer was lost in the crash) leaves exactly one activity per body;
 * - the store is consistent: every wallet exists with exactly the accounts its activities
 *   reported, no wallet or account exists without the completed activity that made it, no
 *   activity is left half-done, and the signatures it returned verify against the account key.
 *
 * The PGlite data directory is seeded from the cached empty cluster (skipping initdb's 5–10 s);
 * the Postgres run gets a database of its own (the CLI uses the `public` schema of its URL),
 * dropped afterwards. Without Postgres the Postgres run is skipped loudly (CI: it fails).
 */
// How the CLI's own tests start it (the built CLI under `pnpm test`, else tsx), by path.

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { afterAll, describe, expect, it } from 'vitest';
import { templatePglite } from '../../../adapters/store-postgres/src/testing/pglite-template.js';
// Test helpers of the SQL adapter: the Postgres target rules (skip loudly, fail in CI) and the
// cached empty PGlite cluster.
import {
  POSTGRES_URL,
  postgresReachable,
} from '../../../adapters/store-postgres/src/testing/targets.js';
import { keyholdNodeArgs } from '../../cli/src/__fixtures__/keyhold-process.js';
import { createApiKeyStamper, generateApiKeyPair, type Stamper } from './api-key-signer.js';

/** Parsed wire JSON, read field by field by the assertions. */
// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked by the assertions
type Json = Record<string, any>;

const root = fileURLToPath(new URL('../../../', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'keyhold-crash-'));
const children: ChildProcessWithoutNullStreams[] = [];

/** `pg`, from the SQL adapter's dependencies (the server package does not depend on it). */
interface PgClient {
  connect(): Promise<unknown>;
  query(text: string): Promise<unknown>;
  end(): Promise<void>;
}
const pg = createRequire(new URL('../../../adapters/store-postgres/package.json', import.meta.url))(
  'pg',
) as { Client: new (config: { connectionString: string }) => PgClient };

const postgresUp = await postgresReachable();

afterAll(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------
// The server process and the client

interface Listening {
  url: string;
  organizationId: string;
  userId: string;
  signerPublicKey: string;
}

interface Server {
  child: ChildProcessWithoutNullStreams;
  listening: Listening;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function serve(args: string[], env: Record<string, string | undefined>): Promise<Server> {
  const child = spawn(process.execPath, keyholdNodeArgs(['serve', '--port', '0', ...args]), {
    cwd: root,
    env: { ...process.env, KEYHOLD_MASTER_KEY: undefined, ...env },
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const line = await Promise.race([
    new Promise<string>((resolve) =>
      createInterface({ input: child.stdout }).once('line', (l) => resolve(l)),
    ),
    exited.then(({ code, signal }) => {
      throw new Error(`keyhold serve exited before listening (${code ?? signal}): ${stderr}`);
    }),
  ]);
  return { child, listening: JSON.parse(line) as Listening, stderr: () => stderr, exited };
}

interface Reply {
  status: number;
  body: Json;
}

async function post(url: string, path: string, text: string, stamper: Stamper): Promise<Reply> {
  const res = await fetch(url + path, {
    method: 'POST',
    body: text,
    headers: { 'content-type': 'application/json', 'x-stamp': stamper.stamp(text) },
  });
  return { status: res.status, body: (await res.json()) as Json };
}

const fingerprintOf = (text: string) =>
  `sha256:${bytesToHex(sha256(new TextEncoder().encode(text)))}`;

const ETH = (index: number) => ({
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: `m/44'/60'/0'/0/${index}`,
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
});
const SOL = {
  curve: 'CURVE_ED25519',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/501'/0'/0'",
  addressFormat: 'ADDRESS_FORMAT_SOLANA',
};

const SUBMIT = {
  create_wallet: '/public/v1/submit/create_wallet',
  create_wallet_accounts: '/public/v1/submit/create_wallet_accounts',
  sign_raw_payload: '/public/v1/submit/sign_raw_payload',
} as const;
type Kind = keyof typeof SUBMIT;

/** One request of the stream: its exact body, and what (if anything) came back. */
interface Sent {
  kind: Kind;
  text: string;
  fingerprint: string;
  /** The activity of a 200 reply. */
  activity?: Json;
  /** A non-200 reply, or the transport error (the server died under it). */
  error?: string;
}

const IN_FLIGHT = 8;
/** SIGKILL once this many COMPLETED replies came back (the other streams are mid-request). */
const KILL_AFTER = 32;
/** A bound on the stream, should the kill never trigger. */
const MAX_REQUESTS = 600;

// ---------------------------------------------------------------------------------------

async function crashAndRecover(args: string[], env: Record<string, string | undefined>) {
  const apiKey = generateApiKeyPair();
  const stamper = createApiKeyStamper(apiKey.privateKey);
  const bootstrap = ['--bootstrap-api-public-key', apiKey.publicKey];
  const first = await serve([...args, ...bootstrap], env);
  const { url, organizationId } = first.listening;
  const body = (type: string, timestampMs: number, parameters: object) =>
    JSON.stringify({ type, timestampMs: String(timestampMs), organizationId, parameters });

  // Setup: the wallet that the signing and account-adding streams work on.
  const setupText = body('ACTIVITY_TYPE_CREATE_WALLET', Date.now(), {
    walletName: 'crash-base',
    accounts: [ETH(0)],
  });
  const setup = await post(url, SUBMIT.create_wallet, setupText, stamper);
  expect(setup.body.activity?.status, JSON.stringify(setup.body)).toBe('ACTIVITY_STATUS_COMPLETED');
  const baseWalletId: string = setup.body.activity.result.createWalletResult.walletId;
  const signWith: string = setup.body.activity.result.createWalletResult.addresses[0];

  // The stream: IN_FLIGHT workers, each sending a new body as soon as its last one answered.
  const sent: Sent[] = [];
  let counter = 0;
  let completed = 0;
  let killed = false;
  let inFlight = 0;
  let inFlightAtKill = -1;
  const baseTimestamp = Date.now();
  const nextRequest = (): Sent => {
    const n = ++counter;
    const kind: Kind = (['create_wallet', 'sign_raw_payload', 'create_wallet_accounts'] as const)[
      n % 3
    ]!;
    const ts = baseTimestamp + n;
    const text =
      kind === 'create_wallet'
        ? body('ACTIVITY_TYPE_CREATE_WALLET', ts, {
            walletName: `crash-${n}`,
            accounts: [ETH(0), SOL],
          })
        : kind === 'create_wallet_accounts'
          ? body('ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS', ts, {
              walletId: baseWalletId,
              accounts: [ETH(n)],
            })
          : body('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', ts, {
              signWith,
              payload: bytesToHex(randomBytes(32)),
              encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
              hashFunction: 'HASH_FUNCTION_NO_OP',
            });
    return { kind, text, fingerprint: fingerprintOf(text) };
  };
  const worker = async () => {
    while (!killed && sent.length < MAX_REQUESTS) {
      const request = nextRequest();
      sent.push(request);
      inFlight++;
      try {
        const reply = await post(url, SUBMIT[request.kind], request.text, stamper);
        if (reply.status === 200) request.activity = reply.body.activity;
        else request.error = `${reply.status} ${JSON.stringify(reply.body)}`;
      } catch (error) {
        request.error = String(error);
      } finally {
        inFlight--;
      }
      if (request.activity?.status === 'ACTIVITY_STATUS_COMPLETED' && ++completed >= KILL_AFTER) {
        if (!killed) {
          killed = true;
          inFlightAtKill = inFlight;
          first.child.kill('SIGKILL');
        }
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  expect(killed, 'the stream ended before the kill').toBe(true);
  expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
  // The kill landed mid-stream: other requests were still waiting for their answers.
  expect(inFlightAtKill).toBeGreaterThan(0);

  const seen = sent.filter((s) => s.activity?.status === 'ACTIVITY_STATUS_COMPLETED');
  const lost = sent.filter((s) => s.activity === undefined);
  // Before the kill no request failed: every answer was COMPLETED or none came back.
  expect(
    sent.filter((s) => s.activity && s.activity.status !== 'ACTIVITY_STATUS_COMPLETED'),
  ).toEqual([]);
  for (const s of lost)
    expect(s.error).toMatch(/fetch failed|ECONNRESET|socket|other side closed/i);
  expect(seen.length).toBeGreaterThanOrEqual(KILL_AFTER);

  // Restart on the same data.
  const second = await serve([...args, ...bootstrap], env);
  const url2 = second.listening.url;
  expect(second.listening.organizationId).toBe(organizationId);
  expect(second.listening.userId).toBe(first.listening.userId);
  expect(second.listening.signerPublicKey).toBe(first.listening.signerPublicKey);
  const query = async (name: string, parameters: object = {}) => {
    const reply = await post(
      url2,
      `/public/v1/query/${name}`,
      JSON.stringify({ organizationId, ...parameters }),
      stamper,
    );
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body;
  };
  /** Every record of a paged listing, 100 a page, following `after` cursors. */
  const listAll = async (
    name = 'list_activities',
    parameters: object = {},
    member = 'activities',
    idOf: (r: Json) => string = (r) => r.id,
  ) => {
    const all: Json[] = [];
    for (let after: string | undefined; ; ) {
      const page = (
        await query(name, {
          ...parameters,
          paginationOptions: { limit: '100', ...(after ? { after } : {}) },
        })
      )[member] as Json[];
      if (page.length === 0) return all;
      all.push(...page);
      after = idOf(page[page.length - 1]!);
    }
  };

  // 1. Every activity a client saw COMPLETED is still there, exactly as it was returned.
  const listed = await listAll();
  for (const s of seen) {
    const { activity } = await query('get_activity', { activityId: s.activity!.id });
    expect(activity).toEqual(s.activity);
  }

  // 2. Nothing duplicated, nothing half-done: unique ids and fingerprints, every activity
  //    terminal, and no activity of a body the client never sent.
  const fingerprints = listed.map((a) => a.fingerprint as string);
  expect(new Set(listed.map((a) => a.id)).size).toBe(listed.length);
  expect(new Set(fingerprints).size).toBe(listed.length);
  expect(listed.filter((a) => a.status !== 'ACTIVITY_STATUS_COMPLETED')).toEqual([]);
  const sentFingerprints = new Set([fingerprintOf(setupText), ...sent.map((s) => s.fingerprint)]);
  expect(fingerprints.filter((f) => !sentFingerprints.has(f))).toEqual([]);
  // Listed: the setup, every COMPLETED reply, and at most the requests whose answer was lost.
  expect(listed.length).toBeGreaterThanOrEqual(1 + seen.length);
  expect(listed.length).toBeLessThanOrEqual(1 + seen.length + lost.length);

  // 3. Resubmitting: a completed body returns its activity; every lost body now runs (or
  //    returns what it made before the crash) — one activity per body in the end.
  const resubmit = async (s: Sent) => {
    const reply = await post(url2, SUBMIT[s.kind], s.text, stamper);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.activity as Json;
  };
  for (const s of seen) expect(await resubmit(s)).toEqual(s.activity);
  const byFingerprint = new Map(listed.map((a) => [a.fingerprint as string, a]));
  for (const s of lost) {
    const activity = await resubmit(s);
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(activity.fingerprint).toBe(s.fingerprint);
    const before = byFingerprint.get(s.fingerprint);
    if (before) expect(activity).toEqual(before);
  }
  const finalList = await listAll();
  expect(finalList.length).toBe(1 + sent.length);
  expect(new Set(finalList.map((a) => a.fingerprint)).size).toBe(finalList.length);
  expect(new Set(finalList.map((a) => a.fingerprint))).toEqual(sentFingerprints);

  // 4. Consistency of the records with the activities.
  const completedOf = (type: string) =>
    finalList.filter((a) => a.type === type && a.status === 'ACTIVITY_STATUS_COMPLETED');
  const walletActivities = completedOf('ACTIVITY_TYPE_CREATE_WALLET');
  const { wallets } = await query('list_wallets');
  const walletIds = wallets.map((w: { walletId: string }) => w.walletId).sort();
  // Every wallet has exactly one completed create_wallet naming it, and vice versa.
  expect(walletActivities.map((a) => a.result.createWalletResult.walletId).sort()).toEqual(
    walletIds,
  );
  const accountsOf = async (walletId: string) =>
    (await listAll('list_wallet_accounts', { walletId }, 'accounts', (r) => r.walletAccountId)) as {
      address: string;
      path: string;
      publicKey: string;
    }[];
  for (const a of walletActivities) {
    const { walletId, addresses } = a.result.createWalletResult;
    if (walletId === baseWalletId) continue;
    expect((await accountsOf(walletId)).map((x) => x.address)).toEqual(addresses);
  }
  // The base wallet holds exactly the accounts its activities reported, once each.
  const baseAccounts = await accountsOf(baseWalletId);
  const reported = [
    ...setup.body.activity.result.createWalletResult.addresses,
    ...completedOf('ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS').flatMap(
      (a) => a.result.createWalletAccountsResult.addresses as string[],
    ),
  ];
  expect(baseAccounts.map((x) => x.address).sort()).toEqual([...reported].sort());
  expect(new Set(baseAccounts.map((x) => x.path)).size).toBe(baseAccounts.length);
  // No account outside those wallets: the organization's accounts are exactly theirs.
  const allAccounts = await listAll(
    'list_wallet_accounts',
    {},
    'accounts',
    (r) => r.walletAccountId,
  );
  expect(allAccounts.filter((x) => !walletIds.includes(x.walletId))).toEqual([]);
  expect(allAccounts.map((x) => x.address).sort()).toEqual(
    walletActivities
      .filter((a) => a.result.createWalletResult.walletId !== baseWalletId)
      .flatMap((a) => a.result.createWalletResult.addresses as string[])
      .concat(reported)
      .sort(),
  );
  // The signatures it returned verify against the signing account's key.
  const signer = baseAccounts.find((x) => x.address === signWith)!;
  const signatures = completedOf('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2');
  for (const a of signatures) {
    const { r, s } = a.result.signRawPayloadResult;
    const ok = secp256k1.verify(
      hexToBytes(r + s),
      hexToBytes(a.intent.signRawPayloadIntentV2.payload),
      hexToBytes(signer.publicKey.replace(/^0x/, '')),
      { prehash: false },
    );
    expect(ok, `signature of ${a.id}`).toBe(true);
  }

  second.child.kill('SIGTERM');
  expect(await second.exited).toEqual({ code: 0, signal: null });
  return {
    sent: sent.length,
    seen: seen.length,
    lost: lost.length,
    lostButStored: lost.filter((s) => byFingerprint.has(s.fingerprint)).length,
    inFlightAtKill,
    wallets: walletIds.length,
    signatures: signatures.length,
  };
}

describe('crash safety: keyhold serve --data (embedded PGlite), SIGKILL mid-stream', () => {
  it('keeps every completed activity once, and the records consistent, across the crash', async () => {
    const dir = join(tmp, 'data');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // A cluster from the cached template instead of initdb; the CLI migrates it on start.
    await (await templatePglite(join(dir, 'pgdata'))).close();
    const figures = await crashAndRecover(['--data', dir], {});
    console.log('crash safety (PGlite):', JSON.stringify(figures));
  }, 60_000);
});

describe.skipIf(!postgresUp)('crash safety: keyhold serve --postgres, SIGKILL mid-stream', () => {
  const database = `keyhold_crash_${process.pid.toString(36)}_${randomBytes(4).toString('hex')}`;
  const databaseUrl = (() => {
    const u = new URL(POSTGRES_URL);
    u.pathname = `/${database}`;
    return u.toString();
  })();
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };

  afterAll(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
    await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  });

  it('keeps every completed activity once, and the records consistent, across the crash', async () => {
    await admin(`CREATE DATABASE "${database}"`);
    const figures = await crashAndRecover(['--postgres', databaseUrl], {
      KEYHOLD_MASTER_KEY: randomBytes(32).toString('hex'),
    });
    console.log('crash safety (Postgres):', JSON.stringify(figures));
  }, 60_000);
});
