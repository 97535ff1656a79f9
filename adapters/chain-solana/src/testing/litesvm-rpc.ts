/**
 * Test-only: a Solana JSON-RPC endpoint on 127.0.0.1 backed by LiteSVM (a real SVM in-process),
 * answering the methods `createKitSolanaSendChain` calls — getGenesisHash, getLatestBlockhash,
 * simulateTransaction, sendTransaction (with its preflight), getSignatureStatuses — as a
 * validator does, so the adapter's requests and its reading of the answers are what is tested.
 * LiteSVM has no consensus: a transaction it executes is `finalized` at once. Its genesis hash
 * is devnet's unless told otherwise (the cluster the endpoint says it is).
 * @module
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type Address,
  getBase58Decoder,
  getBase64Encoder,
  getTransactionDecoder,
  type Lamports,
  lamports,
  type Signature,
  type Transaction,
} from '@solana/kit';
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm';

/** Devnet's genesis hash: `solana:devnet` is `solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1`. */
export const DEVNET_GENESIS_HASH = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG';

/** A running endpoint: its URL, the SVM behind it, and what the tests do to it. */
export interface LiteSvmRpc {
  readonly url: string;
  readonly svm: LiteSVM;
  /** Gives `address` lamports (LiteSVM's airdrop). */
  airdrop(address: string, amount: bigint): void;
  /** The balance of `address`, lamports (0 for an account that does not exist). */
  balance(address: string): bigint;
  /** The transactions sendTransaction executed, by signature. */
  readonly executed: string[];
  /** Counts of requests by method. */
  readonly calls: Map<string, number>;
  /**
   * How many of the next sends to accept and lose, as a cluster does when the leader drops a
   * transaction: the signature is answered, nothing is executed.
   */
  dropSends: number;
  stop(): Promise<void>;
}

const base64 = getBase64Encoder();
const base58 = getBase58Decoder();
const transactionDecoder = getTransactionDecoder();

/** A runtime error in the validator's JSON form (`"BlockhashNotFound"`, `{"InstructionError": …}`). */
function errorJson(failed: FailedTransactionMetadata): unknown {
  const text = failed.toString();
  const err = failed.err() as unknown;
  if (typeof err === 'object' && err !== null && 'index' in err && 'err' in err) {
    const inner = (err as { err(): unknown }).err();
    const name = /InstructionError\(\s*\d+,\s*(\w+)/.exec(text)?.[1] ?? 'GenericError';
    const code = (inner as { code?: number } | null)?.code;
    return {
      InstructionError: [
        (err as { index: number }).index,
        code !== undefined ? { Custom: code } : name,
      ],
    };
  }
  if (typeof err === 'object' && err !== null && 'accountIndex' in err) {
    const name = /err: (\w+)/.exec(text)?.[1] ?? 'InsufficientFundsForRent';
    return { [name]: { account_index: (err as { accountIndex: number }).accountIndex } };
  }
  return /err: (\w+)/.exec(text)?.[1] ?? 'UnknownError';
}

function decode(wire: string): Transaction {
  return transactionDecoder.decode(base64.encode(wire)) as Transaction;
}

function signatureOf(transaction: Transaction): string {
  const first = Object.values(transaction.signatures)[0];
  return base58.decode(first ?? new Uint8Array(64));
}

/**
 * Starts the endpoint on a free port of 127.0.0.1.
 * @example
 * const rpc = await startLiteSvmRpc();
 * rpc.airdrop(address, 2_000_000_000n);
 */
export async function startLiteSvmRpc(options: { genesisHash?: string } = {}): Promise<LiteSvmRpc> {
  const svm = new LiteSVM();
  const genesisHash = options.genesisHash ?? DEVNET_GENESIS_HASH;
  const executed: string[] = [];
  const calls = new Map<string, number>();
  const slot = () => Number(svm.getClock().slot);
  const history = (signature: string) => svm.getTransaction(signature as Signature);

  const endpoint: { -readonly [K in keyof LiteSvmRpc]: LiteSvmRpc[K] } = {
    url: '',
    svm,
    airdrop(address, amount) {
      const outcome = svm.airdrop(address as Address, lamports(amount) as Lamports);
      if (!outcome || outcome instanceof FailedTransactionMetadata) {
        throw new Error(`airdrop to ${address} failed`);
      }
    },
    balance: (address) => svm.getBalance(address as Address) ?? 0n,
    executed,
    calls,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    dropSends: 0,
  };

  const methods: Record<string, (params: unknown[]) => unknown> = {
    getGenesisHash: () => genesisHash,
    getLatestBlockhash: () => ({
      context: { slot: slot() },
      value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: slot() + 150 },
    }),
    simulateTransaction: ([wire]) => {
      const outcome = svm.simulateTransaction(decode(String(wire)));
      const failed = outcome instanceof FailedTransactionMetadata;
      const meta = outcome.meta();
      return {
        context: { slot: slot() },
        value: {
          err: failed ? errorJson(outcome) : null,
          logs: meta.logs(),
          accounts: null,
          unitsConsumed: Number(meta.computeUnitsConsumed()),
          returnData: null,
        },
      };
    },
    sendTransaction: ([wire]) => {
      const transaction = decode(String(wire));
      const signature = signatureOf(transaction);
      // The preflight: what would fail is refused, and nothing is executed.
      const preflight = history(signature)
        ? 'AlreadyProcessed'
        : (() => {
            const outcome = svm.simulateTransaction(transaction);
            return outcome instanceof FailedTransactionMetadata ? errorJson(outcome) : undefined;
          })();
      if (preflight !== undefined) {
        throw Object.assign(new Error('Transaction simulation failed'), {
          rpc: {
            code: -32002,
            message: `Transaction simulation failed: ${JSON.stringify(preflight)}`,
            data: { err: preflight, logs: [], accounts: null, unitsConsumed: 0 },
          },
        });
      }
      if (endpoint.dropSends > 0) {
        endpoint.dropSends -= 1;
        return signature;
      }
      const outcome = svm.sendTransaction(transaction);
      if (!(outcome instanceof FailedTransactionMetadata)) executed.push(signature);
      return signature;
    },
    getSignatureStatuses: ([signatures]) => ({
      context: { slot: slot() },
      value: (signatures as string[]).map((signature) => {
        const found: TransactionMetadata | FailedTransactionMetadata | null = history(signature);
        if (!found) return null;
        const err = found instanceof FailedTransactionMetadata ? errorJson(found) : null;
        return {
          slot: slot(),
          confirmations: null,
          err,
          status: err === null ? { Ok: null } : { Err: err },
          confirmationStatus: 'finalized',
        };
      }),
    }),
  };

  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      let id: unknown = null;
      let answer: Record<string, unknown>;
      try {
        const call = JSON.parse(body) as { id: unknown; method: string; params?: unknown[] };
        id = call.id;
        calls.set(call.method, (calls.get(call.method) ?? 0) + 1);
        const method = methods[call.method];
        answer = method
          ? { result: method(call.params ?? []) }
          : { error: { code: -32601, message: 'Method not found' } };
      } catch (error) {
        const rpc = (error as { rpc?: Record<string, unknown> }).rpc;
        answer = { error: rpc ?? { code: -32603, message: String(error) } };
      }
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ jsonrpc: '2.0', id, ...answer }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  endpoint.url = `http://127.0.0.1:${port}`;
  return endpoint;
}
