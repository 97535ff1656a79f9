/**
 * Small builders for the JSON Schemas of intents and queries. Two annotation keywords tie a
 * failing field to its catalogue message: `x-error` (the value is wrong) and `x-missing`
 * (the field is absent). Without them a failure is "bad request body".
 * @module
 */
import type { MessageKey } from '../messages.js';

export type Schema = Record<string, unknown>;

export const UUID_PATTERN =
  '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

export const str = (extra: Schema = {}): Schema => ({ type: 'string', maxLength: 4096, ...extra });
export const name = (): Schema => str({ minLength: 1, maxLength: 256 });
export const uuid = (): Schema => ({ type: 'string', pattern: UUID_PATTERN });
export const bool = (): Schema => ({ type: 'boolean' });
export const int = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra });
/** An int64 carried as a decimal string. */
export const int64 = (extra: Schema = {}): Schema => ({
  type: 'string',
  pattern: '^[0-9]{1,19}$',
  ...extra,
});

export function enumOf(
  values: readonly string[],
  error?: MessageKey,
  missing?: MessageKey,
): Schema {
  const s: Schema = { type: 'string', enum: [...values] };
  if (error) s['x-error'] = error;
  if (missing) s['x-missing'] = missing;
  return s;
}

export const arr = (items: Schema, extra: Schema = {}): Schema => ({
  type: 'array',
  items,
  maxItems: 100,
  ...extra,
});

/**
 * An object of exactly these members: an unknown one is refused ("unknown field"), so an
 * activity stores and echoes only what its schema says (the published clients send nothing
 * else). `additionalProperties: false` rather than ajv's `removeAdditional`: the raw body is
 * kept as the vote's signed message, so a dropped field would still be stored there.
 */
export function obj(properties: Record<string, Schema>, required: string[] = []): Schema {
  return { type: 'object', properties, required, additionalProperties: false };
}

/**
 * An object whose unknown members are tolerated: query bodies only, which nothing stores or
 * echoes (a gRPC gateway's default JSON decoding drops unknown fields too).
 */
export function openObj(properties: Record<string, Schema>, required: string[] = []): Schema {
  return { type: 'object', properties, required };
}

/** With an annotation attached. */
export const withError = (s: Schema, error: MessageKey, missing?: MessageKey): Schema => ({
  ...s,
  'x-error': error,
  ...(missing ? { 'x-missing': missing } : {}),
});
