/**
 * SOL_SEND_TRANSACTION end to end, offline: a Solana JSON-RPC endpoint on 127.0.0.1 backed by
 * LiteSVM (a real SVM; `@keyhold/chain-solana`'s test fixture), Keyhold serving with
 * `solanaRpc` (what `keyhold serve --solana-rpc URL` sets), and `@turnkey/sdk-server`
 * (solSendTransaction V2, getSendTransactionStatus) first; raw stamped bodies for the V1 intent
 * and to read a refusal's exact Status. Transactions are built with `@solana/kit`, and every
 * transfer is checked on the SVM: it moved once, or not at all.
 */
import { type SolanaSendChain, sendTransactionChainsOf } from '@keyhold/activities';
import { createKitSolanaSendChain } from '@keyhold/chain-solana';
import { type MessageKey, Messages } from '@keyhold/protocol';
import { generateApiKeyPair } from '@keyhold/server';
import { MemoryStore } from '@keyhold/store-memory';
import { bytesToHex } from '@noble/hashes/utils.js';
import { generateKeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type LiteSvmRpc,
  startLiteSvmRpc,
} from '../../../adapters/chain-solana/src/testing/litesvm-rpc.js';
import { unsignedSystemTransfer } from '../../../adapters/chain-solana/src/testing/system-transfer.js';
import {
  createApiKeyUser,
  errorCodeOf,
  type StampedAnswer,
  sdkClient,
  stampedPost,
} from '../../server/src/__fixtures__/turnkey-server.js';
import { runServeCommand } from './serve-command.js';
import { type RunningServer, startServer } from './start-server.js';

const DEVNET = 'solana:devnet';
/** The all-zero blockhash a client leaves for the sender to fill. */
const PLACEHOLDER_BLOCKHASH = '11111111111111111111111111111111';
/** Above the rent-exempt minimum of an empty account (890 880 lamports). */
const AMOUNT = 1_000_000n;
const SOL = 1_000_000_000n;

let rpc: LiteSvmRpc;
let server: RunningServer;
const root = generateApiKeyPair();

const sdk = (key = root, target: RunningServer = server) =>
  sdkClient(target.url, target.organizationId!, key);

/** A stamped POST to `target`; the status, headers and JSON body. */
const post = (path: string, body: unknown, key = root, target: RunningServer = server) =>
  stampedPost(target.url, path, body, key);

/** Submits a SOL_SEND_TRANSACTION body (V2 unless told); `timestampMs` fixed when given. */
function submit(
  parameters: Record<string, unknown>,
  options: { version?: 1 | 2; timestampMs?: string; target?: RunningServer } = {},
) {
  const target = options.target ?? server;
  return post(
    '/public/v1/submit/sol_send_transaction',
    {
      type:
        options.version === 1
          ? 'ACTIVITY_TYPE_SOL_SEND_TRANSACTION'
          : 'ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2',
      timestampMs: options.timestampMs ?? String(Date.now()),
      organizationId: target.organizationId,
      parameters,
    },
    root,
    target,
  );
}

/** The refusal is the catalogue's entry: its errorCode and its exact message. */
function expectRefusal(json: StampedAnswer['json'], key: MessageKey) {
  expect([errorCodeOf(json), json.message]).toEqual([
    Messages[key].errorCode,
    Messages[key].message,
  ]);
}

async function activityCount(target: RunningServer = server): Promise<number> {
  const { activities } = await sdk(root, target).getActivities({});
  return activities.length;
}

/** A new Solana wallet account of the organization; its address. */
async function newAccount(name: string, target: RunningServer = server): Promise<string> {
  const { addresses } = await sdk(root, target).createWallet({
    walletName: name,
    accounts: [
      {
        curve: 'CURVE_ED25519',
        pathFormat: 'PATH_FORMAT_BIP32',
        path: "m/44'/501'/0'/0'",
        addressFormat: 'ADDRESS_FORMAT_SOLANA',
      },
    ],
  });
  return addresses[0]!;
}

const newAddress = async () => (await generateKeyPairSigner()).address as string;

/** An unsigned System Program transfer (see `unsignedSystemTransfer`). */
const transfer = (from: string, to: string, lamports: bigint, blockhash: string, feePayer = from) =>
  unsignedSystemTransfer({ from, to, lamports, blockhash, feePayer });

const hexOf = (bytes: Uint8Array) => bytesToHex(bytes);
const base64Of = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

let sender: string;

beforeAll(async () => {
  rpc = await startLiteSvmRpc();
  server = await startServer({
    port: 0,
    store: new MemoryStore(),
    bootstrapApiPublicKey: root.publicKey,
    webhookIntervalMs: 0,
    solanaRpc: rpc.url,
  });
  sender = await newAccount('sender');
  rpc.airdrop(sender, 10n * SOL);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await rpc?.stop();
});

describe('SOL_SEND_TRANSACTION', () => {
  it('sdk-server solSendTransaction (V2) signs with the wallet account and sends once; the status reads INCLUDED', async () => {
    const payee = await newAddress();
    const before = rpc.balance(sender);
    const sent = rpc.executed.length;
    const { sendTransactionStatusId } = await sdk().solSendTransaction({
      unsignedTransaction: hexOf(transfer(sender, payee, AMOUNT, rpc.svm.latestBlockhash())),
      signWiths: [sender],
      caip2: DEVNET,
    });
    const status = await sdk().getSendTransactionStatus({ sendTransactionStatusId });
    expect(status.txStatus).toBe('INCLUDED');
    expect(rpc.executed.slice(sent)).toEqual([status.solana!.signature]);
    expect(rpc.balance(payee)).toBe(AMOUNT);
    // The amount and the fee (5000 lamports a signature), from the sender.
    expect(rpc.balance(sender)).toBe(before - AMOUNT - 5000n);
  });

  it('V1 (base64, one signWith): recentBlockhash fills the placeholder; the same body twice is one activity and one transaction', async () => {
    const payee = await newAddress();
    const sent = rpc.executed.length;
    const timestampMs = String(Date.now());
    const parameters = {
      unsignedTransaction: base64Of(transfer(sender, payee, AMOUNT, PLACEHOLDER_BLOCKHASH)),
      signWith: sender,
      caip2: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
      recentBlockhash: rpc.svm.latestBlockhash(),
    };
    const first = await submit(parameters, { version: 1, timestampMs });
    const second = await submit(parameters, { version: 1, timestampMs });
    expect(first.status).toBe(200);
    expect(first.json.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(second.json.activity.id).toBe(first.json.activity.id);
    const { sendTransactionStatusId } = first.json.activity.result.solSendTransactionResult;
    expect(sendTransactionStatusId).toMatch(/^[0-9a-f-]{36}$/);
    expect(rpc.executed.length).toBe(sent + 1);
    expect(rpc.balance(payee)).toBe(AMOUNT);
  });

  it('a placeholder blockhash without recentBlockhash gets the cluster latest one (getLatestBlockhash)', async () => {
    const payee = await newAddress();
    const asked = rpc.calls.get('getLatestBlockhash') ?? 0;
    const { sendTransactionStatusId } = await sdk().solSendTransaction({
      unsignedTransaction: hexOf(transfer(sender, payee, AMOUNT, PLACEHOLDER_BLOCKHASH)),
      signWiths: [sender],
      caip2: DEVNET,
    });
    expect(rpc.calls.get('getLatestBlockhash')).toBe(asked + 1);
    expect((await sdk().getSendTransactionStatus({ sendTransactionStatusId })).txStatus).toBe(
      'INCLUDED',
    );
    expect(rpc.balance(payee)).toBe(AMOUNT);
  });

  it('is decided by the policies on solana.tx and the wallet account: a denied send stores nothing and moves nothing', async () => {
    const allowed = await newAddress();
    const denied = await newAddress();
    const bobKey = generateApiKeyPair();
    await createApiKeyUser(sdk(), 'bob', bobKey);
    await sdk().createPolicy({
      policyName: 'bob sends SOL from the sender to one address',
      effect: 'EFFECT_ALLOW',
      condition: `activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN' && activity.params.caip2 == '${DEVNET}' && wallet_account.address == '${sender}' && solana.tx.transfers.all(t, t.to in ['${allowed}', '${denied}'])`,
      notes: '',
    });
    await sdk().createPolicy({
      policyName: 'never to the denied address',
      effect: 'EFFECT_DENY',
      condition: `solana.tx.transfers.count == 1 && solana.tx.transfers[0].to == '${denied}'`,
      notes: '',
    });
    const bob = sdk(bobKey);
    await bob.solSendTransaction({
      unsignedTransaction: hexOf(transfer(sender, allowed, AMOUNT, rpc.svm.latestBlockhash())),
      signWiths: [sender],
      caip2: DEVNET,
    });
    expect(rpc.balance(allowed)).toBe(AMOUNT);

    const activities = await activityCount();
    const sent = rpc.executed.length;
    const simulated = rpc.calls.get('simulateTransaction') ?? 0;
    await expect(
      bob.solSendTransaction({
        unsignedTransaction: hexOf(transfer(sender, denied, AMOUNT, rpc.svm.latestBlockhash())),
        signWiths: [sender],
        caip2: DEVNET,
      }),
    ).rejects.toThrow(/policy engine denied request explicitly/);
    expect(rpc.balance(denied)).toBe(0n);
    expect(rpc.executed.length).toBe(sent);
    // Refused before anything was signed: the chain was not even asked.
    expect(rpc.calls.get('simulateTransaction') ?? 0).toBe(simulated);
    expect(await activityCount()).toBe(activities);
  });

  it('V2 signs with every key of signWiths: one account pays the fee, another the amount', async () => {
    const payer = await newAccount('fee payer');
    rpc.airdrop(payer, SOL);
    const payee = await newAddress();
    const before = { payer: rpc.balance(payer), sender: rpc.balance(sender) };
    const { sendTransactionStatusId } = await sdk().solSendTransaction({
      unsignedTransaction: hexOf(transfer(sender, payee, AMOUNT, rpc.svm.latestBlockhash(), payer)),
      signWiths: [payer, sender],
      caip2: DEVNET,
    });
    expect((await sdk().getSendTransactionStatus({ sendTransactionStatusId })).txStatus).toBe(
      'INCLUDED',
    );
    expect(rpc.balance(payee)).toBe(AMOUNT);
    expect(rpc.balance(sender)).toBe(before.sender - AMOUNT);
    expect(rpc.balance(payer)).toBe(before.payer - 10_000n); // two signatures
  });

  it('waits for consensus like any activity: sent only once the root user approves', async () => {
    const payee = await newAddress();
    const carolKey = generateApiKeyPair();
    await createApiKeyUser(sdk(), 'carol', carolKey);
    await sdk().createPolicy({
      policyName: 'carol pays with root approval',
      effect: 'EFFECT_ALLOW',
      condition: `solana.tx.transfers.count == 1 && solana.tx.transfers[0].to == '${payee}'`,
      consensus: `approvers.any(user, user.id == '${server.userId}')`,
      notes: '',
    });
    const sent = rpc.executed.length;
    const body = {
      type: 'ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2',
      timestampMs: String(Date.now()),
      organizationId: server.organizationId,
      parameters: {
        unsignedTransaction: hexOf(transfer(sender, payee, AMOUNT, rpc.svm.latestBlockhash())),
        signWiths: [sender],
        caip2: DEVNET,
      },
    };
    const parked = await post('/public/v1/submit/sol_send_transaction', body, carolKey);
    expect(parked.json.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    expect(rpc.executed.length).toBe(sent);
    const approved = await sdk().approveActivity({ fingerprint: parked.json.activity.fingerprint });
    expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(rpc.executed.length).toBe(sent + 1);
    expect(rpc.balance(payee)).toBe(AMOUNT);
  });

  it('refuses bad input with the catalogue message, stores nothing and sends nothing', async () => {
    const payee = await newAddress();
    const unfunded = await newAccount('unfunded');
    const stranger = await newAccount('stranger');
    const good = () => hexOf(transfer(sender, payee, AMOUNT, rpc.svm.latestBlockhash()));
    const activities = await activityCount();
    const sent = rpc.executed.length;

    const cases: [Record<string, unknown>, MessageKey, number][] = [
      [
        { unsignedTransaction: good(), signWiths: [sender], caip2: 'solana:testnet' },
        'SOLANA_NETWORK_UNSUPPORTED',
        400,
      ],
      [
        { unsignedTransaction: 'zz', signWiths: [sender], caip2: DEVNET },
        'INVALID_TRANSACTION',
        400,
      ],
      [
        { unsignedTransaction: 'deadbeef', signWiths: [sender], caip2: DEVNET },
        'INVALID_TRANSACTION',
        400,
      ],
      [
        { unsignedTransaction: good(), signWiths: [sender], caip2: DEVNET, sponsor: true },
        'SOLANA_SPONSORSHIP_UNSUPPORTED',
        400,
      ],
      [
        {
          unsignedTransaction: good(),
          signWiths: [sender],
          caip2: DEVNET,
          recentBlockhash: 'not-base58!',
        },
        'INVALID_TRANSACTION',
        400,
      ],
      // The endpoint's genesis hash is devnet's.
      [
        { unsignedTransaction: good(), signWiths: [sender], caip2: 'solana:mainnet' },
        'SOLANA_RPC_NOT_CONFIGURED',
        400,
      ],
      [
        { unsignedTransaction: good(), signWiths: [stranger], caip2: DEVNET },
        'SIGNER_NOT_IN_TRANSACTION',
        400,
      ],
      // The fee payer signs; `from`, a required signer too, is not named.
      [
        {
          unsignedTransaction: hexOf(
            transfer(await newAddress(), payee, AMOUNT, rpc.svm.latestBlockhash(), sender),
          ),
          signWiths: [sender],
          caip2: DEVNET,
        },
        'SOLANA_SIGNATURES_MISSING',
        400,
      ],
      // Nothing to pay the fee with: the simulation refuses it.
      [
        {
          unsignedTransaction: hexOf(transfer(unfunded, payee, AMOUNT, rpc.svm.latestBlockhash())),
          signWiths: [unfunded],
          caip2: DEVNET,
        },
        'TRANSACTION_REJECTED',
        400,
      ],
    ];
    for (const [parameters, key, status] of cases) {
      const refused = await submit(parameters);
      expect(refused.status, key).toBe(status);
      expectRefusal(refused.json, key);
    }
    // V1's transaction is base64.
    const v1 = await submit(
      { unsignedTransaction: good(), signWith: sender, caip2: DEVNET },
      { version: 1 },
    );
    expectRefusal(v1.json, 'INVALID_TRANSACTION');
    expect(await activityCount()).toBe(activities);
    expect(rpc.executed.length).toBe(sent);
    expect(rpc.balance(payee)).toBe(0n);
  });

  it('an unknown status id is SEND_TRANSACTION_STATUS_NOT_FOUND', async () => {
    const missing = await post('/public/v1/query/get_send_transaction_status', {
      organizationId: server.organizationId,
      sendTransactionStatusId: '00000000-0000-4000-8000-000000000000',
    });
    expect(missing.status).toBe(404);
    expectRefusal(missing.json, 'SEND_TRANSACTION_STATUS_NOT_FOUND');
  });
});

describe('a send cut short after the commit', () => {
  it('is repeated by the status query with the same bytes: one transaction on the chain', async () => {
    const faults = { dropNextSend: false };
    const real = createKitSolanaSendChain(rpc.url);
    const chain: SolanaSendChain = {
      ...real,
      async sendTransaction(wire) {
        if (faults.dropNextSend) {
          faults.dropNextSend = false;
          throw new Error('the process died before the send');
        }
        return real.sendTransaction(wire);
      },
    };
    const faulty = await startServer({
      port: 0,
      store: new MemoryStore(),
      bootstrapApiPublicKey: root.publicKey,
      webhookIntervalMs: 0,
      sendTransaction: { chains: sendTransactionChainsOf(new Map(), chain) },
    });
    try {
      const from = await newAccount('sender', faulty);
      rpc.airdrop(from, SOL);
      const payee = await newAddress();
      const sent = rpc.executed.length;
      faults.dropNextSend = true;
      const { sendTransactionStatusId } = await sdk(root, faulty).solSendTransaction({
        unsignedTransaction: hexOf(transfer(from, payee, AMOUNT, rpc.svm.latestBlockhash())),
        signWiths: [from],
        caip2: DEVNET,
      });
      expect(rpc.executed.length).toBe(sent);
      const resent = await sdk(root, faulty).getSendTransactionStatus({ sendTransactionStatusId });
      expect(resent.txStatus).toBe('BROADCASTED');
      const included = await sdk(root, faulty).getSendTransactionStatus({
        sendTransactionStatusId,
      });
      expect(included.txStatus).toBe('INCLUDED');
      expect(included.solana!.signature).toBe(resent.solana!.signature);
      expect(rpc.executed.slice(sent)).toEqual([included.solana!.signature]);
      expect(rpc.balance(payee)).toBe(AMOUNT);
    } finally {
      await faulty.close();
    }
  });
});

describe('the Solana endpoint down', () => {
  it('answers SOLANA_CHAIN_UNAVAILABLE, 503 with Retry-After, never 500: the status query, and a send that stores nothing', async () => {
    const cluster = await startLiteSvmRpc();
    const served = await startServer({
      port: 0,
      store: new MemoryStore(),
      bootstrapApiPublicKey: root.publicKey,
      webhookIntervalMs: 0,
      solanaRpc: cluster.url,
    });
    try {
      const from = await newAccount('sender', served);
      cluster.airdrop(from, SOL);
      const payee = await newAddress();
      const { sendTransactionStatusId } = await sdk(root, served).solSendTransaction({
        unsignedTransaction: hexOf(transfer(from, payee, AMOUNT, cluster.svm.latestBlockhash())),
        signWiths: [from],
        caip2: DEVNET,
      });
      expect(cluster.balance(payee)).toBe(AMOUNT);
      const blockhash = cluster.svm.latestBlockhash();
      await cluster.stop();

      const status = await post(
        '/public/v1/query/get_send_transaction_status',
        { organizationId: served.organizationId, sendTransactionStatusId },
        root,
        served,
      );
      expect(status.status).toBe(503);
      expectRefusal(status.json, 'SOLANA_CHAIN_UNAVAILABLE');
      expect(status.headers.get('retry-after')).toBeTruthy();

      const activities = await activityCount(served);
      const refused = await submit(
        {
          unsignedTransaction: hexOf(transfer(from, payee, AMOUNT, blockhash)),
          signWiths: [from],
          caip2: DEVNET,
        },
        { target: served },
      );
      expect(refused.status).toBe(503);
      expectRefusal(refused.json, 'SOLANA_CHAIN_UNAVAILABLE');
      expect(refused.headers.get('retry-after')).toBeTruthy();
      expect(await activityCount(served)).toBe(activities);
    } finally {
      await served.close();
      await cluster.stop().catch(() => undefined);
    }
  });

  it('an endpoint never reached (the genesis hash unknown) is the same 503', async () => {
    const gone = await startLiteSvmRpc();
    await gone.stop();
    const down = await startServer({
      port: 0,
      store: new MemoryStore(),
      bootstrapApiPublicKey: root.publicKey,
      webhookIntervalMs: 0,
      solanaRpc: gone.url,
    });
    try {
      const from = await newAccount('sender', down);
      const activities = await activityCount(down);
      const refused = await submit(
        {
          unsignedTransaction: hexOf(
            transfer(from, await newAddress(), AMOUNT, rpc.svm.latestBlockhash()),
          ),
          signWiths: [from],
          caip2: DEVNET,
        },
        { target: down },
      );
      expect(refused.status).toBe(503);
      expectRefusal(refused.json, 'SOLANA_CHAIN_UNAVAILABLE');
      expect(refused.headers.get('retry-after')).toBeTruthy();
      expect(await activityCount(down)).toBe(activities);
    } finally {
      await down.close();
    }
  });
});

describe('keyhold serve --solana-rpc', () => {
  it('refuses a URL that is not http(s), from the flag and from KEYHOLD_SOLANA_RPC', async () => {
    const stderr: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => {
      stderr.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      expect(await runServeCommand(['--memory', '--solana-rpc', 'ftp://x'])).toBe(2);
      process.env.KEYHOLD_SOLANA_RPC = 'not a url';
      expect(await runServeCommand(['--memory'])).toBe(2);
    } finally {
      delete process.env.KEYHOLD_SOLANA_RPC;
      process.stderr.write = write;
    }
    expect(stderr.join('').match(/--solana-rpc must be an http\(s\) URL/g)).toHaveLength(2);
  });
});
