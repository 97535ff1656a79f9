/**
 * The Ids port: activity ids are UUIDv7 (time-ordered, so listings page by id); every
 * other record id is a random UUIDv4.
 * @module
 */
import { bytesToHex } from '@noble/hashes/utils.js';

/**
 * Random bytes for ids, drawn from the platform's CSPRNG 512 at a time (as Node's own
 * `randomUUID` batches): each `getRandomValues` call costs about as much for 9 bytes as for 512,
 * and an activity id takes 9. Ids are not secrets, but they stay unguessable.
 */
const pool = new Uint8Array(512);
let poolAt = pool.length;
const randomBytes = (n: number): Uint8Array => {
  if (poolAt + n > pool.length) {
    globalThis.crypto.getRandomValues(pool);
    poolAt = 0;
  }
  poolAt += n;
  return pool.slice(poolAt - n, poolAt);
};

/** The Ids port: where record ids come from. */
export interface Ids {
  activityId(): string;
  uuid(): string;
}

/** The injection token of the Ids port. */
export const Ids: unique symbol = Symbol.for('keyhold.Ids');

/**
 * A UUIDv7 (RFC 9562 §5.7) from a millisecond timestamp, a 12-bit sequence in `rand_a`
 * (method 1 of §6.2: a counter keeps ids of one millisecond in order) and 62 random bits.
 */
export function uuidv7(
  nowMs: number,
  sequence: number,
  random: Uint8Array = randomBytes(8),
): string {
  const b = new Uint8Array(16);
  let ms = nowMs;
  for (let i = 5; i >= 0; i--) {
    b[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  b[6] = 0x70 | ((sequence >> 8) & 0x0f);
  b[7] = sequence & 0xff;
  b.set(random.subarray(0, 8), 8);
  b[8] = 0x80 | (b[8]! & 0x3f);
  const h = bytesToHex(b);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Random ids; activity ids from one process strictly increase. */
export function randomIds(clock: { now(): number } = { now: () => Date.now() }): Ids {
  let lastMs = -1;
  let sequence = 0;
  return {
    activityId() {
      let ms = clock.now();
      if (ms <= lastMs) {
        ms = lastMs;
        sequence += 1;
        if (sequence > 0xfff) {
          ms += 1;
          sequence = 0;
        }
      } else {
        // Start each millisecond low in the counter space, leaving room to count up.
        sequence = randomBytes(1)[0]!;
      }
      lastMs = ms;
      return uuidv7(ms, sequence);
    },
    uuid: () => globalThis.crypto.randomUUID(),
  };
}
