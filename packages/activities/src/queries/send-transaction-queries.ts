/**
 * The send-transaction queries:
 *
 * - get_send_transaction_status: `{txStatus, eth: {txHash}, txError?, error?}` of an
 *   ETH_SEND_TRANSACTION, read from the chain; `{txStatus, solana: {signature}, …}` of a
 *   SOL_SEND_TRANSACTION (see `sol-send-transaction.ts`). `txStatus` (the spec shows no values; these are
 *   Keyhold's): `BROADCASTED` (the node has it, not mined), `INCLUDED` (mined and succeeded),
 *   `FAILED` (mined and reverted — `error.revertChain` decoded by replaying the call at its
 *   block — or refused by the node). A transaction the node does not know (the broadcast after
 *   the commit was cut short) is broadcast again here: the stored bytes, never a new signature.
 * - get_nonces: `{nonce}`, the address's next nonce with pending transactions. Keyhold sponsors
 *   gas without a delegate contract, so there is no gas-station nonce: `gasStationNonce` is
 *   absent even when asked for.
 * - get_wallet_address_balances: `{balances}` of a wallet account of the organization: the
 *   native coin and, on Base and Base Sepolia, USDC (`caip19`, `symbol`, `name`, `decimals`,
 *   `balance` in atomic units, `display.crypto`).
 * - get_gas_usage: `{windowDurationMinutes, windowLimitUsd, usageUsd}` of the organization's
 *   gas sponsorship (see `gas-sponsorship.ts`).
 * @module
 */

import { parseSignedEthereumTransaction } from '@keyhold/keys';
import { KeyholdError } from '@keyhold/protocol';
import { chainRefusal, onChain } from '../handlers/chain-failures.js';
import { gasLimitsOf, gasUsageOf, usdOf } from '../handlers/gas-sponsorship.js';
import { decodeRevert } from '../handlers/revert-chain.js';
import { broadcastRecord, chainOf } from '../handlers/send-transaction.js';
import { solanaChainOf, solanaSendTransactionStatus } from '../handlers/sol-send-transaction.js';
import { EvmExecutionRevertedError, EvmTransactionRefusedError } from '../ports/evm-send-chain.js';
import type { QueryHandlerOf } from './query-handler.js';

export const getSendTransactionStatus: QueryHandlerOf<'get_send_transaction_status'> = async (
  ctx,
  body,
) => {
  const record = await ctx.tx.sendTransactions.get(
    ctx.organization.organizationId,
    body.sendTransactionStatusId.toLowerCase(),
  );
  if (!record) {
    throw new KeyholdError('SEND_TRANSACTION_STATUS_NOT_FOUND', {
      sendTransactionStatusId: body.sendTransactionStatusId,
    });
  }
  if (record.caip2.startsWith('solana:')) {
    return solanaSendTransactionStatus(await solanaChainOf(ctx.chains, record.caip2), record);
  }
  const chain = chainOf(ctx.chains, record.caip2);
  const eth = { txHash: record.txHash };
  const receipt = await onChain(() => chain.getTransactionReceipt(record.txHash));
  if (receipt?.status === 'success') return { txStatus: 'INCLUDED', eth };
  if (receipt?.status === 'reverted') {
    const { view } = parseSignedEthereumTransaction(record.signedTransaction);
    const to = view.to ?? '';
    // The revert reason: the call replayed on the state its block left (where what made it
    // fail, such as a balance an earlier transaction of the block spent, still holds), else on
    // the state before the block.
    let data: string | undefined;
    for (const blockNumber of [receipt.blockNumber, receipt.blockNumber - 1n]) {
      try {
        await chain.call({
          from: view.from,
          to,
          value: view.value,
          data: view.data,
          gas: view.gas,
          blockNumber,
        });
      } catch (error) {
        if (!EvmExecutionRevertedError.is(error)) throw chainRefusal(error);
        data = error.data;
        break;
      }
    }
    const entry = decodeRevert(to, data);
    return {
      txStatus: 'FAILED',
      eth,
      txError: entry.displayMessage,
      error: { message: entry.displayMessage, revertChain: [entry] },
    };
  }
  // Not mined: pending at the node, or never broadcast (a crash after the commit).
  try {
    await broadcastRecord(chain, record);
  } catch (error) {
    if (EvmTransactionRefusedError.is(error)) {
      const message = `the chain refused the transaction: ${error.detail}`;
      return { txStatus: 'FAILED', eth, txError: message, error: { message, revertChain: [] } };
    }
    throw chainRefusal(error);
  }
  return { txStatus: 'BROADCASTED', eth };
};

export const getNonces: QueryHandlerOf<'get_nonces'> = async (ctx, body) => {
  const chain = chainOf(ctx.chains, body.caip2);
  if (body.nonce === false) return {};
  const nonce = await onChain(() => chain.getTransactionCount(body.address, 'pending'));
  return { nonce: String(nonce) };
};

/** USDC on the networks whose address is well known. */
const USDC: Readonly<Record<string, string>> = {
  'eip155:8453': '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
  'eip155:84532': '0x036cbd53842c5426634e7929541ec2318f3dcf7e',
};

/** `amount` atomic units of a `decimals` asset, as a decimal string. */
function display(amount: bigint, decimals: number): string {
  const unit = 10n ** BigInt(decimals);
  const fraction = (amount % unit).toString().padStart(decimals, '0').replace(/0+$/, '');
  return fraction === '' ? `${amount / unit}` : `${amount / unit}.${fraction}`;
}

export const getWalletAddressBalances: QueryHandlerOf<'get_wallet_address_balances'> = async (
  ctx,
  body,
) => {
  const account = await ctx.tx.walletAccounts.findByAddress(
    ctx.organization.organizationId,
    body.address,
  );
  if (!account || account.address.toLowerCase() !== body.address.toLowerCase()) {
    throw new KeyholdError('SENDER_NOT_WALLET_ACCOUNT', { address: body.address });
  }
  const chain = chainOf(ctx.chains, body.caip2);
  const address = body.address.toLowerCase();
  const native = await onChain(() => chain.getBalance(address));
  const balances: Record<string, unknown>[] = [
    {
      caip19: `${body.caip2}/slip44:60`,
      symbol: 'ETH',
      name: 'Ether',
      decimals: 18,
      balance: native.toString(),
      display: { crypto: display(native, 18) },
    },
  ];
  const usdc = USDC[body.caip2];
  if (usdc) {
    // balanceOf(address): selector 0x70a08231 and the address in one word.
    const data = `0x70a08231${address.slice(2).padStart(64, '0')}`;
    const answer = await onChain(() => chain.call({ to: usdc, data }), usdc);
    const amount = answer === '0x' ? 0n : BigInt(answer);
    balances.push({
      caip19: `${body.caip2}/erc20:${usdc}`,
      symbol: 'USDC',
      name: 'USD Coin',
      decimals: 6,
      balance: amount.toString(),
      display: { crypto: display(amount, 6) },
    });
  }
  return { balances };
};

export const getGasUsage: QueryHandlerOf<'get_gas_usage'> = async (ctx) => {
  const limits = await gasLimitsOf(ctx.tx, ctx.organization);
  if (!limits)
    return { windowDurationMinutes: 0, windowLimitUsd: '0.000000', usageUsd: '0.000000' };
  const used = await gasUsageOf(
    ctx.tx,
    ctx.organization.organizationId,
    limits.windowDurationMinutes,
    ctx.now,
  );
  return {
    windowDurationMinutes: limits.windowDurationMinutes,
    windowLimitUsd: limits.windowLimitUsd,
    usageUsd: usdOf(used),
  };
};
