/**
 * The OpenAPI 3.1 document of what a Keyhold instance serves, generated from the protocol's
 * own schemas — the JSON Schemas ajv checks intents and queries against — so it cannot drift
 * from what the server accepts: every submit path (one per activity kind; its body is any
 * version of the kind, each with its intent schema), every query, the Keyhold extensions, the
 * discovery documents and the operational endpoints. Served at `GET /openapi.json`; a test
 * checks it against the routes the server answers, both ways.
 *
 * The schemas keep their `x-error` / `x-missing` annotations (which catalogue message a bad
 * field gets): OpenAPI 3.1 allows extension keywords in schemas.
 * @module
 */

import { QueryService } from '@keyhold/activities';
import { FRAME_PATHS } from '@keyhold/frames';
import { ACTIVITY_DEFINITIONS, INTENT_SCHEMAS, QUERY_SCHEMAS } from '@keyhold/protocol';
import {
  EXPLAIN_POLICIES_PATH,
  OAUTH2_ISSUER_PATH,
  PUBLIC_KEYS_PATH,
} from './keyhold-extensions.js';
import { NOT_AVAILABLE_QUERIES } from './not-available-queries.js';

/** Where the document is served. */
export const OPENAPI_PATH = '/openapi.json';

/** Where receivers fetch the keys that verify webhook deliveries (as the handler serves it). */
const WEBHOOK_JWKS = '/public/v1/discovery/webhooks/jwks';

/** One operation of an OpenAPI document (the parts Keyhold uses). */
export type OpenApiOperation = Record<string, unknown>;
/** The operations of one path, by lower-case method. */
export type OpenApiPathItem = Record<string, OpenApiOperation>;

/** What an instance serves beyond the fixed routes. */
export interface OpenApiDocumentOptions {
  /** `GET /metrics` is served (a metrics exposition is configured). */
  metrics?: boolean;
  /** Keyhold's OIDC issuer documents are served here. */
  oauth2Issuer?: boolean;
  /** The self-hosted export and import frames are served (`createKeyhold({ frames })`). */
  frames?: boolean;
  /** The version the document names (`info.version`). */
  version?: string;
}

const statusSchema = {
  type: 'object',
  description: 'A refusal: the gRPC-style Status body of the public API.',
  properties: {
    code: { type: 'integer' },
    message: { type: 'string' },
    details: { type: 'array', items: { type: 'object' } },
  },
  required: ['code', 'message'],
};

const jsonContent = (schema: unknown) => ({ 'application/json': { schema } });
const refusal = (description: string) => ({
  description,
  content: jsonContent({ $ref: '#/components/schemas/Status' }),
});
const REFUSALS = {
  '400': refusal('the body does not match the schema (the catalogue message names the field)'),
  '401': refusal('no stamp, or a stamp that does not verify for this body'),
  '403': refusal('the stamp verified, but its credential may not do this'),
  '429': { description: 'rate limited (Retry-After)' },
  '503': refusal('a dependency is unavailable; retry'),
};
const STAMPED = [{ apiKeyStamp: [] }, { webAuthnStamp: [] }];

function submitOperation(path: string): OpenApiOperation {
  const definitions = ACTIVITY_DEFINITIONS.filter((d) => d.path === path);
  const variants = definitions.map((d) => ({
    type: 'object',
    title: d.type,
    properties: {
      type: { const: d.type },
      timestampMs: { type: 'string', pattern: '^[0-9]+$' },
      organizationId: { type: 'string' },
      parameters: INTENT_SCHEMAS[d.type as keyof typeof INTENT_SCHEMAS] ?? { type: 'object' },
    },
    required: ['type', 'timestampMs', 'organizationId', 'parameters'],
  }));
  const first = definitions[0]!;
  return {
    operationId: `submit_${path}`,
    summary: `Submit ${first.kind} (${first.resource} ${first.action})`,
    tags: ['activities'],
    security: STAMPED,
    requestBody: {
      required: true,
      content: jsonContent(variants.length === 1 ? variants[0] : { oneOf: variants }),
    },
    responses: {
      '200': {
        description: `the activity (result: ${definitions.map((d) => d.resultKey).join(' / ')})`,
        content: jsonContent({
          type: 'object',
          properties: { activity: { $ref: '#/components/schemas/Activity' } },
          required: ['activity'],
        }),
      },
      ...REFUSALS,
    },
  };
}

function queryOperation(name: string): OpenApiOperation {
  return {
    operationId: `query_${name}`,
    summary: `Query ${name}`,
    tags: ['queries'],
    security: STAMPED,
    requestBody: {
      required: true,
      content: jsonContent(QUERY_SCHEMAS[name as keyof typeof QUERY_SCHEMAS] ?? { type: 'object' }),
    },
    responses: {
      '200': { description: 'the answer', content: jsonContent({ type: 'object' }) },
      ...REFUSALS,
    },
  };
}

const getJson = (operationId: string, summary: string, tag: string): OpenApiPathItem => ({
  get: {
    operationId,
    summary,
    tags: [tag],
    responses: { '200': { description: summary, content: jsonContent({ type: 'object' }) } },
  },
});

/**
 * The OpenAPI 3.1 document of an instance serving what `options` says.
 * @example
 * const doc = openApiDocument({ metrics: true });
 * Object.keys(doc.paths).includes('/public/v1/submit/create_wallet'); // true
 */
export function openApiDocument(options: OpenApiDocumentOptions = {}): {
  openapi: string;
  paths: Record<string, OpenApiPathItem>;
  [key: string]: unknown;
} {
  const paths: Record<string, OpenApiPathItem> = {};
  for (const path of [...new Set(ACTIVITY_DEFINITIONS.map((d) => d.path))].sort()) {
    paths[`/public/v1/submit/${path}`] = { post: submitOperation(path) };
  }
  for (const name of [...QueryService.names()].sort()) {
    paths[`/public/v1/query/${name}`] = { post: queryOperation(name) };
  }
  // Queries of hosted services Keyhold does not have: served, with a 400 that says so.
  for (const [name, reason] of Object.entries(NOT_AVAILABLE_QUERIES).sort()) {
    paths[`/public/v1/query/${name}`] ??= {
      post: {
        operationId: `query_${name}`,
        summary: `Not available in Keyhold: ${reason}`,
        tags: ['not available'],
        deprecated: true,
        responses: { '400': refusal('QUERY_NOT_AVAILABLE: not available in Keyhold, and why') },
      },
    };
  }
  paths[EXPLAIN_POLICIES_PATH] = {
    post: {
      operationId: 'keyhold_explain_policies',
      summary: 'Dry-run the policy decision on a proposed activity (writes nothing)',
      tags: ['keyhold'],
      security: STAMPED,
      requestBody: {
        required: true,
        content: jsonContent({
          type: 'object',
          properties: { organizationId: { type: 'string' }, activity: { type: 'object' } },
          required: ['organizationId', 'activity'],
        }),
      },
      responses: {
        '200': { description: 'the explanation', content: jsonContent({ type: 'object' }) },
        ...REFUSALS,
      },
    },
  };
  paths[PUBLIC_KEYS_PATH] = getJson(
    'keyhold_public_keys',
    'Every public key Keyhold publishes (signer, notarizer, TLS fetcher, webhook JWKS)',
    'keyhold',
  );
  if (options.oauth2Issuer) {
    paths[`${OAUTH2_ISSUER_PATH}/.well-known/openid-configuration`] = getJson(
      'keyhold_oidc_configuration',
      "The OIDC discovery document of Keyhold's token issuer",
      'keyhold',
    );
    paths[`${OAUTH2_ISSUER_PATH}/jwks`] = getJson(
      'keyhold_oidc_jwks',
      "The JWKS of Keyhold's token issuer",
      'keyhold',
    );
  }
  paths[WEBHOOK_JWKS] = getJson(
    'webhook_jwks',
    'The keys that verify webhook deliveries (JWKS)',
    'discovery',
  );
  paths['/health'] = getJson('health', 'Liveness: the process answers', 'operations');
  paths['/ready'] = getJson('ready', 'Readiness: the store answers', 'operations');
  if (options.metrics) {
    paths['/metrics'] = {
      get: {
        operationId: 'metrics',
        summary: 'Prometheus metrics (text exposition format)',
        tags: ['operations'],
        responses: {
          '200': {
            description: 'the exposition',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
      },
    };
  }
  if (options.frames) {
    for (const [kind, path] of Object.entries(FRAME_PATHS)) {
      paths[path] = {
        get: {
          operationId: `${kind}_frame`,
          summary: `The ${kind} frame for @turnkey/iframe-stamper, pinned to the signer key`,
          tags: ['frames'],
          responses: {
            '200': {
              description: 'the page (Content-Security-Policy with frame-ancestors)',
              content: { 'text/html': { schema: { type: 'string' } } },
            },
          },
        },
      };
    }
  }
  paths[OPENAPI_PATH] = getJson('openapi', 'This OpenAPI document', 'operations');
  return {
    openapi: '3.1.0',
    info: {
      title: 'Keyhold',
      version: options.version ?? '0.0.0',
      description:
        "Keyhold's HTTP API: Turnkey's public API (activities and queries, stamped with X-Stamp or X-Stamp-WebAuthn), Keyhold's extensions and its operational endpoints.",
    },
    paths,
    components: {
      schemas: {
        Status: statusSchema,
        Activity: {
          type: 'object',
          description:
            'An activity as the public API returns it (id, status, type, intent, result, votes, fingerprint…)',
          properties: {
            id: { type: 'string' },
            organizationId: { type: 'string' },
            status: { type: 'string' },
            type: { type: 'string' },
            fingerprint: { type: 'string' },
          },
        },
      },
      securitySchemes: {
        apiKeyStamp: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Stamp',
          description: 'base64url JSON {publicKey, scheme, signature} over the exact body bytes',
        },
        webAuthnStamp: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Stamp-WebAuthn',
          description: 'a passkey assertion over the exact body bytes',
        },
      },
    },
  };
}

/**
 * Adds `paths` (another handler's, mounted under `prefix`) to a document: how the payment
 * gateway's routes join Keyhold's when `keyhold serve` mounts it under `/pay`.
 * @example
 * const doc = withOpenApiPaths(openApiDocument(), '/pay', PAY_OPENAPI_PATHS);
 */
export function withOpenApiPaths<D extends { paths: Record<string, OpenApiPathItem> }>(
  document: D,
  prefix: string,
  paths: Readonly<Record<string, OpenApiPathItem>>,
): D {
  const merged = { ...document.paths };
  for (const [path, item] of Object.entries(paths)) merged[`${prefix}${path}`] = item;
  return { ...document, paths: merged };
}
