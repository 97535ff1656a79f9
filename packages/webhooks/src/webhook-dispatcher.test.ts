import { bytesToHex } from '@noble/hashes/utils.js';
import { verifyTurnkeyWebhookSignature } from '@turnkey/crypto';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeTransport } from './__fixtures__/fake-transport.js';
import { InMemoryOutbox, makeDelivery, type OutboxCall } from './__fixtures__/in-memory-outbox.js';
import { classifyResponse } from './classify-response.js';
import type { WebhookResponse } from './ports/webhook-transport.js';
import { maxAttempts, retrySchedule, seededRandom } from './retry-schedule.js';
import { WebhookDispatcher, type WebhookDispatcherOptions } from './webhook-dispatcher.js';
import { webhookSigningKey } from './webhook-jwks.js';
import { verifyWebhookSignature } from './webhook-verifier.js';

const key = webhookSigningKey(new Uint8Array(32).fill(5));
const noJitter = retrySchedule({ delaysMs: [1_000, 10_000], jitter: 0 });

function setup(
  respond: ConstructorParameters<typeof FakeTransport>[0],
  options: Partial<WebhookDispatcherOptions> = {},
) {
  const outbox = new InMemoryOutbox();
  const transport = new FakeTransport(respond);
  const clock = { now: 1_000_000 };
  const errors: unknown[] = [];
  const dispatcher = new WebhookDispatcher({
    outbox,
    transport,
    clock: () => clock.now++,
    signingKey: key,
    brand: 'Turnkey',
    schedule: noJitter,
    onError: (e) => errors.push(e),
    ...options,
  });
  return { outbox, transport, clock, dispatcher, errors };
}

describe('WebhookDispatcher.runOnce', () => {
  it('signs each attempt so both verifiers accept it, and marks it delivered', async () => {
    const { outbox, transport, dispatcher } = setup(() => ({ status: 204 }));
    outbox.enqueue(makeDelivery({ deliveryId: 'd1', url: 'https://a.example/hook' }));
    expect(await dispatcher.runOnce()).toEqual({
      claimed: 1,
      delivered: 1,
      retried: 0,
      failed: 0,
      errors: 0,
    });
    const [request] = transport.requests;
    expect(request!.url).toBe('https://a.example/hook');
    expect(request!.headers['X-Turnkey-Event-Id']).toBe('evt_d1');
    const ts = Number(request!.headers['X-Turnkey-Timestamp']);
    const input = {
      headers: request!.headers,
      body: request!.body,
      verificationKeys: [{ keyId: key.keyId, publicKey: bytesToHex(key.publicKey) }],
      maxTimestampAgeMs: 300_000,
      nowMs: ts,
    };
    expect(verifyTurnkeyWebhookSignature(input).ok).toBe(true);
    expect(verifyWebhookSignature({ ...input, brand: 'Turnkey' }).ok).toBe(true);
    expect(outbox.calls).toEqual([
      { kind: 'delivered', deliveryId: 'd1', attempts: 1, at: expect.any(Number) },
    ]);
  });

  it('retries 5xx and network errors on schedule, then fails after the last attempt', async () => {
    const { outbox, transport, clock, dispatcher } = setup(() => ({ status: 502 }));
    outbox.enqueue(makeDelivery({ deliveryId: 'd1' }));
    expect((await dispatcher.runOnce()).retried).toBe(1);
    const first = outbox.calls[0] as Extract<OutboxCall, { kind: 'rescheduled' }>;
    expect(first).toMatchObject({ kind: 'rescheduled', attempts: 1, lastError: 'HTTP 502' });
    expect(first.nextAttemptAt - clock.now).toBeGreaterThanOrEqual(998);
    expect(await dispatcher.runOnce()).toMatchObject({ claimed: 0 }); // not due yet
    clock.now = first.nextAttemptAt;
    expect((await dispatcher.runOnce()).retried).toBe(1);
    clock.now = outbox.rows.get('d1')!.delivery.nextAttemptAt;
    expect((await dispatcher.runOnce()).failed).toBe(1);
    expect(outbox.rows.get('d1')).toMatchObject({
      status: 'FAILED',
      lastError: 'HTTP 502 (gave up after 3 attempts)',
    });
    expect(outbox.rows.get('d1')!.delivery.attempts).toBe(maxAttempts(noJitter));
    // a fresh timestamp per attempt, the same event id
    const stamps = transport.requests.map((r) => Number(r.headers['X-Turnkey-Timestamp']));
    expect(stamps[1]! - stamps[0]!).toBeGreaterThanOrEqual(1_000);
    expect(stamps[2]! - stamps[1]!).toBeGreaterThanOrEqual(10_000);
    expect(new Set(transport.requests.map((r) => r.headers['X-Turnkey-Event-Id'])).size).toBe(1);
  });

  it('fails 3xx, 4xx and 429 at once; retries transport errors and rejections', async () => {
    const statuses: Record<string, WebhookResponse> = {
      r301: { status: 301 },
      r404: { status: 404 },
      r429: { status: 429, retryAfterMs: 5_000 },
      err: { error: 'connection refused' },
    };
    const { outbox, dispatcher } = setup((req) => {
      const id = req.url.split('/').pop()!;
      if (id === 'throws') throw new Error('boom');
      return statuses[id]!;
    });
    for (const id of [...Object.keys(statuses), 'throws'])
      outbox.enqueue(makeDelivery({ deliveryId: id }));
    expect(await dispatcher.runOnce()).toEqual({
      claimed: 5,
      delivered: 0,
      retried: 2,
      failed: 3,
      errors: 0,
    });
    expect(outbox.rows.get('r429')!.lastError).toBe('HTTP 429');
    expect(outbox.rows.get('throws')!.lastError).toBe('transport failed');
    expect(outbox.rows.get('err')!.lastError).toBe('connection refused');
  });

  it('honours Retry-After on a 503 as a floor', async () => {
    const { outbox, clock, dispatcher } = setup(() => ({ status: 503, retryAfterMs: 7_000 }));
    outbox.enqueue(makeDelivery());
    await dispatcher.runOnce();
    expect(outbox.rows.get('dlv_1')!.delivery.nextAttemptAt - clock.now).toBeGreaterThanOrEqual(
      6_990,
    );
  });

  it('fails a delivery it cannot sign instead of retrying it forever', async () => {
    const { outbox, transport, dispatcher } = setup(() => ({ status: 200 }));
    outbox.enqueue(makeDelivery({ eventId: 'bad id' }));
    expect((await dispatcher.runOnce()).failed).toBe(1);
    expect(transport.requests).toHaveLength(0);
    expect(outbox.rows.get('dlv_1')!.lastError).toMatch(/^cannot sign: /);
  });

  it('limits concurrency and batch size', async () => {
    const { outbox, transport, dispatcher } = setup(
      () => new Promise((r) => setTimeout(() => r({ status: 200 }), 5)),
      { concurrency: 3, batchSize: 7 },
    );
    for (let i = 0; i < 10; i++)
      outbox.enqueue(makeDelivery({ deliveryId: `d${i}`, createdAt: i }));
    expect((await dispatcher.runOnce()).delivered).toBe(7);
    expect(transport.maxInFlight).toBe(3);
    expect((await dispatcher.runOnce()).delivered).toBe(3);
  });

  it('reports Outbox write failures and counts them as errors', async () => {
    const { outbox, dispatcher, errors } = setup(() => ({ status: 200 }));
    outbox.enqueue(makeDelivery());
    outbox.failWrites = true;
    expect(await dispatcher.runOnce()).toMatchObject({ claimed: 1, delivered: 0, errors: 1 });
    expect(errors).toHaveLength(1);
  });

  it('validates its options', () => {
    expect(() => setup(() => ({ status: 200 }), { brand: 'X-Y' })).toThrow(TypeError);
    expect(() => setup(() => ({ status: 200 }), { batchSize: 0 })).toThrow(RangeError);
    expect(() => setup(() => ({ status: 200 }), { concurrency: 1.5 })).toThrow(RangeError);
  });
});

describe('WebhookDispatcher endpoint health', () => {
  const health = (outbox: InMemoryOutbox, endpointId = 'wh_1') =>
    outbox.endpoints.get(`org_1/${endpointId}`);

  it('disables an endpoint after N consecutive FAILED deliveries; a delivery resets the count', async () => {
    const answers: WebhookResponse[] = [{ status: 500 }, { status: 404 }, { status: 200 }];
    const disabled: unknown[] = [];
    const { outbox, dispatcher } = setup(() => answers.shift() ?? { status: 500 }, {
      schedule: retrySchedule({ delaysMs: [], jitter: 0 }), // one attempt: 5xx fails at once
      disableAfterFailures: 3,
      concurrency: 1,
      onEndpointDisabled: (e) => disabled.push(e),
    });
    const run = async (id: string) => {
      outbox.enqueue(makeDelivery({ deliveryId: id }));
      return dispatcher.runOnce();
    };
    expect(await run('a')).toMatchObject({ failed: 1 }); // 500, schedule exhausted
    expect(await run('b')).toMatchObject({ failed: 1 }); // 404, final
    expect(health(outbox)).toMatchObject({ consecutiveFailures: 2, isActive: true });
    expect(await run('c')).toMatchObject({ delivered: 1 });
    expect(health(outbox)).toMatchObject({ consecutiveFailures: 0, isActive: true });
    await run('d');
    await run('e');
    expect(health(outbox)?.isActive).toBe(true);
    outbox.enqueue(makeDelivery({ deliveryId: 'waiting', nextAttemptAt: 2 ** 50 }));
    await run('f');
    expect(health(outbox)).toEqual({
      consecutiveFailures: 0,
      isActive: false,
      disabledReason: '3 consecutive deliveries failed (last: HTTP 500 (gave up after 1 attempts))',
    });
    expect(disabled).toEqual([
      { organizationId: 'org_1', endpointId: 'wh_1', reason: health(outbox)?.disabledReason },
    ]);
    // Its pending deliveries end too, rather than wait for an endpoint that is off.
    expect(outbox.rows.get('waiting')).toMatchObject({
      status: 'FAILED',
      lastError: `endpoint disabled: ${health(outbox)?.disabledReason}`,
    });
  });

  it('disables at once on 410 Gone and on a permanently undeliverable URL; 5xx retries do not count', async () => {
    const answers: Record<string, WebhookResponse> = {
      gone: { status: 410 },
      never: { error: 'endpoint URL must use https', permanent: true },
      flaky: { status: 503 },
    };
    const { outbox, dispatcher } = setup((req) => answers[req.url.split('/').pop()!]!);
    outbox.enqueue(makeDelivery({ deliveryId: 'gone', endpointId: 'wh_gone' }));
    outbox.enqueue(makeDelivery({ deliveryId: 'never', endpointId: 'wh_never' }));
    outbox.enqueue(makeDelivery({ deliveryId: 'flaky', endpointId: 'wh_flaky' }));
    expect(await dispatcher.runOnce()).toMatchObject({ failed: 2, retried: 1 });
    expect(health(outbox, 'wh_gone')).toMatchObject({
      isActive: false,
      disabledReason: 'the endpoint answered HTTP 410 Gone',
    });
    expect(health(outbox, 'wh_never')).toMatchObject({
      isActive: false,
      disabledReason: 'the endpoint URL can never be delivered to (endpoint URL must use https)',
    });
    expect(outbox.rows.get('never')!.lastError).toBe('endpoint URL must use https');
    expect(health(outbox, 'wh_flaky')).toBeUndefined(); // a retry is not a failed delivery
    expect(outbox.endpointCalls.filter((c) => c.kind === 'endpointFailed')).toEqual([]);
  });

  it('a failure of the bookkeeping is reported, never counted against the recorded delivery', async () => {
    const { outbox, dispatcher, errors } = setup(() => ({ status: 410 }));
    outbox.enqueue(makeDelivery());
    outbox.disableEndpoint = () => Promise.reject(new Error('endpoint table unavailable'));
    expect(await dispatcher.runOnce()).toMatchObject({ failed: 1, errors: 0 });
    expect(errors).toEqual([new Error('endpoint table unavailable')]);
  });

  it('validates disableAfterFailures', () => {
    expect(() => setup(() => ({ status: 200 }), { disableAfterFailures: 0 })).toThrow(RangeError);
  });
});

describe('WebhookDispatcher.start/stop', () => {
  afterEach(() => vi.restoreAllMocks());

  it('loops without overlapping runs and drains the in-flight run on stop', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const { outbox, transport, dispatcher } = setup(async () => {
      await gate;
      return { status: 200 };
    });
    const claim = vi.spyOn(outbox, 'claimDue');
    outbox.enqueue(makeDelivery());
    dispatcher.start(1);
    dispatcher.start(1); // idempotent
    await new Promise((r) => setTimeout(r, 30));
    expect(transport.requests).toHaveLength(1);
    expect(claim).toHaveBeenCalledTimes(1); // the first run is still in flight: no overlap
    const stopped = dispatcher.stop();
    release();
    await stopped;
    expect(outbox.rows.get('dlv_1')!.status).toBe('DELIVERED');
    const calls = claim.mock.calls.length;
    await new Promise((r) => setTimeout(r, 20));
    expect(claim.mock.calls.length).toBe(calls); // stopped for good
  });

  it('runs again at once after a full batch', async () => {
    const { outbox, dispatcher } = setup(() => ({ status: 200 }), { batchSize: 2 });
    for (let i = 0; i < 5; i++) outbox.enqueue(makeDelivery({ deliveryId: `d${i}`, createdAt: i }));
    dispatcher.start(60_000);
    await vi.waitFor(() =>
      expect([...outbox.rows.values()].every((r) => r.status === 'DELIVERED')).toBe(true),
    );
    await dispatcher.stop();
  });

  it('swallows failed runs (and a throwing onError) and keeps going', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { outbox, dispatcher, errors } = setup(() => ({ status: 200 }));
      let n = 0;
      vi.spyOn(outbox, 'claimDue').mockImplementation(async () => {
        n++;
        throw new Error('db down');
      });
      dispatcher.start(1);
      await vi.waitFor(() => expect(errors.length).toBeGreaterThanOrEqual(3));
      await dispatcher.stop();
      expect(n).toBeGreaterThanOrEqual(3);

      const throwing = setup(() => ({ status: 200 }), {
        onError: () => {
          throw new Error('logger broke');
        },
      });
      vi.spyOn(throwing.outbox, 'claimDue').mockRejectedValue(new Error('db down'));
      throwing.dispatcher.start(1);
      await new Promise((r) => setTimeout(r, 20));
      await throwing.dispatcher.stop();
      await new Promise((r) => setTimeout(r, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('stop() without start() resolves', async () => {
    await setup(() => ({ status: 200 })).dispatcher.stop();
  });
});

const responseArb: fc.Arbitrary<WebhookResponse> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 500, max: 599 }).map((status) => ({ status })) },
  fc.integer({ min: 200, max: 299 }).map((status) => ({ status })),
  fc.integer({ min: 300, max: 499 }).map((status) => ({ status })),
  fc.integer({ min: 500, max: 599 }).map((status) => ({ status })),
  fc.record({
    status: fc.constantFrom(429, 503),
    retryAfterMs: fc.integer({ min: 0, max: 100_000 }),
  }),
  fc.constant({ error: 'timeout after 10000 ms' }),
);

describe('WebhookDispatcher properties', () => {
  it('each claimed delivery ends in exactly one outcome per run; attempts +1; FAILED after the last attempt; fresh timestamps', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          count: fc.integer({ min: 1, max: 12 }),
          initialAttempts: fc.array(fc.integer({ min: 0, max: 2 }), {
            minLength: 12,
            maxLength: 12,
          }),
          delaysMs: fc.array(fc.integer({ min: 0, max: 50_000 }), { maxLength: 4 }),
          jitter: fc.constantFrom(0, 0.2),
          seed: fc.integer(),
          batchSize: fc.integer({ min: 1, max: 6 }),
          concurrency: fc.integer({ min: 1, max: 4 }),
          responses: fc.array(responseArb, { minLength: 1, maxLength: 30 }),
        }),
        async (p) => {
          const schedule = retrySchedule({ delaysMs: p.delaysMs, jitter: p.jitter });
          const limit = maxAttempts(schedule);
          let i = 0;
          const { outbox, transport, clock, dispatcher, errors } = setup(
            () => p.responses[i++ % p.responses.length]!,
            {
              schedule,
              batchSize: p.batchSize,
              concurrency: p.concurrency,
              random: seededRandom(p.seed),
            },
          );
          for (let d = 0; d < p.count; d++) {
            outbox.enqueue(
              // An endpoint each: a 410 disabling one endpoint must not end another's delivery.
              makeDelivery({
                deliveryId: `d${d}`,
                endpointId: `wh_${d}`,
                createdAt: d,
                attempts: p.initialAttempts[d]!,
              }),
            );
          }
          const attemptsBefore = new Map(
            [...outbox.rows].map(([id, r]) => [id, r.delivery.attempts]),
          );
          for (let run = 0; run < 200; run++) {
            const pending = [...outbox.rows.values()].filter((r) => r.status === 'PENDING');
            if (pending.length === 0) break;
            clock.now = Math.max(
              clock.now,
              Math.min(...pending.map((r) => r.delivery.nextAttemptAt)),
            );
            const claimedAt = clock.now;
            const callsBefore = outbox.calls.length;
            const requestsBefore = transport.requests.length;
            const summary = await dispatcher.runOnce();
            const calls = outbox.calls.slice(callsBefore);
            // exactly one outcome per claimed delivery, none marked twice
            expect(calls).toHaveLength(summary.claimed);
            expect(new Set(calls.map((c) => c.deliveryId)).size).toBe(calls.length);
            expect(summary.delivered + summary.retried + summary.failed).toBe(summary.claimed);
            expect(calls.filter((c) => c.kind === 'delivered')).toHaveLength(summary.delivered);
            expect(calls.filter((c) => c.kind === 'rescheduled')).toHaveLength(summary.retried);
            for (const c of calls) {
              expect(c.attempts).toBe(attemptsBefore.get(c.deliveryId)! + 1);
              attemptsBefore.set(c.deliveryId, c.attempts);
              if (c.kind === 'rescheduled') {
                expect(c.attempts).toBeLessThan(limit);
                expect(c.nextAttemptAt).toBeGreaterThanOrEqual(claimedAt);
              }
              if (c.kind === 'failed' && c.lastError.includes('gave up')) {
                expect(c.attempts).toBeGreaterThanOrEqual(limit);
              }
            }
            // every request of this run was signed after the claim, with its own timestamp
            const stamps = transport.requests
              .slice(requestsBefore)
              .map((r) => Number(r.headers['X-Turnkey-Timestamp']));
            expect(stamps.every((t) => t > claimedAt)).toBe(true);
            expect(new Set(stamps).size).toBe(stamps.length);
          }
          expect(errors).toEqual([]);
          const allRetryable = p.responses.every((r) => classifyResponse(r) === 'retry');
          for (const [id, row] of outbox.rows) {
            const initial = p.initialAttempts[Number(id.slice(1))]!;
            expect(row.status).not.toBe('PENDING');
            expect(row.delivery.attempts).toBeLessThanOrEqual(Math.max(limit, initial + 1));
            if (row.status === 'FAILED' && row.lastError?.includes('gave up')) {
              expect(row.delivery.attempts).toBeGreaterThanOrEqual(limit);
            }
            // nothing but retryable failures: FAILED exactly when the attempts ran out
            if (allRetryable) {
              expect(row.status).toBe('FAILED');
              expect(row.delivery.attempts).toBe(Math.max(limit, initial + 1));
            }
          }
          // per delivery, each attempt's timestamp is later than the previous attempt's
          const byEvent = new Map<string, number[]>();
          for (const r of transport.requests) {
            const id = r.headers['X-Turnkey-Event-Id']!;
            byEvent.set(id, [...(byEvent.get(id) ?? []), Number(r.headers['X-Turnkey-Timestamp'])]);
          }
          for (const stamps of byEvent.values()) {
            for (let k = 1; k < stamps.length; k++)
              expect(stamps[k]!).toBeGreaterThan(stamps[k - 1]!);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
