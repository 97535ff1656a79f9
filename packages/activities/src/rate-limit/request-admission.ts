/**
 * The order in which one request is metered, decided here and nowhere else:
 *
 * 1. the client address's bucket, one token, before the body is parsed or the stamp verified
 *    (`admitClient`), so a flood of forged stamps costs a bucket lookup each;
 * 2. the service verifies the stamp and finds the user holding its API key;
 * 3. the user's then the organization's bucket, as many tokens as the request costs
 *    (`charge`, called by the service through the RequestMeter it was handed), so only a
 *    request whose stamp verified spends an organization's budget;
 * 4. the work.
 *
 * The request handler makes one RequestAdmission per request, runs step 1, hands it to the
 * service as its RequestMeter, and reads back what happened: the refusal to answer 429 with,
 * the limiter's failure to answer 503 with, or the tightest budget for the `ratelimit-*`
 * headers.
 * @module
 */
import { PortError, portErrorCodeOf } from '../ports/port-error.js';
import {
  type RateLimitDecision,
  type RateLimiter,
  RateLimiterUnavailableError,
} from '../ports/rate-limiter.js';
import {
  type Admission,
  admitClient,
  admitPrincipal,
  type PrincipalCharge,
  type RateLimitRefusal,
  rateLimitedMessage,
} from './admission.js';
import type { RateLimitLane } from './lanes.js';
import type { RateLimitRules } from './rules.js';
import type { RateLimitScope } from './scopes.js';

/**
 * What a service is handed to charge a verified request (step 3). Absent, nothing is charged.
 * @example
 * const principal = await findPrincipal(tx, organization, stamp, now);
 * await meter?.charge({ organizationId, userId: principal.user.userId, cost: 1 });
 */
export interface RequestMeter {
  /**
   * Charges the request to its user and organization, after the stamp verified and before
   * any work. At most once per request: a second call (a store that retries its transaction
   * runs the callback again) returns the first call's outcome. Rejects with RateLimitedError
   * when a bucket refuses and with RateLimiterUnavailableError when the limiter cannot
   * answer; either way the work must not run.
   */
  charge(charge: PrincipalCharge): Promise<void>;
}

/**
 * A verified request refused by its user's or organization's bucket. It aborts the service's
 * transaction (nothing is written); the request handler answers it as a 429. Code
 * `RATE_LIMITED`; recognize it with `RateLimitedError.is(error)`.
 * @example
 * if (RateLimitedError.is(error)) console.log(error.refusal.scope); // 'organization'
 */
export class RateLimitedError extends PortError {
  readonly code = 'RATE_LIMITED';

  constructor(readonly refusal: RateLimitRefusal) {
    super(rateLimitedMessage(refusal.lane, refusal.scope));
    this.name = 'RateLimitedError';
  }

  /** True for a RateLimitedError of this copy of the package or any other. */
  static is(value: unknown): value is RateLimitedError {
    return portErrorCodeOf(value) === 'RATE_LIMITED';
  }
}

/**
 * One request's admission, step by step (see the module comment).
 * @example
 * const admission = new RequestAdmission(limiter, rules, 'chain_expensive');
 * const refused = await admission.admitClient(request.remoteAddress);
 * if (refused) return reply429(refused);
 * await activities.submit('create_wallet', request, admission); // charges step 3
 * const headers = admission.budget; // the tightest bucket seen
 */
export class RequestAdmission implements RequestMeter {
  private tightest: { scope: RateLimitScope; decision: RateLimitDecision } | undefined;
  private refused: RateLimitRefusal | undefined;
  private failed: RateLimiterUnavailableError | undefined;
  private charged: Promise<void> | undefined;

  constructor(
    private readonly limiter: RateLimiter,
    private readonly rules: RateLimitRules,
    readonly lane: RateLimitLane,
  ) {}

  /**
   * Step 1: the client address's bucket. Resolves to the refusal, or undefined when admitted.
   * Rejects with RateLimiterUnavailableError when the limiter cannot answer.
   */
  async admitClient(clientAddress: string | undefined): Promise<RateLimitRefusal | undefined> {
    const admission = await this.watch(
      admitClient(this.limiter, this.rules, this.lane, clientAddress),
    );
    return this.record(admission);
  }

  charge(charge: PrincipalCharge): Promise<void> {
    this.charged ??= this.watch(admitPrincipal(this.limiter, this.rules, this.lane, charge)).then(
      (admission) => {
        const refusal = this.record(admission);
        if (refusal) throw new RateLimitedError(refusal);
      },
    );
    return this.charged;
  }

  /** The bucket that refused the request, if one did (in either step). */
  get refusal(): RateLimitRefusal | undefined {
    return this.refused;
  }

  /** Why the limiter could not answer, if it could not (the request answers 503). */
  get unavailable(): RateLimiterUnavailableError | undefined {
    return this.failed;
  }

  /** The admitted bucket closest to empty so far; undefined when no bucket applied. */
  get budget(): { scope: RateLimitScope; decision: RateLimitDecision } | undefined {
    return this.tightest;
  }

  private async watch(taking: Promise<Admission>): Promise<Admission> {
    try {
      return await taking;
    } catch (error) {
      if (RateLimiterUnavailableError.is(error)) this.failed ??= error;
      throw error;
    }
  }

  private record(admission: Admission): RateLimitRefusal | undefined {
    if (!admission.allowed) {
      this.refused ??= admission;
      return admission;
    }
    const { scope, decision } = admission;
    if (
      scope &&
      decision &&
      (!this.tightest || decision.remaining < this.tightest.decision.remaining)
    )
      this.tightest = { scope, decision };
    return undefined;
  }
}
