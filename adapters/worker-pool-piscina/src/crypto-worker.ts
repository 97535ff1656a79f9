/**
 * The worker side of the pool: runs one job of `@keyhold/keys` (`runCryptoJob`) per task and
 * answers `{ok, value}` or `{ok: false, error}`. Byte arrays of the answer are moved back, not
 * copied, so no copy of a derived private key stays in the worker; the secret inputs were moved
 * here by the caller and are zeroed by the job itself.
 * @module
 */
import { type CryptoJobName, runCryptoJob } from '@keyhold/keys';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { failureOf, type JobAnswer } from './job-messages.js';

/** One task: a job and its input. */
export interface CryptoTask {
  name: CryptoJobName;
  input: unknown;
}

/** Piscina's entry: a task in, an answer out (movable when it carries bytes). */
export default function runTask({ task }: { task: CryptoTask }): unknown {
  let answer: JobAnswer;
  try {
    answer = { ok: true, value: runCryptoJob(task.name, task.input as never) };
  } catch (error) {
    return failureOf(error);
  }
  const buffers = ownBuffersIn(answer.value);
  if (buffers.length === 0) return answer;
  return move({ [transferableSymbol]: buffers, [valueSymbol]: answer } as never);
}

/**
 * The ArrayBuffers of the byte arrays in `value` that own their whole buffer (those can move);
 * a view into a larger buffer is left to be copied.
 */
function ownBuffersIn(value: unknown, found: ArrayBuffer[] = []): ArrayBuffer[] {
  if (value instanceof Uint8Array) {
    const { buffer } = value;
    if (
      buffer instanceof ArrayBuffer &&
      value.byteOffset === 0 &&
      value.byteLength === buffer.byteLength &&
      !found.includes(buffer)
    ) {
      found.push(buffer);
    }
  } else if (Array.isArray(value)) {
    for (const item of value) ownBuffersIn(item, found);
  } else if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) ownBuffersIn(item, found);
  }
  return found;
}
