/**
 * malformed-bodies-4xx: a correctly stamped but malformed request is refused with HTTP 4xx
 * (never 5xx, never 2xx) and a Status body `{code, message, details}` whose code matches the
 * HTTP status, with the spec's exact message where the spec fixes one:
 * - a body that is not JSON → 400 "bad request body";
 * - an activity envelope missing `type`, `timestampMs`, `organizationId` or `parameters` →
 *   400 "bad request body";
 * - an `organizationId` that is not a UUID → 400 "malformed organization ID provided";
 * - a UUID that names no organization → 404 "no organization found with the given ID".
 * Everything else (arbitrary text, JSON values and bytes, wrong types for known fields,
 * timestamps far outside any liveness window, unknown activity types, junk parameters, huge
 * numbers, deep nesting, 1–2 MiB bodies, unknown endpoints)
 * only has to be a well-formed 4xx refusal.
 * @module
 */
import fc from 'fast-check';
import { ConformanceClient, QUERY_PREFIX, SUBMIT_PREFIX, truncate } from '../client.js';
import { type ConformanceProperty, fcParameters } from '../property.js';
import { expectStatusRefusal, type StatusExpectation } from '../status-body.js';
import type { ConformanceTarget } from '../target.js';
import { uniqueName } from './signatures-verify.js';

export const BAD_REQUEST_BODY = 'bad request body';
export const MALFORMED_ORGANIZATION_ID = 'malformed organization ID provided';
export const ORGANIZATION_NOT_FOUND = 'no organization found with the given ID';

const UNKNOWN_SIGNER = `0x${'00'.repeat(19)}02`;
const DIGEST = '00'.repeat(32);
const SOME_UUID = '00000000-0000-4000-8000-000000000000';

interface Template {
  /** `/public/v1/submit/…` or `/public/v1/query/…`. */
  path: string;
  submit: boolean;
  /** A well-formed body: harmless if it were ever accepted (nothing is created or signed). */
  build(client: ConformanceClient): Record<string, unknown>;
}

const submit = (
  name: string,
  type: string,
  parameters: () => Record<string, unknown>,
): Template => ({
  path: `${SUBMIT_PREFIX}${name}`,
  submit: true,
  build: (client) => client.envelope(type, parameters()),
});
const query = (name: string, fields: Record<string, unknown> = {}): Template => ({
  path: `${QUERY_PREFIX}${name}`,
  submit: false,
  build: (client) => ({ organizationId: client.organizationId, ...fields }),
});

const TEMPLATES: Record<string, Template> = {
  create_wallet: submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', () => ({
    walletName: uniqueName('conformance-malformed'),
    accounts: [],
  })),
  create_private_keys: submit(
    'create_private_keys',
    'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2',
    () => ({
      privateKeys: [
        {
          privateKeyName: uniqueName('conformance-malformed'),
          curve: 'CURVE_SECP256K1',
          privateKeyTags: [],
          addressFormats: [],
        },
      ],
    }),
  ),
  sign_raw_payload: submit('sign_raw_payload', 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', () => ({
    signWith: UNKNOWN_SIGNER,
    payload: DIGEST,
    encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
    hashFunction: 'HASH_FUNCTION_NO_OP',
  })),
  sign_raw_payloads: submit('sign_raw_payloads', 'ACTIVITY_TYPE_SIGN_RAW_PAYLOADS', () => ({
    signWith: UNKNOWN_SIGNER,
    payloads: [DIGEST],
    encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
    hashFunction: 'HASH_FUNCTION_NO_OP',
  })),
  update_wallet: submit('update_wallet', 'ACTIVITY_TYPE_UPDATE_WALLET', () => ({
    walletId: SOME_UUID,
    walletName: 'conformance',
  })),
  whoami: query('whoami'),
  get_activity: query('get_activity', { activityId: SOME_UUID }),
  list_wallets: query('list_wallets'),
  list_private_keys: query('list_private_keys'),
  list_activities: query('list_activities'),
};
const TEMPLATE_NAMES = Object.keys(TEMPLATES);
const SUBMIT_NAMES = TEMPLATE_NAMES.filter((name) => TEMPLATES[name]!.submit);

const ENVELOPE_FIELDS = ['type', 'timestampMs', 'organizationId', 'parameters'] as const;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

type Case =
  | { kind: 'text'; at: string; text: string }
  | { kind: 'json-value'; at: string; value: unknown }
  | { kind: 'anything'; at: string; value: unknown }
  | { kind: 'bytes'; at: string; bytes: Uint8Array }
  | { kind: 'missing-field'; at: string; field: string }
  | { kind: 'wrong-type'; at: string; field: string; value: unknown }
  | { kind: 'malformed-organization-id'; at: string; organizationId: string }
  | { kind: 'unknown-organization'; at: string; organizationId: string }
  | { kind: 'stale-timestamp'; at: string; timestampMs: string }
  | { kind: 'unknown-type'; at: string; type: string }
  | { kind: 'junk-parameters'; at: string; parameters: unknown }
  | { kind: 'huge-number'; at: string; field: string; literal: string }
  | { kind: 'deep-nesting'; at: string; depth: number; open: string; close: string }
  | { kind: 'unknown-endpoint'; name: string; submit: boolean }
  | { kind: 'oversized'; at: string; bytes: number };

const anyTemplate = fc.constantFrom(...TEMPLATE_NAMES);
const submitTemplate = fc.constantFrom(...SUBMIT_NAMES);

/** Strings that are not UUIDs: arbitrary ones and near misses. */
const notUuid = fc
  .oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }),
    fc.uuid().chain((uuid) =>
      fc.oneof(
        fc.nat({ max: 35 }).map((i) => `${uuid.slice(0, i)}g${uuid.slice(i + 1)}`),
        fc.constant(uuid.replace(/-/g, '')),
        fc.constant(`{${uuid}}`),
        fc.constant(`${uuid}0`),
        fc.constant(uuid.slice(1)),
        fc.constant(` ${uuid}`),
        fc.constant(`urn:uuid:${uuid}`),
      ),
    ),
  )
  .filter((s) => !UUID.test(s));

const wrongType: Record<string, fc.Arbitrary<unknown>> = {
  type: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string()), fc.object()),
  timestampMs: fc.oneof(
    fc.boolean(),
    fc.object(),
    fc.array(fc.nat()),
    fc.integer({ max: 1_000_000 }),
    fc.string().filter((s) => !/^[0-9]+$/.test(s)),
  ),
  organizationId: fc.oneof(
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.uuid()),
    fc.object(),
  ),
  parameters: fc.oneof(fc.integer(), fc.boolean(), fc.string(), fc.array(fc.anything())),
};

const caseArb: fc.Arbitrary<Case> = fc.oneof(
  fc.record({
    kind: fc.constant('text' as const),
    at: anyTemplate,
    text: fc.string({ unit: 'grapheme', maxLength: 300 }),
  }),
  fc.record({
    kind: fc.constant('json-value' as const),
    at: anyTemplate,
    value: fc.jsonValue({ maxDepth: 4 }),
  }),
  fc.record({
    kind: fc.constant('anything' as const),
    at: anyTemplate,
    value: fc.anything({ maxDepth: 4 }),
  }),
  fc.record({
    kind: fc.constant('bytes' as const),
    at: anyTemplate,
    bytes: fc.uint8Array({ maxLength: 300 }),
  }),
  fc.record({
    kind: fc.constant('missing-field' as const),
    at: submitTemplate,
    field: fc.constantFrom(...ENVELOPE_FIELDS),
  }),
  fc
    .tuple(submitTemplate, fc.constantFrom(...ENVELOPE_FIELDS))
    .chain(([at, field]) =>
      wrongType[field]!.map((value) => ({ kind: 'wrong-type' as const, at, field, value })),
    ),
  fc.record({
    kind: fc.constant('malformed-organization-id' as const),
    at: anyTemplate,
    organizationId: notUuid,
  }),
  fc.record({
    kind: fc.constant('unknown-organization' as const),
    at: anyTemplate,
    organizationId: fc.uuid(),
  }),
  fc.record({
    kind: fc.constant('stale-timestamp' as const),
    at: submitTemplate,
    // 1970, 2001, 2286 and beyond: outside any liveness window.
    timestampMs: fc.constantFrom(
      '0',
      '1',
      '1000000000000',
      '9999999999999',
      '9999999999999999',
      '99999999999999999999',
    ),
  }),
  fc.record({
    kind: fc.constant('unknown-type' as const),
    at: submitTemplate,
    type: fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.constantFrom(
        'ACTIVITY_TYPE_UNSPECIFIED',
        'ACTIVITY_TYPE_DELETE_USERS',
        'ACTIVITY_TYPE_CREATE_WALLET_V9',
      ),
    ),
  }),
  fc.record({
    kind: fc.constant('junk-parameters' as const),
    at: submitTemplate,
    parameters: fc.oneof(
      fc.object({ maxDepth: 3 }),
      fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
    ),
  }),
  fc.record({
    kind: fc.constant('huge-number' as const),
    at: submitTemplate,
    field: fc.constantFrom('timestampMs', 'organizationId', 'parameter'),
    literal: fc.constantFrom(
      '1e400',
      '-1e400',
      '9'.repeat(400),
      '123456789012345678901234567890',
      '18446744073709551617',
      `0.${'0'.repeat(400)}1`,
      '-0',
    ),
  }),
  fc
    .record({
      kind: fc.constant('deep-nesting' as const),
      at: anyTemplate,
      depth: fc.integer({ min: 1, max: 20_000 }),
      open: fc.constantFrom('[', '{"a":'),
      close: fc.constant(''),
    })
    .map((c) => ({ ...c, close: c.open === '[' ? ']' : '}' })),
  // A string field of 1 MiB or more: too long for any name, and past a typical body limit.
  fc.record({
    kind: fc.constant('oversized' as const),
    at: submitTemplate,
    bytes: fc.constantFrom(1024 * 1024, 2 * 1024 * 1024),
  }),
  fc.record({
    kind: fc.constant('unknown-endpoint' as const),
    name: fc.stringMatching(/^[a-z][a-z_]{0,30}$/).map((s) => `conformance_unknown_${s}`),
    submit: fc.boolean(),
  }),
);

const MARKER = '__conformance_marker__';
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenientDecoder = new TextDecoder('utf-8');

/** True when no reasonable JSON reader could read these bytes. */
function isUnreadable(body: string | Uint8Array): boolean {
  const readable = (read: () => string) => {
    try {
      JSON.parse(read());
      return true;
    } catch {
      return false;
    }
  };
  if (typeof body === 'string')
    return !readable(() => body) && !readable(() => body.replace(/^\uFEFF/, ''));
  return !readable(() => decoder.decode(body)) && !readable(() => lenientDecoder.decode(body));
}

/** Replaces the first string found (depth first) in a parameters object with the marker. */
function replaceFirstString(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (typeof record[key] === 'string') {
      record[key] = MARKER;
      return true;
    }
    if (replaceFirstString(record[key])) return true;
  }
  return false;
}

interface Rendered {
  path: string;
  body: string | Uint8Array;
  expected: StatusExpectation;
}

function render(client: ConformanceClient, c: Case): Rendered {
  if (c.kind === 'unknown-endpoint') {
    return {
      path: `${c.submit ? SUBMIT_PREFIX : QUERY_PREFIX}${c.name}`,
      body: JSON.stringify({ organizationId: client.organizationId }),
      expected: {},
    };
  }
  const template = TEMPLATES[c.at]!;
  const body = template.build(client);
  const done = (text: string | Uint8Array, expected: StatusExpectation = {}): Rendered => ({
    path: template.path,
    body: text,
    expected: isUnreadable(text) ? { httpStatus: 400, message: BAD_REQUEST_BODY } : expected,
  });
  switch (c.kind) {
    case 'text':
      return done(c.text);
    case 'json-value':
      return done(JSON.stringify(c.value));
    case 'anything':
      return done(JSON.stringify(c.value) ?? 'undefined');
    case 'bytes':
      return done(c.bytes);
    case 'missing-field':
      delete body[c.field];
      return done(JSON.stringify(body), { httpStatus: 400, message: BAD_REQUEST_BODY });
    case 'wrong-type':
      body[c.field] = c.value;
      return done(JSON.stringify(body));
    case 'malformed-organization-id':
      body.organizationId = c.organizationId;
      return done(JSON.stringify(body), { httpStatus: 400, message: MALFORMED_ORGANIZATION_ID });
    case 'unknown-organization':
      body.organizationId = c.organizationId;
      return done(JSON.stringify(body), { httpStatus: 404, message: ORGANIZATION_NOT_FOUND });
    case 'stale-timestamp':
      body.timestampMs = c.timestampMs;
      return done(JSON.stringify(body));
    case 'unknown-type':
      body.type = c.type;
      return done(JSON.stringify(body));
    case 'junk-parameters':
      body.parameters = c.parameters;
      return done(JSON.stringify(body));
    case 'huge-number': {
      if (c.field === 'parameter') {
        replaceFirstString(body.parameters);
      } else {
        body[c.field] = MARKER;
      }
      return done(JSON.stringify(body).replace(`"${MARKER}"`, c.literal));
    }
    case 'oversized':
      replaceFirstString(body.parameters);
      return done(JSON.stringify(body).replace(MARKER, 'x'.repeat(c.bytes)));
    case 'deep-nesting': {
      const junk = `${c.open.repeat(c.depth)}0${c.close.repeat(c.depth)}`;
      const field = template.submit ? 'parameters' : 'organizationId';
      body[field] = MARKER;
      return done(JSON.stringify(body).replace(`"${MARKER}"`, junk));
    }
  }
}

export const malformedBodies4xx: ConformanceProperty = {
  name: 'malformed-bodies-4xx',
  description:
    'correctly stamped malformed requests (junk text/JSON/bytes, wrong types, missing fields, bad or ' +
    'unknown organization ids, unknown types, huge numbers, deep nesting) get HTTP 4xx with a Status ' +
    'body — never 5xx — and the spec’s exact message where it fixes one',
  async run(target: ConformanceTarget, options) {
    const client = new ConformanceClient(target);
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const { path, body, expected } = render(client, c);
        const response = await client.postStamped(path, body);
        const shown =
          typeof body === 'string' ? body : `bytes ${Buffer.from(body).toString('hex')}`;
        expectStatusRefusal(response, { ...expected, request: `${path} ${truncate(shown, 300)}` });
      }),
      fcParameters(options),
    );
  },
};
