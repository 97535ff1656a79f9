/**
 * What an evaluation reads. The activities layer builds it per request (and per vote).
 * Integers may be given as `bigint` or as safe-integer `number`s; absent (or null) data is a
 * `missing` error when a policy reads it — never a default value.
 */

export type IntValue = bigint | number;

export interface PolicyUser {
  readonly id: string;
  readonly tags: readonly string[];
  readonly email?: string;
  readonly alias?: string;
}

export interface PolicyCredential {
  readonly id: string;
  readonly user_id: string;
  readonly type: string;
  readonly credential_id?: string;
  readonly public_key: string;
}

export interface PolicyActivity {
  /** e.g. ACTIVITY_TYPE_SIGN_TRANSACTION_V2 */
  readonly type: string;
  /** The version-less name, e.g. SIGN_TRANSACTION. */
  readonly kind: string;
  readonly resource: string;
  readonly action: string;
  /** Only the parameters wire-compat §5 lists for this activity type. */
  readonly params?: Readonly<Record<string, unknown>>;
}

export interface PolicyWallet {
  readonly id: string;
  readonly imported: boolean;
  readonly exported: boolean;
  readonly label: string;
}

export interface PolicyPrivateKey {
  readonly id: string;
  readonly tags: readonly string[];
  readonly imported: boolean;
  readonly exported: boolean;
  readonly label: string;
}

/** Condition keywords. Leave out what the request does not carry. */
export interface ConditionContext {
  readonly activity?: PolicyActivity;
  readonly wallet?: PolicyWallet;
  readonly wallets?: readonly PolicyWallet[];
  readonly wallet_account?: { readonly address: string };
  readonly private_key?: PolicyPrivateKey;
  readonly eth?: {
    readonly tx?: Readonly<Record<string, unknown>>;
    readonly eip_712?: Readonly<Record<string, unknown>>;
    readonly eip_7702_authorization?: Readonly<Record<string, unknown>>;
  };
  readonly solana?: { readonly tx?: Readonly<Record<string, unknown>> };
  readonly tron?: { readonly tx?: Readonly<Record<string, unknown>> };
  readonly bitcoin?: { readonly tx?: Readonly<Record<string, unknown>> };
  readonly tempo?: { readonly tx?: Readonly<Record<string, unknown>> };
  /** Roots of a custom schema. */
  readonly [keyword: string]: unknown;
}

/** Consensus keywords: who has approved so far, and with which credentials. */
export interface ConsensusContext {
  readonly approvers: readonly PolicyUser[];
  readonly credentials: readonly PolicyCredential[];
  readonly [keyword: string]: unknown;
}

export interface EvaluationContext {
  readonly condition: ConditionContext;
  readonly consensus: ConsensusContext;
  /** Trusted server time (`time.now`): a Date or epoch milliseconds. Never client-supplied. */
  readonly now: Date | number;
  /** True when evaluating for a REJECT vote: policies that would allow or wait for consensus
   *  report OUTCOME_REJECTED, and the decision is DENY. */
  readonly rejected?: boolean;
  /**
   * The policies the request deletes or replaces. Their evaluation cost is not charged to the
   * decision's shared budget, and running out of their own budget does not make them deny: a
   * policy can never block its own removal by being costly. (A cheap DENY that forbids its own
   * removal still does.)
   */
  readonly ownCostExempt?: ReadonlySet<string>;
}
