/**
 * A refusal raised while an activity executes: unlike a failure (the activity is stored
 * FAILED), the request is refused as if a precheck had caught it — the activity's transaction
 * rolls back, nothing of it is stored, and the caller gets the Status body with the error's
 * HTTP status. Used where the answer depends on stored state yet must not leave a record: a
 * wrong or expired one-time code, a bad verification token, an unreachable mail server.
 * With `commitWrites`, what the handler wrote before refusing commits (and nothing else: no
 * activity, evaluation or event) — a wrong code counts against its attempts in the same
 * transaction that read them, so concurrent tries cannot pass the limit together.
 * @module
 */
import { isKeyholdError, type KeyholdError } from '@keyhold/protocol';
import type { ActivityHandler } from './activity-handler.js';

/** Thrown by a handler's `execute` to refuse the request (see the module). */
export class ExecutionRefusal extends Error {
  constructor(
    readonly error: KeyholdError,
    readonly commitWrites = false,
  ) {
    super(error.message);
    this.name = 'ExecutionRefusal';
  }
}

/**
 * The handler with every KeyholdError its `execute` throws turned into a refusal.
 * @example
 * export const verifyOtpHandler = refusingHandler<'VERIFY_OTP'>({ async execute(ctx, p) { … } });
 */
export function refusingHandler<P, R>(handler: ActivityHandler<P, R>): ActivityHandler<P, R> {
  return {
    ...handler,
    async execute(ctx, parameters) {
      try {
        return await handler.execute(ctx, parameters);
      } catch (error) {
        if (isKeyholdError(error)) throw new ExecutionRefusal(error);
        throw error;
      }
    },
  };
}

/**
 * Runs `work`, turning every KeyholdError it throws into a refusal: for the part of a handler
 * whose failure must leave no record (a verification token) while the rest fails as usual.
 * @example
 * const claims = await refusing(() => readVerificationToken(ctx, p.verificationToken));
 */
export async function refusing<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isKeyholdError(error)) throw new ExecutionRefusal(error);
    throw error;
  }
}
