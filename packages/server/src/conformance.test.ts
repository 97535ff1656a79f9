/**
 * Keyhold against its own conformance suite: every property against an in-process
 * `createKeyhold()` (no HTTP) and against a real Express server on a free port, on every
 * store — memory, PGlite (in memory) and Postgres (a schema of its own, dropped afterwards) —
 * and against a real Koa server on the memory store (the HTTP adapter is store-independent);
 * then the suite against deliberately broken variants, to show each property can fail.
 * Without a reachable Postgres the Postgres runs are skipped with a loud warning, unless CI is
 * set, where that fails the file. `CONFORMANCE_RUNS=500` (default 20) and `CONFORMANCE_SEED=…`
 * tune the runs against correct targets.
 */
import { randomUUID } from 'node:crypto';
import { type RunningServer, startServer } from '@keyhold/cli';
import {
  type ConformanceTarget,
  conformanceProperties,
  handlerTarget,
  httpTarget,
  malformedBodies4xx,
  passkeyStamps,
  queriesWork,
  runConformance,
  sameBodySameActivity,
  signaturesVerify,
  stampBytes,
  tamperedRequests401,
} from '@keyhold/conformance';
import type { RawRequest, RawResponse } from '@keyhold/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The store targets of the store-postgres tests (no package export: test-only code).
import {
  memoryTarget,
  pgliteTarget,
  postgresReachable,
  postgresTarget,
  type Target,
} from '../../../adapters/store-postgres/src/testing/targets.js';
import { generateApiKeyPair } from './api-key-signer.js';
import { createKeyhold, type Keyhold } from './keyhold.js';
import { silentLogger } from './logger.js';

const NUM_RUNS = Number(process.env.CONFORMANCE_RUNS ?? 20);
const SEED =
  process.env.CONFORMANCE_SEED === undefined ? undefined : Number(process.env.CONFORMANCE_SEED);
const options = { numRuns: NUM_RUNS, ...(SEED === undefined ? {} : { seed: SEED }) };

// In CI a missing Postgres throws here, failing the file; elsewhere it warns and skips.
const withPostgres = await postgresReachable();

/**
 * One target per store kind for the whole file: PGlite is one in-memory instance (one schema
 * per Keyhold), Postgres one schema per Keyhold. Each property creates its own data in the
 * target's one organization, so the properties share a Keyhold.
 */
const stores: { target: Target; enabled: boolean }[] = [
  { target: memoryTarget(), enabled: true },
  { target: pgliteTarget('shared'), enabled: true },
  { target: postgresTarget(), enabled: withPostgres },
];

afterAll(async () => {
  // After every Keyhold (and so every store) of the file is closed.
  for (const { target } of stores) await target.dispose();
});

for (const { target: storeTarget, enabled } of stores) {
  describe.skipIf(!enabled)(
    `conformance: in-process createKeyhold() on ${storeTarget.name}`,
    () => {
      let keyhold: Keyhold;
      let target: ConformanceTarget;

      beforeAll(async () => {
        keyhold = createKeyhold({ store: await storeTarget.open(), logger: silentLogger });
        const key = generateApiKeyPair();
        const { organizationId } = await keyhold.bootstrap({
          organizationName: 'Conformance',
          apiPublicKey: key.publicKey,
        });
        target = handlerTarget({
          handler: keyhold,
          organizationId,
          apiPrivateKey: key.privateKey,
          apiPublicKey: key.publicKey,
          name: `in-process on ${storeTarget.name}`,
        });
      });

      afterAll(async () => {
        await keyhold?.close();
      });

      for (const property of conformanceProperties) {
        it(property.name, () => property.run(target, options));
      }
    },
  );

  describe.skipIf(!enabled)(
    `conformance: Express server (startServer) on ${storeTarget.name}`,
    () => {
      let server: RunningServer;
      let target: ConformanceTarget;

      beforeAll(async () => {
        const key = generateApiKeyPair();
        server = await startServer({
          port: 0,
          store: await storeTarget.open(),
          logger: silentLogger,
          bootstrapApiPublicKey: key.publicKey,
        });
        target = httpTarget({
          baseUrl: server.url,
          organizationId: server.organizationId!,
          apiPrivateKey: key.privateKey,
        });
      });

      afterAll(async () => {
        await server?.close();
      });

      for (const property of conformanceProperties) {
        it(property.name, () => property.run(target, options));
      }

      if (storeTarget.name === 'memory') {
        it('runConformance (what `keyhold conformance` runs) reports every property passing', async () => {
          const lines: string[] = [];
          const report = await runConformance({
            baseUrl: server.url,
            organizationId: target.organizationId,
            apiPrivateKey: target.apiPrivateKey,
            numRuns: 3,
            log: (line) => lines.push(line),
          });
          expect(report.results.filter((r) => !r.ok)).toEqual([]);
          expect(lines.at(-1)).toBe(`${conformanceProperties.length} passed, 0 failed`);
        });
      }
    },
  );
}

describe('conformance: Koa server (startServer({ http: "koa" })) on memory', () => {
  let server: RunningServer;
  let target: ConformanceTarget;

  beforeAll(async () => {
    const key = generateApiKeyPair();
    server = await startServer({
      port: 0,
      http: 'koa',
      logger: silentLogger,
      bootstrapApiPublicKey: key.publicKey,
    });
    target = httpTarget({
      baseUrl: server.url,
      organizationId: server.organizationId!,
      apiPrivateKey: key.privateKey,
    });
  });

  afterAll(async () => {
    await server?.close();
  });

  for (const property of conformanceProperties) {
    it(property.name, () => property.run(target, options));
  }

  it('runConformance (what `keyhold conformance` runs) reports every property passing', async () => {
    const report = await runConformance({
      baseUrl: server.url,
      organizationId: target.organizationId,
      apiPrivateKey: target.apiPrivateKey,
      numRuns: 3,
      log: () => {},
    });
    expect(report.results.filter((r) => !r.ok)).toEqual([]);
    expect(report.results).toHaveLength(conformanceProperties.length);
  });
});

/**
 * The suite must catch broken implementations: each mutant wraps a correct Keyhold with one
 * defect, and the property aimed at that defect must fail. (A property that passes against
 * everything proves nothing.)
 */
describe('conformance: the suite catches broken implementations', () => {
  let keyhold: Keyhold;
  let organizationId: string;
  let key: ReturnType<typeof generateApiKeyPair>;

  beforeAll(async () => {
    keyhold = createKeyhold({ logger: silentLogger });
    key = generateApiKeyPair();
    ({ organizationId } = await keyhold.bootstrap({
      organizationName: 'Mutants',
      apiPublicKey: key.publicKey,
    }));
  });

  afterAll(async () => {
    await keyhold?.close();
  });

  type Edit = (response: RawResponse, request: RawRequest) => RawResponse;
  const mutant = (edit: Edit, editRequest: (request: RawRequest) => RawRequest = (r) => r) =>
    handlerTarget({
      organizationId,
      apiPrivateKey: key.privateKey,
      handler: {
        async handle(request) {
          return edit(await keyhold.handle(editRequest(request)), request);
        },
      },
    });
  const editJson =
    // biome-ignore lint/suspicious/noExplicitAny: mutants edit plain JSON responses.
      (edit: (body: Record<string, any>, request: RawRequest) => void): Edit =>
      (response, request) => {
        if (response.status !== 200) return response;
        const body = JSON.parse(response.body);
        edit(body, request);
        return { ...response, body: JSON.stringify(body) };
      };
  const flipLastHexDigit = (hex: string) => `${hex.slice(0, -1)}${hex.endsWith('0') ? '1' : '0'}`;
  const mutantOptions = (numRuns: number) => ({ numRuns, seed: 42 });

  it('signatures-verify catches a corrupted signature', async () => {
    const target = mutant(
      editJson((body) => {
        const result = body.activity?.result ?? {};
        const signatures = [
          result.signRawPayloadResult,
          ...(result.signRawPayloadsResult?.signatures ?? []),
        ];
        for (const signature of signatures.filter(Boolean))
          signature.s = flipLastHexDigit(signature.s);
      }),
    );
    await expect(signaturesVerify.run(target, mutantOptions(5))).rejects.toThrow(
      /verification failed|recover/,
    );
  });

  it('same-body-same-activity catches a replay that makes a new activity', async () => {
    const target = mutant(
      editJson((body, request) => {
        if (body.activity && request.path.startsWith('/public/v1/submit/'))
          body.activity.id = randomUUID();
      }),
    );
    await expect(sameBodySameActivity.run(target, mutantOptions(5))).rejects.toThrow(
      /another activity/,
    );
  });

  it('tampered-requests-401 catches a server that ignores trailing whitespace when verifying', async () => {
    const trimmed = (request: RawRequest): RawRequest => {
      const text = Buffer.from(request.rawBody).toString('utf8');
      return /\s$/.test(text) ? { ...request, rawBody: Buffer.from(text.trimEnd()) } : request;
    };
    await expect(
      tamperedRequests401.run(
        mutant((r) => r, trimmed),
        mutantOptions(300),
      ),
    ).rejects.toThrow(/append-whitespace/);
  });

  it('passkey-stamps catches a server that accepts any passkey assertion', async () => {
    // The mutant lets every passkey-stamped request through as if the root API key had signed
    // it: registering and deleting the passkey still work, tampered assertions are accepted.
    const anyAssertion = (request: RawRequest): RawRequest => {
      const { 'x-stamp-webauthn': passkeyStamp, ...headers } = request.headers;
      if (passkeyStamp === undefined) return request;
      return {
        ...request,
        headers: { ...headers, 'x-stamp': stampBytes(key.privateKey, request.rawBody) },
      };
    };
    await expect(
      passkeyStamps.run(
        mutant((r) => r, anyAssertion),
        mutantOptions(50),
      ),
    ).rejects.toThrow(/401/);
  });

  it('malformed-bodies-4xx catches a 500 where a 400 belongs', async () => {
    const target = mutant((response) =>
      response.status === 400
        ? {
            ...response,
            status: 500,
            body: JSON.stringify({ code: 13, message: 'internal server error', details: [] }),
          }
        : response,
    );
    await expect(malformedBodies4xx.run(target, mutantOptions(50))).rejects.toThrow(/HTTP 500/);
  });

  it('queries-work catches whoami naming another organization', async () => {
    const target = mutant(
      editJson((body, request) => {
        if (request.path.endsWith('/whoami')) body.organizationId = randomUUID();
      }),
    );
    await expect(queriesWork.run(target, mutantOptions(50))).rejects.toThrow(
      /another organization/,
    );
  });
});
