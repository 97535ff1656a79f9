/**
 * `GET /openapi.json` over HTTP (Express and Koa), against a server started here (with metrics): a valid OpenAPI
 * 3.1 document (checked by a validator of the OpenAPI schemas), generated from the protocol's
 * schemas, that agrees with the routes the server answers both ways:
 * - every operation in it is answered (not 404, 405 or 501) at its method;
 * - every candidate path — every submit path of the wire protocol's activity types, every
 *   query the public API names, every fixed route, and some that exist nowhere — that the
 *   server answers at a method is in the document at that method, and none that it refuses.
 */

import { bundleFrameScripts } from '@keyhold/frames';
import { PrometheusMetrics } from '@keyhold/metrics-prometheus';
import { ACTIVITY_TYPES, INTENT_SCHEMAS, QUERY_SCHEMAS, submitPathOf } from '@keyhold/protocol';
import { generateApiKeyPair, NOT_AVAILABLE_QUERIES, silentLogger } from '@keyhold/server';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from './start-server.js';

let server: RunningServer;
// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON.
let document: any;

const METHODS = ['get', 'post'] as const;

/** Whether the server routes `method path` (anything but "no such route"). */
async function answers(method: (typeof METHODS)[number], path: string): Promise<boolean> {
  const response = await fetch(`${server.url}${path}`, {
    method: method.toUpperCase(),
    ...(method === 'post' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}),
  });
  await response.arrayBuffer();
  return ![404, 405, 501].includes(response.status);
}

describe.each(['express', 'koa'] as const)('GET /openapi.json (%s)', (http) => {
  beforeAll(async () => {
    server = await startServer({
      port: 0,
      http,
      logger: silentLogger,
      metrics: new PrometheusMetrics(),
      bootstrapApiPublicKey: generateApiKeyPair().publicKey,
      frames: { scripts: await bundleFrameScripts(), allowedOrigins: ['http://localhost:*'] },
    });
    const response = await fetch(`${server.url}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    document = await response.json();
  });
  afterAll(() => server?.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it("carries the protocol's own schemas for intents and queries", () => {
    const wallet =
      document.paths['/public/v1/submit/create_wallet'].post.requestBody.content['application/json']
        .schema;
    const v1 = wallet.oneOf
      ? wallet.oneOf.find((v: { title: string }) => v.title === 'ACTIVITY_TYPE_CREATE_WALLET')
      : wallet;
    expect(v1.properties.parameters).toEqual(
      JSON.parse(JSON.stringify(INTENT_SCHEMAS.ACTIVITY_TYPE_CREATE_WALLET)),
    );
    const whoami =
      document.paths['/public/v1/query/get_wallet'].post.requestBody.content['application/json']
        .schema;
    expect(whoami).toEqual(JSON.parse(JSON.stringify(QUERY_SCHEMAS.get_wallet)));
  });

  it('every operation it lists is answered at its method', async () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries(document.paths) as [string, object][]) {
      for (const method of Object.keys(item)) {
        if (!(await answers(method as 'get' | 'post', path))) missing.push(`${method} ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every route the server answers is in it, and nothing it refuses', async () => {
    const candidates = new Set<string>([
      ...ACTIVITY_TYPES.map((t) => `/public/v1/submit/${submitPathOf(t)}`),
      ...Object.keys(QUERY_SCHEMAS).map((q) => `/public/v1/query/${q}`),
      // The hosted services' queries, answered "not available in Keyhold".
      ...Object.keys(NOT_AVAILABLE_QUERIES).map((q) => `/public/v1/query/${q}`),
      // Every query the public API names (wire-compat §2.6), served or not.
      ...'get_api_key get_api_keys get_app_status get_boot_proof get_gas_usage get_nonces get_policy_evaluations list_app_proofs list_smart_contract_interfaces list_verified_suborgs get_wallet_address_balances'
        .split(' ')
        .map((q) => `/public/v1/query/${q}`),
      '/health',
      '/ready',
      '/metrics',
      '/openapi.json',
      '/public/v1/discovery/webhooks/jwks',
      '/keyhold/v1/public_keys',
      '/keyhold/v1/explain_policies',
      '/keyhold/v1/oauth2/.well-known/openid-configuration',
      '/keyhold/v1/oauth2/jwks',
      '/frames/export',
      '/frames/import',
      // Nowhere.
      '/',
      '/public/v1/submit/not_an_activity',
      '/public/v1/query/not_a_query',
      '/keyhold/v1/not_an_extension',
      '/pay/base-sepolia/supported',
      '/openapi.yaml',
      '/frames/other',
    ]);
    const disagreements: string[] = [];
    for (const path of candidates) {
      for (const method of METHODS) {
        const listed = document.paths[path]?.[method] !== undefined;
        const served = await answers(method, path);
        if (listed !== served)
          disagreements.push(`${method} ${path}: served ${served}, listed ${listed}`);
      }
    }
    expect(disagreements).toEqual([]);
    // And the candidates cover the document: no listed path escaped the check above.
    expect(Object.keys(document.paths).filter((p) => !candidates.has(p))).toEqual([]);
  }, 120_000);
});
