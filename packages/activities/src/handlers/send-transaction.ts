/**
 * The send-transaction activities on an EVM chain (`keyhold serve --evm-rpc`):
 *
 * - ETH_SEND_RAW_TRANSACTION broadcasts a signed transaction as it is; result `{transactionHash}`.
 * - ETH_SEND_TRANSACTION builds an EIP-1559 transaction from its intent (the nonce, fees and gas
 *   the intent leaves out are asked of the chain), signs it with the organization's wallet
 *   account or private key named by `from` (through the KeyVault, as SIGN_TRANSACTION does),
 *   stores it, and broadcasts it once the activity has committed; result
 *   `{sendTransactionStatusId}`, whose status `get_send_transaction_status` reads from the chain.
 *
 * Both are decided by the policies like SIGN_TRANSACTION: `activity.resource` PRIVATE_KEY,
 * `action` SIGN, `eth.tx` the transaction (with `from`), and the signer's `wallet_account`,
 * `wallet` or `private_key`.
 *
 * What is wrong before anything is signed refuses the request and stores nothing: an unknown
 * network (EVM_NETWORK_UNSUPPORTED), a network without an RPC endpoint (EVM_RPC_NOT_CONFIGURED),
 * a chain that does not answer (EVM_CHAIN_UNAVAILABLE, 503 with Retry-After), a used nonce
 * (NONCE_TOO_LOW), too little balance (INSUFFICIENT_FUNDS), a call that reverts
 * (TRANSACTION_REVERTED, the decoded revert in `details`).
 *
 * Never two transactions for one activity: the same body is the same activity (its
 * fingerprint), and the signed bytes are stored in the activity's transaction before anything
 * is broadcast. A crash between the commit and the broadcast leaves the bytes, which the status
 * query broadcasts again — the same bytes, the same hash, never a new signature. A raw
 * transaction is looked up by its hash before it is broadcast, so a retry after a crash
 * between broadcast and commit finds it and stores it.
 * @module
 */
import {
  parseSignedEthereumTransaction,
  parseTransaction,
  signTransaction,
  unsignedEip1559Transaction,
} from '@keyhold/keys';
import { KeyholdError } from '@keyhold/protocol';
import { hexToBytes } from '@noble/hashes/utils.js';
import { type EvmSendChain, EvmTransactionRefusedError } from '../ports/evm-send-chain.js';
import type { SendTransactionRecord } from '../records.js';
import type { HandlerOf } from './activity-handler.js';
import { onChain } from './chain-failures.js';
import { refusingHandler } from './execution-refusal.js';
import { sponsorGas } from './gas-sponsorship.js';
import { resolveSigner } from './resolve-signer.js';
import { storeThenSend } from './stored-send.js';

/**
 * The EVM networks of the wire's `caip2` enum (`v1EthSendTransactionIntent`): a `caip2` outside
 * it is EVM_NETWORK_UNSUPPORTED; one inside it without an RPC endpoint EVM_RPC_NOT_CONFIGURED.
 * @example
 * EVM_CAIP2_NETWORKS.has('eip155:84532'); // true
 */
export const EVM_CAIP2_NETWORKS: ReadonlySet<string> = new Set([
  'eip155:1',
  'eip155:11155111',
  'eip155:8453',
  'eip155:84532',
  'eip155:137',
  'eip155:80002',
  'eip155:56',
  'eip155:97',
  'eip155:10',
  'eip155:11155420',
  'eip155:143',
  'eip155:10143',
  'eip155:42161',
  'eip155:4217',
  'eip155:42431',
  'eip155:421614',
  'eip155:4663',
  'eip155:46630',
  'eip155:5042',
  'eip155:5042002',
]);

/**
 * Refuses a `caip2` outside the wire's EVM networks.
 * @example
 * requireKnownNetwork('eip155:84532'); // 84532
 */
export function requireKnownNetwork(caip2: string): number {
  if (!EVM_CAIP2_NETWORKS.has(caip2)) throw new KeyholdError('EVM_NETWORK_UNSUPPORTED', { caip2 });
  return Number(caip2.slice('eip155:'.length));
}

/**
 * The chain of `caip2`, or EVM_RPC_NOT_CONFIGURED.
 * @example
 * const chain = chainOf(ctx.chains, 'eip155:84532');
 */
export function chainOf(
  chains: { evm(caip2: string): EvmSendChain | undefined },
  caip2: string,
): EvmSendChain {
  requireKnownNetwork(caip2);
  const chain = chains.evm(caip2);
  if (!chain) throw new KeyholdError('EVM_RPC_NOT_CONFIGURED', { caip2 });
  return chain;
}

/**
 * Broadcasts signed bytes unless the chain knows them already; the hash. Bytes the node
 * already holds are not an error.
 * @example
 * const hash = await broadcastOnce(chain, signed, hash);
 */
export async function broadcastOnce(
  chain: EvmSendChain,
  serialized: string,
  hash: string,
): Promise<string> {
  if (await chain.getTransaction(hash)) return hash;
  try {
    await chain.sendRawTransaction(serialized);
  } catch (error) {
    if (EvmTransactionRefusedError.is(error) && error.reason === 'already_known') return hash;
    // A nonce the chain has used may be ours, mined between the look-up and the send.
    if (EvmTransactionRefusedError.is(error) && error.reason === 'nonce_too_low') {
      if (await chain.getTransaction(hash)) return hash;
    }
    throw error;
  }
  return hash;
}

/**
 * Broadcasts a stored ETH_SEND_TRANSACTION: the sponsor's top-up first when there is one, then
 * the transaction. The same bytes every time.
 * @example
 * await broadcastRecord(chain, record);
 */
export async function broadcastRecord(
  chain: EvmSendChain,
  record: SendTransactionRecord,
): Promise<void> {
  if (record.sponsorSignedTransaction && record.sponsorTxHash) {
    await broadcastOnce(chain, record.sponsorSignedTransaction, record.sponsorTxHash);
  }
  await broadcastOnce(chain, record.signedTransaction, record.txHash);
}

export const ethSendRawTransactionHandler: HandlerOf<'ETH_SEND_RAW_TRANSACTION'> = refusingHandler({
  precheck(p) {
    const chainId = requireKnownNetwork(p.caip2);
    const { view } = parseSignedEthereumTransaction(p.signedTransaction);
    if (view.chain_id !== undefined && view.chain_id !== BigInt(chainId)) {
      throw new KeyholdError('TRANSACTION_CHAIN_MISMATCH', {
        caip2: p.caip2,
        chainId: view.chain_id.toString(),
      });
    }
  },

  async execute(ctx, p) {
    const chain = chainOf(ctx.chains, p.caip2);
    const { hash, serialized } = parseSignedEthereumTransaction(p.signedTransaction);
    // Broadcast inside the activity's transaction: what the node refuses stores nothing.
    const transactionHash = await onChain(() => broadcastOnce(chain, serialized, hash));
    return { transactionHash };
  },
});

/** A decimal intent member as a bigint, or undefined. */
const big = (value: string | undefined): bigint | undefined =>
  value === undefined || value === '' ? undefined : BigInt(value);

/** `0x`-prefixed call data, `0x` when empty. */
const callData = (data: string | undefined): string =>
  data === undefined || data === '' ? '0x' : data.startsWith('0x') ? data : `0x${data}`;

/**
 * The one call of an ETH_SEND_TRANSACTION: V1's `to`, `value`, `data`, or V2's single entry of
 * `calls` (more than one is BATCH_CALLS_UNSUPPORTED).
 * @example
 * sendTransactionCall({ calls: [{ to: '0x…', value: '1' }] }); // { to: '0x…', value: '1' }
 */
export function sendTransactionCall(p: Readonly<Record<string, unknown>>): {
  to: string;
  value?: string;
  data?: string;
} {
  const calls = p.calls as { to: string; value?: string; data?: string }[] | undefined;
  if (calls === undefined) return p as { to: string; value?: string; data?: string };
  if (calls.length !== 1) {
    throw new KeyholdError('BATCH_CALLS_UNSUPPORTED', { calls: calls.length });
  }
  return calls[0]!;
}

export const ethSendTransactionHandler: HandlerOf<'ETH_SEND_TRANSACTION'> = refusingHandler({
  precheck(p) {
    requireKnownNetwork(p.caip2);
    sendTransactionCall(p);
  },

  async execute(ctx, p) {
    const chain = chainOf(ctx.chains, p.caip2);
    const chainId = requireKnownNetwork(p.caip2);
    const signer = await resolveSigner(ctx.scope, p.from);
    if (signer.curve !== 'CURVE_SECP256K1') {
      throw new KeyholdError('SIGNER_NOT_FOUND', { signWith: p.from });
    }
    const call = sendTransactionCall(p);
    const from = p.from.toLowerCase();
    const to = call.to.toLowerCase();
    const value = big(call.value) ?? 0n;
    const data = callData(call.data);

    const mined = await onChain(() => chain.getTransactionCount(from, 'latest'));
    const requested = big(p.nonce);
    if (requested !== undefined && requested < BigInt(mined)) {
      throw new KeyholdError('NONCE_TOO_LOW', {
        reason: `nonce ${requested} is used: the account's next nonce is ${mined}`,
      });
    }
    const nonce =
      requested ?? BigInt(await onChain(() => chain.getTransactionCount(from, 'pending')));
    const balance = await onChain(() => chain.getBalance(from));
    if (balance < value) {
      throw new KeyholdError('INSUFFICIENT_FUNDS', {
        reason: `balance ${balance} wei, value ${value} wei`,
      });
    }
    // A call that reverts refuses the request, its reason decoded (nothing is signed).
    await onChain(() => chain.call({ from, to, value, data }), to);
    const gas =
      big(p.gasLimit) ?? (await onChain(() => chain.estimateGas({ from, to, value, data }), to));
    const offered =
      p.maxFeePerGas !== undefined && p.maxPriorityFeePerGas !== undefined
        ? undefined
        : await onChain(() => chain.getFees());
    const maxFeePerGas = big(p.maxFeePerGas) ?? (offered as { maxFeePerGas: bigint }).maxFeePerGas;
    const maxPriorityFeePerGas =
      big(p.maxPriorityFeePerGas) ??
      (offered as { maxPriorityFeePerGas: bigint }).maxPriorityFeePerGas;

    const gasBudget = gas * maxFeePerGas;
    const sponsorship = p.sponsor
      ? await sponsorGas(ctx, chain, { caip2: p.caip2, chainId, from, gasBudget, balance, value })
      : undefined;
    if (!sponsorship && balance < gasBudget + value) {
      throw new KeyholdError('INSUFFICIENT_FUNDS', {
        reason: `balance ${balance} wei, gas * price + value ${gasBudget + value} wei`,
      });
    }

    const unsignedTransaction = unsignedEip1559Transaction({
      chainId,
      nonce,
      to,
      value,
      data,
      gas,
      maxFeePerGas,
      maxPriorityFeePerGas,
    });
    const { vault } = ctx;
    const { signedTransaction } = await signTransaction({
      type: 'TRANSACTION_TYPE_ETHEREUM',
      unsignedTransaction,
      parsed: parseTransaction('TRANSACTION_TYPE_ETHEREUM', unsignedTransaction),
      curve: signer.curve,
      publicKey: hexToBytes(signer.publicKey),
      sign: (message) => vault.sign(signer.key, signer.curve, message),
    });
    const signed = parseSignedEthereumTransaction(signedTransaction);
    if (signed.view.from !== from) {
      throw new KeyholdError('SIGNER_NOT_FOUND', { signWith: p.from });
    }
    return storeThenSend(
      ctx,
      {
        caip2: p.caip2,
        fromAddress: from,
        txHash: signed.hash,
        signedTransaction: signed.serialized,
        ...(sponsorship
          ? {
              sponsorSignedTransaction: sponsorship.signedTransaction,
              sponsorTxHash: sponsorship.txHash,
              sponsoredWei: sponsorship.wei.toString(),
              sponsoredUsd: sponsorship.usd,
            }
          : {}),
      },
      'broadcast the signed transaction',
      (record) => broadcastRecord(chain, record),
    );
  },
});
