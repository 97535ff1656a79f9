/**
 * Validation of envelopes, intents and query bodies with ajv. Every schema is compiled once,
 * on first use, and a failure becomes a KeyholdError with the catalogue message that the
 * failing field names (`x-error` / `x-missing`), "unknown field: <path>" for a member no
 * schema lists, or "bad request body".
 * @module
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { KeyholdError } from './keyhold-error.js';
import { type MessageKey, Messages } from './messages.js';
import { INTENT_SCHEMAS } from './schemas/intents.js';
import { QUERY_SCHEMAS } from './schemas/queries.js';
import type { JsonSchema } from './schemas/schema-builders.js';

const ajv = new Ajv({ allErrors: false, verbose: true, strict: true, allowUnionTypes: true });
ajv.addKeyword({ keyword: 'x-error', schemaType: 'string' });
ajv.addKeyword({ keyword: 'x-missing', schemaType: 'string' });

const cache = new Map<string, ValidateFunction>();
function compiled(id: string, schema: JsonSchema): ValidateFunction {
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
    return 'REQUEST_INVALID';
  }
  const key = parent['x-error'];
  if (typeof key === 'string' && key in Messages) return key as MessageKey;
  return 'REQUEST_INVALID';
}

/** Longest unknown member name quoted back: the name itself may be most of the body. */
const MAX_ECHOED_NAME = 64;

/** The JSON Pointer of an unknown member, its name escaped (RFC 6901) and cut short. */
function unknownFieldPath(base: string, error: ErrorObject): string {
  const name = (error.params as { additionalProperty: string }).additionalProperty;
  const shown = name.length > MAX_ECHOED_NAME ? `${name.slice(0, MAX_ECHOED_NAME)}…` : name;
  return `${base}${error.instancePath}/${shown.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

function check(id: string, schema: JsonSchema, value: unknown, base: string): void {
  const fn = compiled(id, schema);
  if (fn(value)) return;
  const error = fn.errors?.[0];
  if (!error) throw new KeyholdError('REQUEST_INVALID');
  if (error.keyword === 'additionalProperties') {
    // Before x-error: an annotated object (e.g. a sub-organization's `wallet`) would
    // otherwise answer with its own message for a member it does not have.
    const field = unknownFieldPath(base, error);
    throw new KeyholdError(
      'UNKNOWN_FIELD',
      { field, reason: 'not a field of this request' },
      `${Messages.UNKNOWN_FIELD.message}: ${field}`,
    );
  }
  const where =
    error.keyword === 'required'
      ? `${base}${error.instancePath}/${(error.params as { missingProperty: string }).missingProperty}`
      : `${base}${error.instancePath}`;
  throw new KeyholdError(messageKeyOf(error), {
    field: where,
    reason: error.keyword === 'required' ? 'missing' : (error.message ?? 'invalid'),
  });
}

/**
 * The members of every activity request of the published types (`v1…Request`): sdk-server
 * 8.2.1 sends the first four; `generateAppProofs` is optional. Nothing else.
 */
const ENVELOPE: JsonSchema = {
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
  if (!Object.hasOwn(INTENT_SCHEMAS, type)) {
    throw new KeyholdError('UNSUPPORTED_ACTIVITY_TYPE', { type });
  }
  const schema = INTENT_SCHEMAS[type as keyof typeof INTENT_SCHEMAS];
  check(`intent:${type}`, schema, parameters, '/parameters');
}

/** Checks a query body. */
export function validateQuery(name: string, body: unknown): void {
  if (!Object.hasOwn(QUERY_SCHEMAS, name)) {
    throw new KeyholdError('UNSUPPORTED_QUERY', { query: name });
  }
  const schema = QUERY_SCHEMAS[name as keyof typeof QUERY_SCHEMAS];
  check(`query:${name}`, schema, body, '');
}

/** True when `value` is a canonical UUID string. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_RE.test(value);
}
const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
