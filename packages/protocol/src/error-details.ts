/**
 * The `details` each catalogue entry carries, typed per code: `new KeyholdError(key, details)`
 * is checked against the shape declared here, so a refusal's details stay the same from one
 * throw site to the next. A key with no declared shape takes any `ErrorContext`.
 * @module
 */
import type { MessageKey } from './messages.js';
import type { Timestamp } from './wire-types.js';

/**
 * Extra, non-secret context for the caller (where, which field, why). Never `errorCode` or
 * `@type`: those members of a Status detail are the catalogue's.
 */
export type ErrorContext = Readonly<Record<string, unknown>> & {
  readonly errorCode?: never;
  readonly '@type'?: never;
};

/** Why a request was refused, in words for a person; never parsed. */
interface Reason {
  readonly reason: string;
}

/** The details of the catalogue entries that declare a shape, by key. */
export interface ErrorDetailsByKey {
  NOT_FOUND: { readonly path: string };
  METHOD_NOT_ALLOWED: { readonly allow: string };
  UNSUPPORTED_ACTIVITY_TYPE: { readonly path: string } | { readonly type: string };
  UNSUPPORTED_QUERY: { readonly path: string } | { readonly query: string };
  UNKNOWN_FIELD: { readonly field: string } & Reason;
  TIMESTAMP_INVALID: {
    readonly field: '/timestampMs';
    readonly serverTimeMs: string;
    readonly toleranceMs: number;
  };
  MALFORMED_STAMP: Reason;
  NO_ACTIVITY_WITH_FINGERPRINT: { readonly fingerprint: string };
  ACTIVITY_NOT_FOUND: { readonly activityId: string };
  ALREADY_VOTED: { readonly activityId: string; readonly userId: string };
  ACTIVITY_FINISHED: { readonly activityId: string; readonly status: string };
  CONSENSUS_EXPIRED: { readonly activityId: string; readonly expiredAt: Timestamp };
  SIGNER_NOT_FOUND: { readonly signWith: string };
  WALLET_ACCOUNT_NOT_IN_ORGANIZATION: { readonly walletAccountId: string };
  /** What failed to parse; chain-specific members (`input`, `field`) may follow. */
  INVALID_TRANSACTION: Reason & ErrorContext;
  SIGNER_NOT_IN_TRANSACTION: Reason;
  /** `input`: the index of the input the key owns but cannot sign, when one is known. */
  TRANSACTION_INPUT_NOT_SIGNABLE: Partial<Reason> & { readonly input?: number };
  UNAVAILABLE: Reason;
  RATE_LIMIT_BACKEND_UNAVAILABLE: Record<string, never>;
}

// A declared shape for a key the catalogue does not have is a typo: refuse it at compile time.
type UnknownDetailKeys = Exclude<keyof ErrorDetailsByKey, MessageKey>;
const noUnknownDetailKeys: [UnknownDetailKeys] extends [never] ? true : UnknownDetailKeys = true;
void noUnknownDetailKeys;

/** The details of `K`: its declared shape, or any `ErrorContext`. */
export type ErrorDetailsOf<K extends MessageKey> = K extends keyof ErrorDetailsByKey
  ? ErrorDetailsByKey[K]
  : ErrorContext;

/**
 * The arguments after the key: details (required when `K` declares a shape with a required
 * member) and an optional message in place of the catalogue's text.
 */
export type ErrorDetailsArgs<K extends MessageKey> = K extends keyof ErrorDetailsByKey
  ? {} extends ErrorDetailsByKey[K]
    ? [details?: ErrorDetailsByKey[K], message?: string]
    : [details: ErrorDetailsByKey[K], message?: string]
  : [details?: ErrorContext, message?: string];
