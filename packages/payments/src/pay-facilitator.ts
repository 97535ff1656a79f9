/**
 * The facilitator: verify and settle of x402 "exact" EVM payments, with every settlement a
 * payment record. The decision to settle claims the authorization in the Store (one record
 * per authorization, ever); the signed transaction is recorded before it is broadcast; the
 * receipt settles the record. A transaction without a receipt by the deadline leaves the
 * record `unknown` and answers PAYMENT_STATUS_UNKNOWN; `reconcile()` settles it later from the
 * chain, broadcasting at most the same signed bytes again — never a second transfer.
 * @module
 */
import {
  type Clock,
  type Ids,
  type PaymentRecord,
  portErrorCodeOf,
  type Store,
} from '@keyhold/activities';
import { PayError } from '@keyhold/pay-errors';
import { type Address, type Hex, keccak256 } from 'viem';
import { transferWithAuthorizationData } from './eip3009.js';
import { type EvmChain, EvmChainUnavailableError } from './evm-chain.js';
import { type VerifyResult, verifyExactEvmPayment } from './exact-evm-verifier.js';
import { PAY_NETWORKS, type PayNetwork } from './pay-networks.js';
import type { SettlementAccount } from './settlement-account.js';
import { authorizationKeyOf, type ExactEvmPayment, readExactEvmPayment } from './x402-payment.js';

/**
 * The x402 settle answer, and the payment's id.
 * @example
 * const result: SettleResult = { success: true, payer, transaction: '0x…', network: 'eip155:84532', amount: '10000', paymentId };
 */
export interface SettleResult {
  readonly success: boolean;
  readonly errorReason?: string;
  readonly errorMessage?: string;
  readonly payer: string;
  readonly transaction: string;
  /** The network as the request named it (CAIP-2 for v2, the v1 name for v1). */
  readonly network: string;
  readonly amount?: string;
  /** The payment record of a submitted settlement. */
  readonly paymentId?: string;
}

/**
 * The x402 `/supported` answer.
 * @example
 * const supported: SupportedResult = { kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:84532' }], extensions: ['payment-identifier'], signers: { 'eip155:*': ['0x…'] } };
 */
export interface SupportedResult {
  readonly kinds: { x402Version: number; scheme: string; network: string }[];
  readonly extensions: string[];
  readonly signers: Record<string, string[]>;
}

/**
 * What the facilitator is built from.
 * @example
 * const deps: PayFacilitatorDeps = { store, clock, ids, chains, organizationId, settlement, receiptTimeoutMs: 15_000 };
 */
export interface PayFacilitatorDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  /** The configured networks and their chains. */
  chains: ReadonlyMap<PayNetwork, EvmChain>;
  /** The operator's organization: it owns `/settle`'s payments and the settlement key. */
  organizationId: string;
  settlement: SettlementAccount;
  /** How long a settlement waits for its receipt before answering PAYMENT_STATUS_UNKNOWN. Default 15 s. */
  receiptTimeoutMs?: number;
  /** How often the receipt is asked for. Default 200 ms. */
  receiptPollMs?: number;
  /** A `verified` record older than this, with nothing sent, was abandoned. Default 60 s. */
  abandonedAfterMs?: number;
  /** Gas for a transfer when the node cannot estimate it. Default 150 000. */
  fallbackGas?: bigint;
}

/**
 * Where a settlement is to be recorded: the payer's `/settle` or an organization's charge.
 * @example
 * const context: SettleContext = { organizationId, source: 'charge' };
 */
export interface SettleContext {
  organizationId: string;
  source: 'settle' | 'charge';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** True for a Store that cannot be reached. */
const storeDown = (error: unknown) => portErrorCodeOf(error) === 'STORE_UNAVAILABLE';

/**
 * The facilitator of the payment gateway.
 * @example
 * const facilitator = new PayFacilitator({ store, clock, ids, chains, organizationId, settlement });
 * const result = await facilitator.settle('base-sepolia', body, { organizationId, source: 'settle' });
 */
export class PayFacilitator {
  /** One submission at a time per chain: the settlement account's nonces are taken in order. */
  private readonly submitting = new Map<PayNetwork, Promise<unknown>>();

  constructor(private readonly deps: PayFacilitatorDeps) {}

  /** The settlement account's address (`paySignerAddress`). */
  get signerAddress(): Address {
    return this.deps.settlement.address;
  }

  /** The chain of a configured network. @throws PayError PAYMENT_REQUIREMENTS_UNSUPPORTED */
  chainOf(network: PayNetwork): EvmChain {
    const chain = this.deps.chains.get(network);
    if (!chain) {
      throw new PayError('PAYMENT_REQUIREMENTS_UNSUPPORTED', {
        reason: `network ${network} is not configured on this gateway`,
      });
    }
    return chain;
  }

  /** `/supported` for one network: exact on v2 and v1, the payment-identifier extension. */
  supported(network: PayNetwork): SupportedResult {
    this.chainOf(network);
    const info = PAY_NETWORKS[network];
    return {
      kinds: [
        { x402Version: 2, scheme: 'exact', network: info.caip2 },
        { x402Version: 1, scheme: 'exact', network: info.v1Name },
      ],
      extensions: ['payment-identifier'],
      signers: { 'eip155:*': [this.signerAddress] },
    };
  }

  /** Reads a facilitator request for `network`. */
  read(network: PayNetwork, body: unknown): ExactEvmPayment {
    this.chainOf(network);
    return readExactEvmPayment(body, PAY_NETWORKS[network]);
  }

  /**
   * `/verify`: the x402 answer, `isValid` with a reason; nothing is recorded.
   * @throws PayError as `readExactEvmPayment`, PAYMENT_SERVICE_UNAVAILABLE (the chain is down)
   */
  async verify(network: PayNetwork, body: unknown): Promise<VerifyResult> {
    const payment = this.read(network, body);
    return this.verifyPayment(network, payment);
  }

  private async verifyPayment(
    network: PayNetwork,
    payment: ExactEvmPayment,
  ): Promise<VerifyResult> {
    try {
      return await verifyExactEvmPayment(
        this.chainOf(network),
        payment,
        this.signerAddress,
        this.deps.clock.now(),
      );
    } catch (error) {
      throw unavailable(error);
    }
  }

  /**
   * `/settle` (and the charge): verify again, claim the authorization, submit
   * `transferWithAuthorization`, wait for its receipt. The same payment-identifier with the
   * same payload answers the stored outcome; a replayed authorization moves nothing.
   * @throws PayError PAYMENT_INTENT_CONFLICT, PAYMENT_STATUS_UNKNOWN (sent, no receipt yet),
   * PAYMENT_SERVICE_UNAVAILABLE (nothing sent), FULFILLMENT_PERSISTENCE_UNAVAILABLE (settled,
   * not recorded yet), and as `read`
   */
  async settle(
    network: PayNetwork,
    body: unknown,
    context: SettleContext,
    payment: ExactEvmPayment = this.read(network, body),
  ): Promise<SettleResult> {
    const { store, ids, clock } = this.deps;
    const authorizationKey = authorizationKeyOf(payment);
    const paymentId = payment.paymentIdentifier ?? `pay_${ids.uuid().replaceAll('-', '')}`;
    // What is already known of this payment id and of this authorization.
    const known = await this.storeStep(() =>
      store.transaction(async (tx) => ({
        byId: payment.paymentIdentifier
          ? await tx.payments.get(context.organizationId, paymentId)
          : undefined,
        byAuthorization: await tx.payments.findByAuthorization(authorizationKey),
      })),
    );
    if (known.byId && known.byId.payloadHash !== payment.payloadHash) {
      throw new PayError('PAYMENT_INTENT_CONFLICT', { paymentId });
    }
    const prior = known.byId ?? known.byAuthorization;
    let reuse: PaymentRecord | undefined;
    if (prior) {
      const answer = await this.answerForPrior(payment, prior, known.byId !== undefined);
      if (answer) return answer;
      reuse = prior; // failed before anything was sent, or abandoned: it may be tried again
    }
    const verdict = await this.verifyPayment(network, payment);
    if (!verdict.isValid) {
      return {
        success: false,
        errorReason: verdict.invalidReason ?? 'unexpected_settle_error',
        ...(verdict.invalidMessage ? { errorMessage: verdict.invalidMessage } : {}),
        payer: verdict.payer,
        transaction: '',
        network: networkName(payment),
      };
    }
    // The decision: the authorization is this payment's, recorded before anything is signed.
    const now = clock.now();
    const record: PaymentRecord = {
      organizationId: reuse?.organizationId ?? context.organizationId,
      paymentId: reuse?.paymentId ?? paymentId,
      network,
      x402Version: payment.x402Version,
      status: 'verified',
      source: reuse?.source ?? context.source,
      payer: payment.authorization.from,
      payTo: payment.requirements.payTo,
      asset: payment.requirements.asset,
      amount: payment.requirements.amount.toString(),
      authorizationKey,
      payloadHash: payment.payloadHash,
      validBefore: Number(payment.authorization.validBefore),
      createdAt: reuse?.createdAt ?? now,
      updatedAt: now,
    };
    try {
      await store.transaction(async (tx) => {
        if (reuse) {
          const current = await tx.payments.getForUpdate(reuse.organizationId, reuse.paymentId);
          if (
            !current ||
            current.status !== reuse.status ||
            current.updatedAt !== reuse.updatedAt
          ) {
            throw new PayError('PAYMENT_STATUS_UNKNOWN', { paymentId: reuse.paymentId });
          }
          await tx.payments.update(record);
        } else {
          await tx.payments.insert(record);
        }
      });
    } catch (error) {
      if (PayError.is(error)) throw error;
      // Another request claimed the authorization (or the id) between the read and now: its
      // payment is the one to look up.
      if (portErrorCodeOf(error) === 'STORE_CONFLICT') {
        const winner = await store
          .transaction((tx) => tx.payments.findByAuthorization(authorizationKey))
          .catch(() => undefined);
        throw new PayError('PAYMENT_STATUS_UNKNOWN', {
          paymentId: winner?.paymentId ?? record.paymentId,
        });
      }
      throw this.serviceUnavailable(error);
    }
    return this.submit(network, payment, record);
  }

  /**
   * The answer for a payment already recorded, or undefined when it may be tried again.
   * A settled authorization replayed (without its id) moves nothing and says why.
   */
  private async answerForPrior(
    payment: ExactEvmPayment,
    prior: PaymentRecord,
    sameId: boolean,
  ): Promise<SettleResult | undefined> {
    let record = prior;
    if (record.status === 'submitted' || record.status === 'unknown') {
      record = (await this.reconcileOne(record)) ?? record;
    }
    if (record.status === 'settled') {
      if (sameId) return settledResult(payment, record);
      return {
        success: false,
        errorReason: 'invalid_exact_evm_nonce_already_used',
        payer: record.payer,
        transaction: '',
        network: networkName(payment),
      };
    }
    if (record.status === 'submitted' || record.status === 'unknown') {
      throw new PayError('PAYMENT_STATUS_UNKNOWN', { paymentId: record.paymentId });
    }
    if (record.status === 'verified') {
      const abandonedAfterMs = this.deps.abandonedAfterMs ?? 60_000;
      if (this.deps.clock.now() - record.updatedAt < abandonedAfterMs) {
        throw new PayError('PAYMENT_STATUS_UNKNOWN', { paymentId: record.paymentId });
      }
      return undefined;
    }
    // failed: a transaction that reverted is final; a refusal before sending may be retried.
    if (record.transaction !== undefined && sameId) return failedResult(payment, record);
    if (record.transaction !== undefined) {
      return {
        success: false,
        errorReason: record.errorReason ?? 'invalid_exact_evm_transaction_failed',
        payer: record.payer,
        transaction: '',
        network: networkName(payment),
      };
    }
    return undefined;
  }

  /** Signs, records, broadcasts and waits; one submission per chain at a time. */
  private async submit(
    network: PayNetwork,
    payment: ExactEvmPayment,
    claimed: PaymentRecord,
  ): Promise<SettleResult> {
    const chain = this.chainOf(network);
    const { store, clock, settlement } = this.deps;
    const previous = this.submitting.get(network) ?? Promise.resolve();
    let release!: () => void;
    const turn = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.submitting.set(
      network,
      previous.then(() => turn),
    );
    await previous.catch(() => {});
    let record: PaymentRecord;
    try {
      const data = transferWithAuthorizationData(payment.authorization, payment.signature);
      const to = payment.requirements.asset;
      let raw: Hex;
      try {
        const [nonce, fees, gas] = await Promise.all([
          chain.getTransactionCount(settlement.address),
          chain.getFees(),
          chain.estimateGas({ to, data, from: settlement.address }).catch((error: unknown) => {
            if (EvmChainUnavailableError.is(error)) throw error;
            return this.deps.fallbackGas ?? 150_000n;
          }),
        ]);
        raw = await settlement.signTransaction({
          type: 'eip1559',
          chainId: payment.network.chainId,
          to,
          data,
          nonce,
          gas: (gas * 12n) / 10n,
          ...fees,
        });
      } catch (error) {
        await this.release(claimed, 'unexpected_settle_error');
        throw unavailable(error);
      }
      record = {
        ...claimed,
        status: 'submitted',
        transaction: keccak256(raw),
        rawTransaction: raw,
        updatedAt: clock.now(),
      };
      // Recorded before it is broadcast: a crash after this line loses nothing.
      try {
        await store.transaction((tx) => tx.payments.update(record));
      } catch (error) {
        await this.release(claimed, 'unexpected_settle_error');
        throw this.serviceUnavailable(error);
      }
      try {
        await chain.sendRawTransaction(raw);
      } catch {
        // Unknown whether the node took it: the reconciler looks it up, and sends the same bytes.
        throw await this.markUnknown(record);
      }
    } finally {
      release();
    }
    return this.awaitReceipt(chain, payment, record);
  }

  /** Puts a claim that sent nothing back: the authorization may be settled again. */
  private async release(claimed: PaymentRecord, errorReason: string): Promise<void> {
    await this.deps.store
      .transaction((tx) =>
        tx.payments.update({
          ...claimed,
          status: 'failed',
          errorReason,
          updatedAt: this.deps.clock.now(),
        }),
      )
      .catch(() => {
        // The Store is down: the claim stays `verified` and counts as abandoned later.
      });
  }

  private async awaitReceipt(
    chain: EvmChain,
    payment: ExactEvmPayment,
    record: PaymentRecord,
  ): Promise<SettleResult> {
    const { clock } = this.deps;
    const deadline = clock.now() + (this.deps.receiptTimeoutMs ?? 15_000);
    const poll = this.deps.receiptPollMs ?? 200;
    for (;;) {
      const receipt = await chain
        .getTransactionReceipt(record.transaction as Hex)
        .catch(() => undefined);
      if (receipt) {
        const finished: PaymentRecord = {
          ...record,
          status: receipt.status === 'success' ? 'settled' : 'failed',
          ...(receipt.status === 'success'
            ? {}
            : { errorReason: 'invalid_exact_evm_transaction_failed' }),
          updatedAt: clock.now(),
        };
        try {
          await this.deps.store.transaction((tx) => tx.payments.update(finished));
        } catch {
          throw new PayError('FULFILLMENT_PERSISTENCE_UNAVAILABLE', {
            paymentId: record.paymentId,
          });
        }
        return finished.status === 'settled'
          ? settledResult(payment, finished)
          : failedResult(payment, finished);
      }
      if (clock.now() >= deadline) throw await this.markUnknown(record);
      await sleep(poll);
    }
  }

  /** Records that the outcome is not known; the error to answer. */
  private async markUnknown(record: PaymentRecord): Promise<PayError> {
    await this.deps.store
      .transaction((tx) =>
        tx.payments.update({ ...record, status: 'unknown', updatedAt: this.deps.clock.now() }),
      )
      .catch(() => {
        // Still `submitted`: the reconciler treats both alike.
      });
    return new PayError('PAYMENT_STATUS_UNKNOWN', { paymentId: record.paymentId });
  }

  /**
   * Settles the records whose outcome is not known from the chain: a receipt finishes them; a
   * transaction the node does not know is broadcast again (the same signed bytes, so at most
   * one transfer); one that can no longer be mined (its authorization expired) has failed.
   * Records claimed and abandoned with nothing sent are released. Returns how many changed.
   * @example
   * setInterval(() => facilitator.reconcile(), 1000);
   */
  async reconcile(): Promise<number> {
    const { store } = this.deps;
    const pending = await store.transaction(async (tx) => [
      ...(await tx.payments.listByStatus('submitted')),
      ...(await tx.payments.listByStatus('unknown')),
      ...(await tx.payments.listByStatus('verified')),
    ]);
    let changed = 0;
    for (const record of pending) {
      try {
        const after = await this.reconcileOne(record);
        if (after && after.status !== record.status) changed++;
      } catch {
        // A chain or store that is down now: the next round tries again.
      }
    }
    return changed;
  }

  /** One record brought up to date with the chain; the record as it now is. */
  private async reconcileOne(record: PaymentRecord): Promise<PaymentRecord | undefined> {
    const now = this.deps.clock.now();
    if (record.status === 'verified') {
      if (now - record.updatedAt < (this.deps.abandonedAfterMs ?? 60_000)) return record;
      return this.finish(record, { status: 'failed', errorReason: 'unexpected_settle_error' });
    }
    const chain = this.deps.chains.get(record.network as PayNetwork);
    if (!chain || !record.transaction) return record;
    const hash = record.transaction as Hex;
    const receipt = await chain.getTransactionReceipt(hash);
    if (receipt) {
      return this.finish(
        record,
        receipt.status === 'success'
          ? { status: 'settled' }
          : { status: 'failed', errorReason: 'invalid_exact_evm_transaction_failed' },
      );
    }
    if (await chain.hasTransaction(hash)) return record;
    if (now >= record.validBefore * 1000) {
      return this.finish(record, {
        status: 'failed',
        errorReason: 'invalid_exact_evm_payload_authorization_valid_before',
      });
    }
    if (record.rawTransaction) {
      await chain.sendRawTransaction(record.rawTransaction as Hex).catch(() => {});
    }
    return record;
  }

  private async finish(
    record: PaymentRecord,
    change: Pick<PaymentRecord, 'status'> & { errorReason?: string },
  ): Promise<PaymentRecord> {
    const { store, clock } = this.deps;
    return store.transaction(async (tx) => {
      const current = await tx.payments.getForUpdate(record.organizationId, record.paymentId);
      // Someone else finished it first: theirs stands.
      if (!current || current.status === 'settled' || current.status === 'failed') {
        return current ?? record;
      }
      const finished: PaymentRecord = { ...current, ...change, updatedAt: clock.now() };
      await tx.payments.update(finished);
      return finished;
    });
  }

  /** A step that only reads or claims: a Store that is down means nothing was done. */
  private async storeStep<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      throw this.serviceUnavailable(error);
    }
  }

  private serviceUnavailable(error: unknown): unknown {
    if (PayError.is(error)) return error;
    if (storeDown(error)) {
      return new PayError('PAYMENT_SERVICE_UNAVAILABLE', { reason: 'store unavailable' });
    }
    return error;
  }
}

/** The chain's errors as the gateway's: unreachable is PAYMENT_SERVICE_UNAVAILABLE. */
function unavailable(error: unknown): unknown {
  if (EvmChainUnavailableError.is(error)) {
    return new PayError('PAYMENT_SERVICE_UNAVAILABLE', { reason: 'chain RPC unavailable' });
  }
  return error;
}

/** The network as the request named it. */
function networkName(payment: ExactEvmPayment): string {
  return payment.x402Version === 2 ? payment.network.caip2 : payment.network.v1Name;
}

function settledResult(payment: ExactEvmPayment, record: PaymentRecord): SettleResult {
  return {
    success: true,
    payer: record.payer,
    transaction: record.transaction ?? '',
    network: networkName(payment),
    amount: record.amount,
    paymentId: record.paymentId,
  };
}

function failedResult(payment: ExactEvmPayment, record: PaymentRecord): SettleResult {
  return {
    success: false,
    errorReason: record.errorReason ?? 'invalid_exact_evm_transaction_failed',
    payer: record.payer,
    transaction: record.transaction ?? '',
    network: networkName(payment),
    paymentId: record.paymentId,
  };
}
