/**
 * The payment gateway end to end, offline: one anvil as Base Sepolia (USDC = Circle's
 * FiatTokenV2_2 at its real address, Multicall3 at its standard one), Keyhold serving the
 * gateway at `<url>/pay`, and the published x402 clients paying through it — `x402Client` with
 * `@x402/evm` making v2 and v1 payloads, `HTTPFacilitatorClient` calling verify, settle and
 * supported. Failure injection: automine off (PAYMENT_STATUS_UNKNOWN, then reconciled), a
 * replay, time past validBefore, the store and the payment records down, anvil stopped
 * (FACILITATOR_UNAVAILABLE). Every errorCode of the gateway is produced here.
 */

import { type Store, StoreUnavailableError } from '@keyhold/activities';
import { PrometheusMetrics } from '@keyhold/metrics-prometheus';
import { isPayErrorCode, PAY_ERROR_CODE_LIST, type PayErrorCode } from '@keyhold/pay-errors';
import { PAY_OPENAPI_PATHS } from '@keyhold/payments';
import { generateApiKeyPair } from '@keyhold/server';
import { MemoryStore } from '@keyhold/store-memory';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { Turnkey } from '@turnkey/sdk-server';
import { x402Client } from '@x402/core/client';
import { HTTPFacilitatorClient } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnvilUsdc,
  startAnvilUsdc,
} from '../../../adapters/chain-evm-viem/src/testing/anvil-usdc.js';
import { createPayGateway } from './pay-gateway.js';
import { type RunningServer, startServer } from './start-server.js';

/** A Store whose transactions, or only its payment records, can be made unreachable. */
function switchableStore(inner: Store) {
  const faults = {
    storeDown: false,
    paymentsDown: false,
    /** Refuse writes of payment records in this status (a store lost mid-settlement). */
    failPaymentWritesOf: undefined as string | undefined,
  };
  const store: Store = new Proxy(inner, {
    get(target, key, receiver) {
      if (key !== 'transaction') {
        const value = Reflect.get(target, key, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (work: (tx: never) => Promise<unknown>, ...rest: unknown[]) => {
        if (faults.storeDown) return Promise.reject(new StoreUnavailableError('switched off'));
        return (target.transaction as (...a: unknown[]) => Promise<unknown>).call(
          target,
          (tx: Record<string, unknown>) =>
            work(
              new Proxy(tx, {
                get(t, name) {
                  const value = Reflect.get(t, name);
                  if (name !== 'payments') return value;
                  if (faults.paymentsDown) throw new StoreUnavailableError('payments switched off');
                  const payments = value as Record<string, (...a: unknown[]) => unknown>;
                  return {
                    ...payments,
                    get: payments.get!.bind(payments),
                    update: async (record: { status: string }) => {
                      if (record.status === faults.failPaymentWritesOf) {
                        throw new StoreUnavailableError('payment write switched off');
                      }
                      return payments.update!.call(payments, record);
                    },
                  };
                },
              }) as never,
            ),
          ...rest,
        );
      };
    },
  });
  return { store, faults };
}

let anvil: AnvilUsdc;
let server: RunningServer;
let faults: ReturnType<typeof switchableStore>['faults'];
const root = generateApiKeyPair();
const payer = privateKeyToAccount(generatePrivateKey());
const payee = privateKeyToAccount(generatePrivateKey()).address;
/** Codes seen in answers, to check every one was produced. */
const produced = new Set<string>();

async function call(
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const text =
    body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const response = await fetch(`${server.payUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(text !== undefined ? { body: text } : {}),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (typeof json.errorCode === 'string') produced.add(json.errorCode);
  return { status: response.status, headers: response.headers, json };
}

async function stamped(method: 'GET' | 'POST', path: string, body: unknown, key = root) {
  const text = body === undefined ? '' : JSON.stringify(body);
  const stamper = new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });
  const { stampHeaderName, stampHeaderValue } = await stamper.stamp(text);
  return call(method, path, body, { [stampHeaderName]: stampHeaderValue });
}

/** A stock x402 client paying as `payer`. */
function payingClient() {
  // The default spend controls allow the default assets, Base Sepolia USDC among them.
  return registerExactEvmScheme(new x402Client(), { signer: payer });
}

function requirements(amount: string, payTo: Address = payee, maxTimeoutSeconds = 120) {
  return {
    scheme: 'exact',
    network: 'eip155:84532' as const,
    amount,
    asset: anvil.usdc,
    payTo,
    maxTimeoutSeconds,
    extra: { name: 'USDC', version: '2' },
  };
}

/** A v2 payment payload from the stock client, with a payment-identifier when given. */
async function payload(
  amount: string,
  options: { id?: string; payTo?: Address; timeout?: number; signer?: typeof payer } = {},
) {
  const accepted = requirements(amount, options.payTo, options.timeout);
  const client = registerExactEvmScheme(new x402Client(), { signer: options.signer ?? payer });
  const created = await client.createPaymentPayload({
    x402Version: 2,
    resource: { url: 'https://shop.example/item', description: 'an item', mimeType: 'text/plain' },
    accepts: [accepted],
  });
  const withId = options.id
    ? { ...created, extensions: { 'payment-identifier': { info: { id: options.id } } } }
    : created;
  return { paymentPayload: withId, paymentRequirements: accepted };
}

const facilitator = () => new HTTPFacilitatorClient({ url: `${server.payUrl}/base-sepolia` });

beforeAll(async () => {
  anvil = await startAnvilUsdc();
  const switchable = switchableStore(new MemoryStore());
  faults = switchable.faults;
  server = await startServer({
    port: 0,
    store: switchable.store,
    bootstrapApiPublicKey: root.publicKey,
    webhookIntervalMs: 0,
    metrics: new PrometheusMetrics({ processMetrics: false }),
    pay: {
      chains: new Map([['base-sepolia', anvil.rpcUrl]]),
      receiptTimeoutMs: 1_500,
      reconcileIntervalMs: 0,
    },
  });
  await anvil.fund(server.paySignerAddress as Address);
  await anvil.mint(payer.address, 10_000_000n);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await anvil?.stop();
});

describe('the payment gateway at <url>/pay', () => {
  it('serves /supported and /ready', async () => {
    expect(server.payUrl).toBe(`${server.url}/pay`);
    const supported = await facilitator().getSupported();
    expect(supported.kinds).toEqual(
      expect.arrayContaining([
        { x402Version: 2, scheme: 'exact', network: 'eip155:84532' },
        { x402Version: 1, scheme: 'exact', network: 'base-sepolia' },
      ]),
    );
    expect(supported.signers['eip155:*']).toEqual([server.paySignerAddress]);
    const ready = await call('GET', '/ready');
    expect(ready).toMatchObject({ status: 200, json: { status: 'ready' } });
    // Observed as the API is: a request id, and the metrics count it under /pay.
    const raw = await fetch(`${server.payUrl}/base-sepolia/supported`, {
      headers: { 'x-request-id': 'pay-trace-1' },
    });
    expect(raw.headers.get('x-request-id')).toBe('pay-trace-1');
    expect(await (await fetch(`${server.url}/metrics`)).text()).toMatch(
      /keyhold_http_request_duration_seconds_count\{route="\/pay",method="GET",status="200"\} [1-9]/,
    );
  });

  it("lists its routes in the server's /openapi.json, each routed by the gateway", async () => {
    const document = await (await fetch(`${server.url}/openapi.json`)).json();
    for (const [path, item] of Object.entries(PAY_OPENAPI_PATHS)) {
      expect(Object.keys(document.paths[`/pay${path}`] ?? {})).toEqual(Object.keys(item));
      // A payment id that does not exist is a 404 too: only routes without one are probed.
      if (path.includes('{paymentId}')) continue;
      for (const method of Object.keys(item)) {
        const concrete = path
          .replace('{network}', 'base-sepolia')
          .replace('{organizationId}', server.organizationId!);
        const response = await fetch(`${server.payUrl}${concrete}`, {
          method: method.toUpperCase(),
          ...(method === 'post' ? { body: '{}' } : {}),
        });
        await response.arrayBuffer();
        expect({ route: `${method} ${path}`, status: response.status }).not.toMatchObject({
          status: 404,
        });
      }
    }
    expect((await fetch(`${server.payUrl}/base-sepolia/not-a-route`)).status).toBe(404);
  });

  it('verifies and settles a stock v2 payment once; a replay is refused and moves nothing', async () => {
    const { paymentPayload, paymentRequirements } = await payload('10000');
    const verified = await facilitator().verify(paymentPayload, paymentRequirements);
    expect(verified).toMatchObject({ isValid: true, payer: payer.address });
    const before = await anvil.balanceOf(payer.address);
    const settled = await facilitator().settle(paymentPayload, paymentRequirements);
    expect(settled).toMatchObject({ success: true, network: 'eip155:84532', payer: payer.address });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await anvil.balanceOf(payee)).toBe(10_000n);
    expect(await anvil.balanceOf(payer.address)).toBe(before - 10_000n);

    const replay = await facilitator().settle(paymentPayload, paymentRequirements);
    expect(replay).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_nonce_already_used',
      transaction: '',
    });
    const again = await facilitator().verify(paymentPayload, paymentRequirements);
    expect(again).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_nonce_already_used',
    });
    expect(await anvil.balanceOf(payee)).toBe(10_000n);
    // The record, for the payer to look up.
    // The record (the stock client keeps only x402's fields of the answer: find it by hash).
    const listed = await stamped(
      'GET',
      `/base-sepolia/v1/organizations/${server.organizationId}/payments`,
      undefined,
    );
    const payments = listed.json.payments as { paymentId: string; transaction?: string }[];
    const paymentId = payments.find((p) => p.transaction === settled.transaction)!.paymentId;
    const record = await call('GET', `/base-sepolia/v1/payments/${paymentId}`);
    expect(record.json.payment).toMatchObject({
      paymentId,
      status: 'settled',
      transaction: settled.transaction,
      amount: '10000',
      source: 'settle',
    });
  });

  it('settles one authorization once when it arrives twice at the same time', async () => {
    const body = { x402Version: 2, ...(await payload('50')) };
    const before = await anvil.balanceOf(payee);
    const answers = await Promise.all(
      Array.from({ length: 3 }, () => call('POST', '/base-sepolia/settle', body)),
    );
    const settled = answers.filter((a) => a.json.success === true);
    expect(settled).toHaveLength(1);
    for (const other of answers.filter((a) => a.json.success !== true)) {
      // Still being settled by the first, or already settled by it: never a second transfer.
      expect(
        other.json.errorCode === 'PAYMENT_STATUS_UNKNOWN'
          ? other.json.paymentId
          : other.json.errorReason,
      ).toBe(
        other.json.errorCode === 'PAYMENT_STATUS_UNKNOWN'
          ? settled[0]!.json.paymentId
          : 'invalid_exact_evm_nonce_already_used',
      );
    }
    expect(await anvil.balanceOf(payee)).toBe(before + 50n);
  });

  it('settles a stock v1 payload (x402Version 1, network base-sepolia)', async () => {
    const v1Requirements = {
      scheme: 'exact',
      network: 'base-sepolia' as const,
      maxAmountRequired: '2000',
      resource: 'https://shop.example/v1',
      description: 'v1 item',
      mimeType: 'text/plain',
      payTo: payee,
      maxTimeoutSeconds: 120,
      asset: anvil.usdc,
      extra: { name: 'USDC', version: '2' },
    };
    const paymentPayload = await payingClient().createPaymentPayload({
      x402Version: 1,
      accepts: [v1Requirements],
    } as never);
    expect(paymentPayload.x402Version).toBe(1);
    const body = { x402Version: 1, paymentPayload, paymentRequirements: v1Requirements };
    const settled = await call('POST', '/base-sepolia/settle', body);
    expect(settled.json).toMatchObject({ success: true, network: 'base-sepolia' });
    expect(await anvil.balanceOf(payee)).toBe(12_050n);
  });

  it('answers the stored outcome for the same payment-identifier, and 409 for another payload', async () => {
    const id = `pay_${crypto.randomUUID()}`;
    const first = await payload('1000', { id });
    const settled = await call('POST', '/base-sepolia/settle', { x402Version: 2, ...first });
    expect(settled.json).toMatchObject({ success: true, paymentId: id });
    const repeated = await call('POST', '/base-sepolia/settle', { x402Version: 2, ...first });
    expect(repeated.json).toEqual(settled.json);
    expect(await anvil.balanceOf(payee)).toBe(13_050n);
    const other = await payload('1001', { id });
    const conflict = await call('POST', '/base-sepolia/settle', { x402Version: 2, ...other });
    expect(conflict).toMatchObject({
      status: 409,
      json: { errorCode: 'PAYMENT_INTENT_CONFLICT', retryable: false, paymentId: id },
    });
  });

  it('refuses malformed and unsupported requests with the gateway codes', async () => {
    const good = await payload('500');
    const cases: [unknown, number, PayErrorCode][] = [
      ['{not json', 400, 'PAYMENT_REQUEST_INVALID'],
      [{ x402Version: 2, paymentPayload: good.paymentPayload }, 400, 'PAYMENT_REQUEST_INVALID'],
      [{ ...good, x402Version: 1 }, 400, 'PAYMENT_PROTOCOL_MISMATCH'],
      [
        {
          x402Version: 2,
          ...good,
          paymentRequirements: { ...good.paymentRequirements, network: 'eip155:8453' },
        },
        400,
        'PAYMENT_NETWORK_MISMATCH',
      ],
      [
        {
          x402Version: 2,
          ...good,
          paymentRequirements: { ...good.paymentRequirements, amount: '499' },
        },
        409,
        'PAYMENT_REVISION_MISMATCH',
      ],
      [
        {
          x402Version: 2,
          paymentPayload: {
            ...good.paymentPayload,
            accepted: { ...good.paymentRequirements, scheme: 'upto' },
          },
          paymentRequirements: { ...good.paymentRequirements, scheme: 'upto' },
        },
        400,
        'PAYMENT_REQUIREMENTS_UNSUPPORTED',
      ],
    ];
    for (const [body, status, errorCode] of cases) {
      const answer = await call('POST', '/base-sepolia/verify', body);
      expect(answer, errorCode).toMatchObject({ status, json: { errorCode, retryable: false } });
    }
    // A network that is not configured.
    expect((await call('GET', '/base-mainnet/supported')).json.errorCode).toBe(
      'PAYMENT_REQUIREMENTS_UNSUPPORTED',
    );
    expect(await call('GET', '/base-sepolia/v1/payments/pay_unknown')).toMatchObject({
      status: 404,
      json: { errorCode: 'PAYMENT_NOT_FOUND' },
    });
    // A bad authorization is the x402 answer, not an error.
    const wrongAmount = await payload('777');
    const lying = {
      ...wrongAmount.paymentPayload,
      payload: {
        ...(wrongAmount.paymentPayload.payload as Record<string, unknown>),
        authorization: {
          ...((wrongAmount.paymentPayload.payload as Record<string, unknown>)
            .authorization as object),
          value: '778',
        },
      },
    };
    const verdict = await call('POST', '/base-sepolia/verify', {
      x402Version: 2,
      paymentPayload: lying,
      paymentRequirements: wrongAmount.paymentRequirements,
    });
    expect(verdict).toMatchObject({
      status: 200,
      json: { isValid: false, invalidReason: 'invalid_exact_evm_signature' },
    });
  });

  it('charges for an organization, stamped by its user, to one of its addresses', async () => {
    const client = new Turnkey({
      apiBaseUrl: server.url,
      apiPublicKey: root.publicKey,
      apiPrivateKey: root.privateKey,
      defaultOrganizationId: server.organizationId!,
    }).apiClient();
    const { privateKeys } = await client.createPrivateKeys({
      privateKeys: [
        {
          privateKeyName: 'shop till',
          curve: 'CURVE_SECP256K1',
          addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
          privateKeyTags: [],
        },
      ],
    });
    const till = privateKeys[0]!.addresses![0]!.address as Address;
    const organizationId = server.organizationId!;
    const charge = { organizationId, x402Version: 2, ...(await payload('4000', { payTo: till })) };
    const charged = await stamped('POST', '/base-sepolia/v1/settlements/charge', charge);
    expect(charged.status).toBe(200);
    const payment = charged.json.payment as Record<string, unknown>;
    expect(payment).toMatchObject({
      status: 'settled',
      source: 'charge',
      payTo: till,
      amount: '4000',
    });
    expect(await anvil.balanceOf(till)).toBe(4_000n);

    const path = `/base-sepolia/v1/organizations/${organizationId}/payments`;
    const listed = await stamped('GET', path, undefined);
    expect((listed.json.payments as { paymentId: string }[]).map((p) => p.paymentId)).toContain(
      payment.paymentId,
    );
    const one = await stamped('GET', `${path}/${payment.paymentId}`, undefined);
    expect(one.json.payment).toMatchObject({ paymentId: payment.paymentId, status: 'settled' });

    expect(await call('GET', path)).toMatchObject({
      status: 401,
      json: { errorCode: 'PAYMENT_AUTH_INVALID' },
    });
    expect(await stamped('GET', path, undefined, generateApiKeyPair())).toMatchObject({
      status: 403,
      json: { errorCode: 'PAYMENT_AUTH_FORBIDDEN' },
    });
    const elsewhere = { organizationId, x402Version: 2, ...(await payload('4000')) };
    expect(await stamped('POST', '/base-sepolia/v1/settlements/charge', elsewhere)).toMatchObject({
      status: 403,
      json: { errorCode: 'PAYMENT_AUTH_FORBIDDEN' },
    });
    const broke = privateKeyToAccount(generatePrivateKey());
    const tooMuch = {
      organizationId,
      x402Version: 2,
      ...(await payload('4000', { payTo: till, signer: broke })),
    };
    expect(await stamped('POST', '/base-sepolia/v1/settlements/charge', tooMuch)).toMatchObject({
      status: 422,
      json: {
        errorCode: 'PAYMENT_NOT_FULFILLABLE',
        reason: 'invalid_exact_evm_insufficient_balance',
      },
    });
    faults.storeDown = true;
    try {
      expect(await stamped('GET', path, undefined)).toMatchObject({
        status: 503,
        json: { errorCode: 'PAYMENT_AUTH_UNAVAILABLE', retryable: true },
      });
    } finally {
      faults.storeDown = false;
    }
  });

  it('answers PAYMENT_STATUS_UNKNOWN while a sent transfer has no receipt, never sends it twice, and reconciles it', async () => {
    const body = { x402Version: 2, ...(await payload('700')) };
    const before = await anvil.balanceOf(payee);
    await anvil.test.setAutomine(false);
    try {
      const unknown = await call('POST', '/base-sepolia/settle', body);
      expect(unknown).toMatchObject({
        status: 503,
        json: { errorCode: 'PAYMENT_STATUS_UNKNOWN', retryable: true },
      });
      expect(unknown.headers.get('retry-after')).toBe('2');
      const paymentId = unknown.json.paymentId as string;
      expect(
        (await call('GET', `/base-sepolia/v1/payments/${paymentId}`)).json.payment,
      ).toMatchObject({
        status: 'unknown',
      });
      // The client retries anyway: the same answer, and still one transaction in the pool.
      const retried = await call('POST', '/base-sepolia/settle', body);
      expect(retried.json).toMatchObject({ errorCode: 'PAYMENT_STATUS_UNKNOWN', paymentId });
      const pool = (await anvil.client.request({ method: 'txpool_status' as never })) as {
        pending: string;
      };
      expect(Number(pool.pending)).toBe(1);
      await anvil.test.mine({ blocks: 1 });
    } finally {
      await anvil.test.setAutomine(true);
    }
    expect(await server.pay!.facilitator.reconcile()).toBe(1);
    const settled = await call('POST', '/base-sepolia/settle', body);
    expect(settled.json).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_nonce_already_used',
    });
    expect(await anvil.balanceOf(payee)).toBe(before + 700n);
  });

  it('keeps a settled transfer it could not record, and records it later', async () => {
    const body = {
      x402Version: 2,
      ...(await payload('800', { id: `pay_${crypto.randomUUID()}` })),
    };
    const before = await anvil.balanceOf(payee);
    faults.failPaymentWritesOf = 'settled';
    let paymentId: string;
    try {
      const lost = await call('POST', '/base-sepolia/settle', body);
      expect(lost).toMatchObject({
        status: 503,
        json: { errorCode: 'FULFILLMENT_PERSISTENCE_UNAVAILABLE', retryable: true },
      });
      paymentId = lost.json.paymentId as string;
    } finally {
      faults.failPaymentWritesOf = undefined;
    }
    expect(await anvil.balanceOf(payee)).toBe(before + 800n);
    expect(await server.pay!.facilitator.reconcile()).toBe(1);
    const again = await call('POST', '/base-sepolia/settle', body);
    expect(again.json).toMatchObject({ success: true, paymentId });
    expect(await anvil.balanceOf(payee)).toBe(before + 800n);
  });

  it('refuses an authorization once the chain is past validBefore', async () => {
    const { paymentPayload, paymentRequirements } = await payload('300', { timeout: 30 });
    await anvil.test.increaseTime({ seconds: 3_600 });
    await anvil.test.mine({ blocks: 1 });
    const settled = await facilitator().settle(paymentPayload, paymentRequirements);
    expect(settled).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_payload_authorization_valid_before',
    });
  });

  it('reports each dependency on /ready, and a chain that is down', async () => {
    faults.paymentsDown = true;
    try {
      expect((await call('GET', '/ready')).json).toEqual({
        status: 'unavailable',
        errorCode: 'REPLAY_STORE_UNAVAILABLE',
        retryable: true,
      });
    } finally {
      faults.paymentsDown = false;
    }
    faults.storeDown = true;
    try {
      expect(await call('GET', '/ready')).toMatchObject({
        status: 503,
        json: { errorCode: 'COORDINATOR_UNAVAILABLE' },
      });
      const body = { x402Version: 2, ...(await payload('100')) };
      expect(await call('POST', '/base-sepolia/settle', body)).toMatchObject({
        status: 503,
        json: { errorCode: 'PAYMENT_SERVICE_UNAVAILABLE', retryable: true },
      });
    } finally {
      faults.storeDown = false;
    }
    // base-mainnet pointed at a chain whose id is not 8453.
    const misconfigured = await createPayGateway(server.keyhold, {
      chains: new Map([['base-mainnet', anvil.rpcUrl]]),
      organizationId: server.organizationId!,
      reconcileIntervalMs: 0,
    });
    expect(await misconfigured.gateway.readiness()).toBe('PAY_GATEWAY_CONFIGURATION_INVALID');
    await misconfigured.close();

    const body = { x402Version: 2, ...(await payload('100')) };
    await anvil.stop();
    expect((await call('GET', '/ready')).json).toEqual({
      status: 'unavailable',
      errorCode: 'FACILITATOR_UNAVAILABLE',
      retryable: true,
    });
    expect(await call('POST', '/base-sepolia/verify', body)).toMatchObject({
      status: 503,
      json: { errorCode: 'PAYMENT_SERVICE_UNAVAILABLE' },
    });
  });

  it('produced every errorCode of the gateway', () => {
    expect([...produced].filter(isPayErrorCode).sort()).toEqual([...PAY_ERROR_CODE_LIST].sort());
  });
});
