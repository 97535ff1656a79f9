/**
 * SOL_SEND_TRANSACTION on a Solana cluster (`keyhold serve --solana-rpc URL`): the intent's
 * unsigned transaction (V1 base64 with one `signWith`, V2 hex with `signWiths`) is signed by
 * the organization's Ed25519 keys exactly as SIGN_TRANSACTION signs a TRANSACTION_TYPE_SOLANA
 * (`signTransaction` of `@keyhold/keys`, through the KeyVault), stored, and sent once the
 * activity has committed; result `{sendTransactionStatusId}`, whose status
 * `get_send_transaction_status` reads from the cluster (`{txStatus, solana: {signature}}`).
 *
 * Decided by the policies like SIGN_TRANSACTION: `activity.resource` PRIVATE_KEY, `action`
 * SIGN, `solana.tx` the transaction (with the intent's `recentBlockhash` in it), and the
 * signer's `wallet_account`, `wallet` or `private_key`.
 *
 * The blockhash: the intent's `recentBlockhash` when given; else the transaction's own; a
 * transaction whose blockhash is the zero placeholder gets the cluster's latest (after the
 * decision: policies read the placeholder then).
 *
 * What is wrong before anything is stored refuses the request: a network outside the wire's
 * (SOLANA_NETWORK_UNSUPPORTED), no endpoint for it — or one serving another cluster, by its
 * genesis hash — (SOLANA_RPC_NOT_CONFIGURED), an endpoint that does not answer
 * (SOLANA_CHAIN_UNAVAILABLE, 503 with Retry-After), `sponsor: true`
 * (SOLANA_SPONSORSHIP_UNSUPPORTED: Keyhold has no Solana fee payer to offer), a required signer
 * not in the intent (SOLANA_SIGNATURES_MISSING), and a transaction the cluster's simulation
 * refuses — too little SOL, an expired blockhash, a failing instruction — (TRANSACTION_REJECTED
 * with the runtime's error in `details`).
 *
 * Never two transactions for one activity: the same body is the same activity, the signed
 * bytes are stored before they leave, and Ed25519 signatures are deterministic — a send cut
 * short after the commit is repeated by the status query with the stored bytes, the same
 * signature, which the cluster executes at most once.
 * @module
 */
import {
  hasPlaceholderBlockhash,
  parseTransaction,
  signedSolanaTransaction,
  signTransaction,
  solanaSendUnsignedTransaction,
} from '@keyhold/keys';
import { KeyholdError } from '@keyhold/protocol';
import { hexToBytes } from '@noble/hashes/utils.js';
import type { SendTransactionChains } from '../ports/evm-send-chain.js';
import {
  isSolanaChainUnavailable,
  type SolanaSendChain,
  SolanaTransactionRefusedError,
} from '../ports/solana-send-chain.js';
import type { SendTransactionRecord } from '../records.js';
import type { HandlerOf } from './activity-handler.js';
import { refusingHandler } from './execution-refusal.js';
import { resolveSigner } from './resolve-signer.js';
import { storeThenSend } from './stored-send.js';

const SOLANA = 'TRANSACTION_TYPE_SOLANA';

const MAINNET = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
const DEVNET = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1';
/**
 * The CAIP-2 reference (the genesis hash's first 32 characters) of each Solana `caip2` of the
 * wire's enum: by alias, by reference, by the whole genesis hash.
 */
const SOLANA_NETWORKS: ReadonlyMap<string, string> = new Map([
  ['solana:mainnet', MAINNET],
  [`solana:${MAINNET}`, MAINNET],
  ['solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d', MAINNET],
  ['solana:devnet', DEVNET],
  [`solana:${DEVNET}`, DEVNET],
  ['solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG', DEVNET],
]);

/**
 * The canonical CAIP-2 id of a Solana network of the wire's enum (`solana:devnet` →
 * `solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1`); anything else is SOLANA_NETWORK_UNSUPPORTED.
 * @example
 * canonicalSolanaCaip2('solana:mainnet'); // 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
 */
export function canonicalSolanaCaip2(caip2: string): string {
  const reference = SOLANA_NETWORKS.get(caip2);
  if (!reference) throw new KeyholdError('SOLANA_NETWORK_UNSUPPORTED', { caip2 });
  return `solana:${reference}`;
}

/**
 * Runs a Solana chain request; its failures become the catalogue's refusals (see `solanaRefusal`).
 * @example
 * const { blockhash } = await onSolana(() => chain.getLatestBlockhash());
 */
export async function onSolana<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw solanaRefusal(error);
  }
}

/**
 * The KeyholdError of a Solana chain failure: SOLANA_CHAIN_UNAVAILABLE (503) or
 * TRANSACTION_REJECTED with the node's words; anything else unchanged.
 * @example
 * throw solanaRefusal(error);
 */
export function solanaRefusal(error: unknown): unknown {
  if (isSolanaChainUnavailable(error)) {
    return new KeyholdError('SOLANA_CHAIN_UNAVAILABLE', {
      reason: error instanceof Error ? error.message : String(error),
    });
  }
  if (SolanaTransactionRefusedError.is(error)) {
    return new KeyholdError('TRANSACTION_REJECTED', { reason: error.detail });
  }
  return error;
}

/**
 * The cluster's chain for `caip2`, checked by its genesis hash; SOLANA_NETWORK_UNSUPPORTED,
 * SOLANA_RPC_NOT_CONFIGURED or SOLANA_CHAIN_UNAVAILABLE.
 * @example
 * const chain = await solanaChainOf(ctx.chains, 'solana:devnet');
 */
export async function solanaChainOf(
  chains: SendTransactionChains,
  caip2: string,
): Promise<SolanaSendChain> {
  const canonical = canonicalSolanaCaip2(caip2);
  const chain = chains.solana(canonical);
  if (!chain) throw new KeyholdError('SOLANA_RPC_NOT_CONFIGURED', { caip2 });
  const genesisHash = await onSolana(() => chain.getGenesisHash());
  if (!genesisHash.startsWith(canonical.slice('solana:'.length))) {
    throw new KeyholdError('SOLANA_RPC_NOT_CONFIGURED', {
      caip2,
      reason: `the endpoint serves the cluster whose genesis hash is ${genesisHash}`,
    });
  }
  return chain;
}

/**
 * The unsigned transaction of either version of the intent, as hex, with its `recentBlockhash`.
 * @example
 * solSendUnsignedTransaction({ unsignedTransaction: 'AQAB…', signWith, caip2 }); // '0100…'
 */
export function solSendUnsignedTransaction(p: {
  readonly unsignedTransaction: string;
  readonly signWiths?: readonly string[];
  readonly recentBlockhash?: string;
}): string {
  return solanaSendUnsignedTransaction({
    unsignedTransaction: p.unsignedTransaction,
    // V2 names its signers `signWiths` and gives the transaction in hex; V1 in base64.
    encoding: p.signWiths === undefined ? 'base64' : 'hex',
    ...(p.recentBlockhash !== undefined ? { recentBlockhash: p.recentBlockhash } : {}),
  });
}

/**
 * Sends a stored transaction unless the cluster knows it already: the same bytes every time.
 * @example
 * await sendSolanaRecord(chain, record);
 */
export async function sendSolanaRecord(
  chain: SolanaSendChain,
  record: SendTransactionRecord,
): Promise<void> {
  if (await chain.getSignatureStatus(record.txHash)) return;
  try {
    await chain.sendTransaction(signedSolanaTransaction(record.signedTransaction).wireBase64);
  } catch (error) {
    if (SolanaTransactionRefusedError.is(error) && error.alreadyProcessed) return;
    throw error;
  }
}

/**
 * get_send_transaction_status of a SOL_SEND_TRANSACTION: `INCLUDED` once the cluster has
 * confirmed it without error, `FAILED` (`txError`, `error.message`) when it ran and failed or
 * the node refuses it, `BROADCASTED` otherwise. A transaction the cluster does not know (the
 * send after the commit was cut short) is sent again here: the stored bytes.
 * @example
 * await solanaSendTransactionStatus(chain, record); // { txStatus: 'INCLUDED', solana: { signature } }
 */
export async function solanaSendTransactionStatus(
  chain: SolanaSendChain,
  record: SendTransactionRecord,
): Promise<Record<string, unknown>> {
  const solana = { signature: record.txHash };
  const failed = (message: string) => ({
    txStatus: 'FAILED',
    solana,
    txError: message,
    error: { message, revertChain: [] },
  });
  const status = await onSolana(() => chain.getSignatureStatus(record.txHash));
  if (status?.err !== undefined) return failed(`the transaction failed: ${status.err}`);
  if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') {
    return { txStatus: 'INCLUDED', solana };
  }
  if (!status) {
    try {
      await sendSolanaRecord(chain, record);
    } catch (error) {
      if (SolanaTransactionRefusedError.is(error)) {
        return failed(`the chain refused the transaction: ${error.detail}`);
      }
      throw solanaRefusal(error);
    }
  }
  return { txStatus: 'BROADCASTED', solana };
}

export const solSendTransactionHandler: HandlerOf<'SOL_SEND_TRANSACTION'> = refusingHandler({
  precheck(p) {
    canonicalSolanaCaip2(p.caip2);
    if (p.sponsor === true) throw new KeyholdError('SOLANA_SPONSORSHIP_UNSUPPORTED');
    parseTransaction(SOLANA, solSendUnsignedTransaction(p));
  },

  async execute(ctx, p) {
    const chain = await solanaChainOf(ctx.chains, p.caip2);
    let transaction = solSendUnsignedTransaction(p);
    const parsed = ctx.scope.transaction(SOLANA, transaction);
    if (parsed.chain === 'solana' && hasPlaceholderBlockhash(parsed)) {
      const { blockhash } = await onSolana(() => chain.getLatestBlockhash());
      transaction = solanaSendUnsignedTransaction({
        unsignedTransaction: transaction,
        encoding: 'hex',
        recentBlockhash: blockhash,
      });
    }
    // Each signer signs its slot, as SIGN_TRANSACTION would; the other slots stay as they are.
    const signWiths = 'signWiths' in p ? p.signWiths : [p.signWith];
    const { vault } = ctx;
    for (const signWith of new Set(signWiths)) {
      const signer = await resolveSigner(ctx.scope, signWith);
      ({ signedTransaction: transaction } = await signTransaction({
        type: SOLANA,
        unsignedTransaction: transaction,
        parsed: parseTransaction(SOLANA, transaction),
        curve: signer.curve,
        publicKey: hexToBytes(signer.publicKey),
        sign: (message) => vault.sign(signer.key, signer.curve, message),
      }));
    }
    const signed = signedSolanaTransaction(transaction);
    if (signed.unsigned.length > 0) {
      throw new KeyholdError('SOLANA_SIGNATURES_MISSING', { signers: signed.unsigned });
    }
    // What the cluster would refuse refuses the request: nothing is stored or sent.
    const simulation = await onSolana(() => chain.simulateTransaction(signed.wireBase64));
    if (simulation.err !== undefined) {
      throw new KeyholdError('TRANSACTION_REJECTED', {
        reason: simulation.err,
        logs: simulation.logs.slice(-10),
      });
    }
    return storeThenSend(
      ctx,
      {
        caip2: canonicalSolanaCaip2(p.caip2),
        fromAddress: signed.feePayer,
        txHash: signed.signature,
        signedTransaction: signed.hex,
      },
      'send the signed Solana transaction',
      (record) => sendSolanaRecord(chain, record),
    );
  },
});
