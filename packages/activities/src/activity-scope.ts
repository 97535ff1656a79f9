/**
 * One activity's reads, each made once. Deciding an activity, deciding who may vote on it and
 * running its handler ask for the same records — the organization's compiled policies, the
 * key `signWith` names, the condition keywords built from both — and each asked the store
 * again. A scope lives for one flow inside one transaction, so what it remembers is what that
 * transaction read; the handler's own writes are not seen through it (it reads nothing a
 * handler writes).
 * @module
 */

import { type ParsedTransaction, parseTransaction } from '@keyhold/keys';
import type { CompiledPolicySet, ConditionContext } from '@keyhold/policy-engine';
import type { ActivityDefinition, TransactionType } from '@keyhold/protocol';
import { conditionContextOf } from './decision/condition-context.js';
import { loadPolicySet } from './decision/decide.js';
import { findSigningKey, type SigningKey } from './handlers/resolve-signer.js';
import type { StoreTransaction } from './ports/store.js';

/**
 * The reads of one activity of one organization, memoized. Every value is a promise made on
 * first use, so two steps asking at once share one read.
 * @example
 * const scope = new ActivityScope(tx, organizationId);
 * const decision = await decide(scope, subject, now); // reads the policies and the key once
 * const key = await scope.signingKey(signWith); // no second read
 */
export class ActivityScope {
  private policies?: Promise<CompiledPolicySet>;
  private readonly signingKeys = new Map<string, Promise<SigningKey | undefined>>();
  private readonly conditions = new WeakMap<object, Promise<ConditionContext>>();
  private parsed?: { type: string; unsignedTransaction: string; parsed: ParsedTransaction };

  constructor(
    readonly tx: StoreTransaction,
    readonly organizationId: string,
  ) {}

  /** The organization's policies, compiled (the engine caches compilation by content). */
  policySet(): Promise<CompiledPolicySet> {
    this.policies ??= loadPolicySet(this.tx, this.organizationId);
    return this.policies;
  }

  /** The wallet account or private key `signWith` names, or undefined. */
  signingKey(signWith: string): Promise<SigningKey | undefined> {
    let found = this.signingKeys.get(signWith);
    if (!found) {
      found = findSigningKey(this.tx, this.organizationId, signWith);
      this.signingKeys.set(signWith, found);
    }
    return found;
  }

  /**
   * The condition keywords of an activity, built once per parameters object (the decision and
   * the voting rights of one vote pass the same stored parameters).
   */
  conditionContext(
    definition: ActivityDefinition,
    parameters: Readonly<Record<string, unknown>>,
  ): Promise<ConditionContext> {
    let context = this.conditions.get(parameters);
    if (!context) {
      context = conditionContextOf(this, definition, parameters);
      this.conditions.set(parameters, context);
    }
    return context;
  }

  /**
   * The decoded unsigned transaction of a SIGN_TRANSACTION (the policy keywords and the
   * signature both need it). Throws what `parseTransaction` throws; a failure is not kept.
   */
  transaction(type: TransactionType, unsignedTransaction: string): ParsedTransaction {
    const last = this.parsed;
    if (last && last.type === type && last.unsignedTransaction === unsignedTransaction) {
      return last.parsed;
    }
    const parsed = parseTransaction(type, unsignedTransaction);
    this.parsed = { type, unsignedTransaction, parsed };
    return parsed;
  }
}
