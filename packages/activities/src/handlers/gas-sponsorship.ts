/**
 * Gas sponsorship of ETH_SEND_TRANSACTION (`sponsor: true`) on a self-hosted Keyhold, and its
 * limits (UPSERT_GAS_USAGE_CONFIG, get_gas_usage).
 *
 * Turnkey's Gas Station relays through an EIP-7702 delegate contract. Keyhold needs no contract:
 * the operator's sponsor account (a private key of the operator's organization, the payment
 * gateway's settlement account under `keyhold serve`) sends the sender the transaction's gas
 * budget — `gasLimit * maxFeePerGas` wei — in a plain transfer broadcast just before the
 * sender's transaction. Both are signed in the activity's transaction and stored together, so
 * the top-up and the transaction leave together or not at all, and neither is ever signed twice.
 * The value the transaction moves is always the sender's own.
 *
 * Limits, in USD over a rolling window: the organization's config (`enabled`,
 * `orgWindowLimitUsd`, `windowDurationMinutes`); a sub-organization without its own config is
 * held to its parent's `subOrgWindowLimitUsd`. A budget is counted at the operator's fixed
 * price of the native coin (`usdPerNative`: a self-hosted instance asks no price oracle), in
 * full: gas the transaction does not burn stays with the sender and is still counted, so the
 * operator never pays more than the limit. Nothing is sponsored without a config that enables
 * it and a sponsor the server was given (GAS_SPONSORSHIP_NOT_ENABLED); a budget over what is
 * left of the window is GAS_SPONSORSHIP_LIMIT_EXCEEDED. Both refuse the request and store
 * nothing.
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
import type { EvmSendChain } from '../ports/evm-send-chain.js';
import type { StoreTransaction } from '../ports/store.js';
import type { GasUsageConfigRecord, OrganizationRecord } from '../records.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';
import { onChain } from './chain-failures.js';

/**
 * The operator's sponsor account: a secp256k1 private key of `organizationId` (by address),
 * and what one native coin (ETH) is worth in USD, as a decimal string.
 * @example
 * const sponsor: GasSponsor = { organizationId, address: '0x…', usdPerNative: '3000' };
 */
export interface GasSponsor {
  readonly organizationId: string;
  readonly address: string;
  readonly usdPerNative: string;
}

/** A sponsored budget: the top-up, signed. */
export interface Sponsorship {
  readonly signedTransaction: string;
  readonly txHash: string;
  readonly wei: bigint;
  /** USD decimal string. */
  readonly usd: string;
}

/** USD amounts are counted in micro-dollars (6 decimals), as bigints. */
const MICRO = 1_000_000n;

/**
 * A USD decimal string (`12.5`) in micro-dollars.
 * @example
 * microUsd('12.5'); // 12_500_000n
 */
export function microUsd(usd: string): bigint {
  const [whole = '0', fraction = ''] = usd.split('.');
  return BigInt(whole) * MICRO + BigInt((fraction + '000000').slice(0, 6));
}

/**
 * Micro-dollars as a USD decimal string with 6 decimals.
 * @example
 * usdOf(12_500_000n); // '12.500000'
 */
export function usdOf(micro: bigint): string {
  return `${micro / MICRO}.${(micro % MICRO).toString().padStart(6, '0')}`;
}

/** What `wei` is worth in micro-dollars at `usdPerNative`, rounded up (the operator's side). */
function microUsdOfWei(wei: bigint, usdPerNative: string): bigint {
  const product = wei * microUsd(usdPerNative);
  const unit = 10n ** 18n;
  return (product + unit - 1n) / unit;
}

/**
 * The limits that apply to an organization: its own config, or its parent's sub-organization
 * limit. Undefined: none.
 * @example
 * const applied = await gasLimitsOf(tx, organization); // { windowLimitUsd: '25', windowDurationMinutes: 60, enabled: true }
 */
export async function gasLimitsOf(
  tx: StoreTransaction,
  organization: OrganizationRecord,
): Promise<
  { windowLimitUsd: string; windowDurationMinutes: number; enabled: boolean } | undefined
> {
  const [own] = await tx.gasUsageConfigs.list(organization.organizationId);
  if (own) {
    return {
      windowLimitUsd: own.orgWindowLimitUsd,
      windowDurationMinutes: own.windowDurationMinutes,
      enabled: own.enabled,
    };
  }
  if (organization.parentOrganizationId === undefined) return undefined;
  const [parent] = await tx.gasUsageConfigs.list(organization.parentOrganizationId);
  if (!parent) return undefined;
  return {
    windowLimitUsd: parent.subOrgWindowLimitUsd,
    windowDurationMinutes: parent.windowDurationMinutes,
    enabled: parent.enabled,
  };
}

/**
 * The organization's sponsored spending in the window that ends at `now`, micro-dollars.
 * @example
 * const used = await gasUsageOf(tx, organizationId, 60, Date.now());
 */
export async function gasUsageOf(
  tx: StoreTransaction,
  organizationId: string,
  windowDurationMinutes: number,
  now: number,
): Promise<bigint> {
  const since = now - windowDurationMinutes * 60_000;
  let used = 0n;
  for (const record of await tx.sendTransactions.list(organizationId)) {
    if (record.createdAt > since && record.sponsoredUsd !== undefined) {
      used += microUsd(record.sponsoredUsd);
    }
  }
  return used;
}

/** The gas of a plain transfer. */
const TRANSFER_GAS = 21_000n;

/**
 * Checks the limits and signs the sponsor's top-up of `gasBudget` wei to `from`.
 * @example
 * const sponsorship = await sponsorGas(ctx, chain, { caip2, chainId, from, gasBudget, balance, value });
 */
export async function sponsorGas(
  ctx: ActivityContext,
  chain: EvmSendChain,
  request: {
    caip2: string;
    chainId: number;
    from: string;
    gasBudget: bigint;
    balance: bigint;
    value: bigint;
  },
): Promise<Sponsorship> {
  const sponsor = ctx.gasSponsor;
  const limits = await gasLimitsOf(ctx.tx, ctx.organization);
  if (!sponsor || !limits?.enabled) {
    throw new KeyholdError('GAS_SPONSORSHIP_NOT_ENABLED', {
      reason: sponsor
        ? 'no UPSERT_GAS_USAGE_CONFIG enables it for this organization'
        : 'the server has no sponsor account',
    });
  }
  if (request.balance < request.value) {
    throw new KeyholdError('INSUFFICIENT_FUNDS', {
      reason: `balance ${request.balance} wei, value ${request.value} wei (the value is never sponsored)`,
    });
  }
  const wei = request.gasBudget;
  const cost = microUsdOfWei(wei, sponsor.usdPerNative);
  const used = await gasUsageOf(
    ctx.tx,
    ctx.organization.organizationId,
    limits.windowDurationMinutes,
    ctx.now,
  );
  if (used + cost > microUsd(limits.windowLimitUsd)) {
    throw new KeyholdError('GAS_SPONSORSHIP_LIMIT_EXCEEDED', {
      windowLimitUsd: limits.windowLimitUsd,
      usageUsd: usdOf(used),
      requestedUsd: usdOf(cost),
    });
  }
  const key = await ctx.tx.privateKeys.findByAddress(sponsor.organizationId, sponsor.address);
  if (key?.curve !== 'CURVE_SECP256K1' || key.disabled) {
    throw new KeyholdError('GAS_SPONSORSHIP_NOT_ENABLED', {
      reason: 'the sponsor account is not a usable private key of the operator organization',
    });
  }
  const sponsorAddress = sponsor.address.toLowerCase();
  const [nonce, fees, sponsorBalance] = await Promise.all([
    onChain(() => chain.getTransactionCount(sponsorAddress, 'pending')),
    onChain(() => chain.getFees()),
    onChain(() => chain.getBalance(sponsorAddress)),
  ]);
  if (sponsorBalance < wei + TRANSFER_GAS * fees.maxFeePerGas) {
    throw new KeyholdError('INSUFFICIENT_FUNDS', {
      reason: `the sponsor account ${sponsorAddress} cannot pay ${wei} wei of gas`,
    });
  }
  const unsignedTransaction = unsignedEip1559Transaction({
    chainId: request.chainId,
    nonce: BigInt(nonce),
    to: request.from,
    value: wei,
    data: '0x',
    gas: TRANSFER_GAS,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  });
  const { vault } = ctx;
  const { signedTransaction } = await signTransaction({
    type: 'TRANSACTION_TYPE_ETHEREUM',
    unsignedTransaction,
    parsed: parseTransaction('TRANSACTION_TYPE_ETHEREUM', unsignedTransaction),
    curve: key.curve,
    publicKey: hexToBytes(key.publicKey),
    sign: (message) => vault.sign(key.key, key.curve, message),
  });
  const signed = parseSignedEthereumTransaction(signedTransaction);
  return { signedTransaction: signed.serialized, txHash: signed.hash, wei, usd: usdOf(cost) };
}

export const upsertGasUsageConfigHandler: HandlerOf<'UPSERT_GAS_USAGE_CONFIG'> = {
  precheck(p) {
    const minutes = Number(p.windowDurationMinutes);
    if (!Number.isSafeInteger(minutes) || minutes < 1 || minutes > 43_200) {
      throw new KeyholdError('INVALID_GAS_USAGE_CONFIG', {
        windowDurationMinutes: p.windowDurationMinutes,
      });
    }
  },

  async execute(ctx, p) {
    const organizationId = ctx.organization.organizationId;
    const [existing] = await ctx.tx.gasUsageConfigs.list(organizationId);
    const record: GasUsageConfigRecord = {
      organizationId,
      gasUsageConfigId: existing?.gasUsageConfigId ?? ctx.ids.uuid(),
      orgWindowLimitUsd: usdOf(microUsd(p.orgWindowLimitUsd)),
      subOrgWindowLimitUsd: usdOf(microUsd(p.subOrgWindowLimitUsd)),
      windowDurationMinutes: Number(p.windowDurationMinutes),
      enabled: p.enabled ?? existing?.enabled ?? true,
      createdAt: existing?.createdAt ?? ctx.now,
      updatedAt: ctx.now,
    };
    if (existing) await ctx.tx.gasUsageConfigs.update(record);
    else await ctx.tx.gasUsageConfigs.insert(record);
    return { gasUsageConfigId: record.gasUsageConfigId };
  },
};
