/**
 * Validation of envelopes, intents and query bodies with ajv. Every schema is compiled once,
 * on first use, and a failure becomes a KeyholdError with the catalogue message that the
 * failing field names (`x-error` / `x-missing`), or "bad request body".
 * @module
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { KeyholdError } from './keyhold-error.js';
import { type MessageKey, Messages } from './messages.js';
import { INTENT_SCHEMAS } from './schemas/intents.js';
import { QUERY_SCHEMAS } from './schemas/queries.js';
import type { Schema } from './schemas/schema-builders.js';

const ajv = new Ajv({ allErrors: false, verbose: true, strict: true, allowUnionTypes: true });
ajv.addKeyword({ keyword: 'x-error', schemaType: 'string' });
ajv.addKeyword({ keyword: 'x-missing', schemaType: 'string' });

const cache = new Map<string, ValidateFunction>();
function compiled(id: string, schema: Schema): ValidateFunction {
  let fn = cache.get(id);
  if (!fn) {
    fn = ajv.compile(schema);
    cache.set(id, fn);
  }
  return fn;
}

function messageKeyOf(error: ErrorObject): MessageKey {
  const parent = (error.parentSchema ?? {}) as Record<string, unknown>;
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    const props = (parent.properties ?? {}) as Record<string, Record<string, unknown>>;
    const key = props[missing]?.['x-missing'];
    if (typeof key === 'string' && key in Messages) return key as MessageKey;
    return 'BAD_REQUEST_BODY';
  }
  const key = parent['x-error'];
  if (typeof key === 'string' && key in Messages) return key as MessageKey;
  return 'BAD_REQUEST_BODY';
}

function check(id: string, schema: Schema, value: unknown, base: string): void {
  const fn = compiled(id, schema);
  if (fn(value)) return;
  const error = fn.errors?.[0];
  if (!error) throw new KeyholdError('BAD_REQUEST_BODY');
  const where =
    error.keyword === 'required'
      ? `${base}${error.instancePath}/${(error.params as { missingProperty: string }).missingProperty}`
      : `${base}${error.instancePath}`;
  throw new KeyholdError(messageKeyOf(error), {
    field: where,
    reason: error.keyword === 'required' ? 'missing' : (error.message ?? 'invalid'),
  });
}

const ENVELOPE: Schema = {
  type: 'object',
  properties: {
    type: { type: 'string', maxLength: 128 },
    timestampMs: { type: 'string', pattern: '^[0-9]{1,16}$' },
    organizationId: { type: 'string', maxLength: 128 },
    parameters: { type: 'object' },
    generateAppProofs: { type: 'boolean' },
  },
  required: ['type', 'timestampMs', 'organizationId', 'parameters'],
  additionalProperties: false,
};

/** Checks the activity request envelope. */
export function validateEnvelope(body: unknown): void {
  check('envelope', ENVELOPE, body, '');
}

/** Checks `parameters` against the schema of `type`. */
export function validateIntent(type: string, parameters: unknown): void {
  const schema = INTENT_SCHEMAS[type as keyof typeof INTENT_SCHEMAS];
  if (!schema) throw new KeyholdError('ACTIVITY_TYPE_NOT_SUPPORTED', { type });
  check(`intent:${type}`, schema, parameters, '/parameters');
}

/** Checks a query body. */
export function validateQuery(name: string, body: unknown): void {
  const schema = QUERY_SCHEMAS[name];
  if (!schema) throw new KeyholdError('QUERY_NOT_SUPPORTED', { query: name });
  check(`query:${name}`, schema, body, '');
}

/** True when `value` is a canonical UUID string. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_RE.test(value);
}
const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
