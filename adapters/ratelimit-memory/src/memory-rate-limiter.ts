/**
 * The in-process RateLimiter: GCRA over a Map of one small record per key. It is exact and
 * atomic within one process (a take runs to completion before the next), and it counts only
 * this process's requests: several instances behind a balancer each meter separately — use
 * `@keyhold/ratelimit-redis` to share one budget.
 * @module
 */
import {
  type Clock,
  type GcraState,
  gcra,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitRule,
  systemClock,
} from '@keyhold/activities';

/**
 * @example
 * new MemoryRateLimiter({ clock: { now: () => fakeNow }, maxKeys: 10_000 });
 */
export interface MemoryRateLimiterOptions {
  /** Where time comes from. Default: the wall clock; tests inject one. */
  clock?: Clock;
  /** The most keys held at once (default 100 000, about 10 MB). */
  maxKeys?: number;
}

/** A bucket that has refilled is the same as no bucket (the model's own test, to the bit). */
const idle = (state: GcraState, now: number) => state.debtMs - (now - state.at) <= 0;

/** Idle keys dropped from the front per take: bounded work, yet faster than keys arrive. */
const IDLE_SWEEP_PER_TAKE = 2;

/**
 * GCRA in process memory, bounded. A key is idle once its bucket has refilled (its TAT is not
 * in the future), and an idle key is the same as an absent one, so idle keys are dropped:
 * a few per take from the least recently admitted end, and all at once when the map is full.
 * If the map is still nearly full of busy keys, the least recently admitted are forgotten —
 * their owners get a full bucket back, which errs towards admitting, never towards refusing
 * someone who kept to their limit.
 * @example
 * const limiter = new MemoryRateLimiter();
 * const decision = await limiter.take('query:ip:203.0.113.7', { limit: 60, periodMs: 1000 });
 * decision.allowed; // true
 */
export class MemoryRateLimiter implements RateLimiter {
  /** State per key, in the order keys were last admitted (a Map keeps insertion order). */
  private readonly states = new Map<string, GcraState>();
  private readonly clock: Clock;
  private readonly maxKeys: number;

  constructor(options: MemoryRateLimiterOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.maxKeys = options.maxKeys ?? 100_000;
    if (!Number.isSafeInteger(this.maxKeys) || this.maxKeys < 1)
      throw new RangeError(`maxKeys must be an integer ≥ 1, got ${options.maxKeys}`);
  }

  /** How many keys are held now (idle ones included until they are swept). */
  get size(): number {
    return this.states.size;
  }

  async take(key: string, rule: RateLimitRule, cost = 1): Promise<RateLimitDecision> {
    const now = this.clock.now();
    this.dropIdleFront(now, IDLE_SWEEP_PER_TAKE);
    const { decision, state } = gcra(this.states.get(key), rule, cost, now);
    if (decision.allowed && state !== undefined) {
      // Re-insert, so the Map's front stays the least recently admitted key.
      this.states.delete(key);
      if (this.states.size >= this.maxKeys) this.makeRoom(now);
      this.states.set(key, state);
    }
    return decision;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.states.clear();
  }

  private dropIdleFront(now: number, most: number): void {
    let dropped = 0;
    for (const [key, state] of this.states) {
      if (dropped >= most || !idle(state, now)) return;
      this.states.delete(key);
      dropped += 1;
    }
  }

  /**
   * Sweeps every idle key; if that frees less than a tenth of the map, forgets the least
   * recently admitted busy keys down to 90 %. Either way the next sweep is at least
   * `maxKeys / 10` new keys away, so the cost per take stays constant on average.
   */
  private makeRoom(now: number): void {
    for (const [key, state] of this.states) if (idle(state, now)) this.states.delete(key);
    const target = Math.floor(this.maxKeys * 0.9);
    for (const key of this.states.keys()) {
      if (this.states.size <= target) break;
      this.states.delete(key);
    }
  }
}
