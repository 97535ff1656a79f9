/**
 * What a crypto job's answer looks like on the wire between threads. Structured clone keeps an
 * Error's message but not its class or fields, so a KeyholdError (INVALID_PATH, INVALID_PUBLIC_KEY
 * …) travels as its catalogue key and context and is rebuilt on the caller's side; any other
 * error travels as its name and message (never a stack, never a secret: jobs do not put secrets
 * in errors).
 * @module
 */
import { isKeyholdError, KeyholdError, type MessageKey } from '@keyhold/protocol';

/**
 * A job's answer: its output, or its error.
 * @example
 * const answer: JobAnswer = { ok: true, value: ['bc1p…'] };
 */
export type JobAnswer =
  | { ok: true; value: unknown }
  | {
      ok: false;
      error:
        | { kind: 'keyhold'; key: string; context: Record<string, unknown>; message: string }
        | { kind: 'error'; name: string; message: string };
    };

/**
 * The answer for a thrown value.
 * @example
 * try { run(); } catch (error) { return failureOf(error); }
 */
export function failureOf(error: unknown): JobAnswer {
  if (isKeyholdError(error)) {
    return {
      ok: false,
      error: {
        kind: 'keyhold',
        key: error.key,
        context: structuredCloneable(error.context),
        message: error.message,
      },
    };
  }
  const { name, message } =
    error instanceof Error ? error : { name: 'Error', message: String(error) };
  return { ok: false, error: { kind: 'error', name, message } };
}

/**
 * The error an answer carries, rebuilt: a KeyholdError again, or an Error of the same name
 * (TypeError and RangeError keep their class).
 * @example
 * if (!answer.ok) throw errorOf(answer);
 */
export function errorOf(answer: Extract<JobAnswer, { ok: false }>): Error {
  const { error } = answer;
  if (error.kind === 'keyhold') {
    return new KeyholdError(error.key as MessageKey, error.context, error.message);
  }
  const made =
    error.name === 'TypeError'
      ? new TypeError(error.message)
      : error.name === 'RangeError'
        ? new RangeError(error.message)
        : new Error(error.message);
  made.name = error.name;
  return made;
}

/** Context of an error, kept to what structured clone can carry. */
function structuredCloneable(context: Record<string, unknown>): Record<string, unknown> {
  try {
    return structuredClone(context);
  } catch {
    return JSON.parse(JSON.stringify(context)) as Record<string, unknown>;
  }
}
