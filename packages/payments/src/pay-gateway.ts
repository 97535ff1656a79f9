/**
 * The payment gateway's HTTP surface, transport-agnostic like the server's `handle()`: routes
 * a raw request (its path relative to `{pay_url}`) to the facilitator, the charge, the payment
 * queries or `/ready`, and turns every refusal into the fixed error body. No answer is a 5xx
 * but the retryable ones the spec names: a fault is logged and answered
 * PAYMENT_SERVICE_UNAVAILABLE.
 *
 * | Method | Path                                                        | Auth    |
 * | ------ | ----------------------------------------------------------- | ------- |
 * | GET    | /{network}/supported                                        | none    |
 * | POST   | /{network}/verify, /{network}/settle                        | none    |
 * | POST   | /{network}/v1/settlements/charge                            | stamp   |
 * | GET    | /{network}/v1/payments/{paymentId}                          | none    |
 * | GET    | /{network}/v1/organizations/{organizationId}/payments[/{id}] | stamp   |
 * | GET    | /ready                                                      | none    |
 * @module
 */
import {
  type Clock,
  portErrorCodeOf,
  type SignatureVerifier,
  type Store,
} from '@keyhold/activities';
import {
  PayError,
  payErrorResponse,
  type ReadyErrorCode,
  readinessResponse,
} from '@keyhold/pay-errors';
import type { RawRequest, RawResponse, RequestHandler } from '@keyhold/protocol';
import { EvmChainUnavailableError } from './evm-chain.js';
import { authenticateOrganizationRequest } from './pay-authentication.js';
import type { PayFacilitator } from './pay-facilitator.js';
import { isPayNetwork, PAY_NETWORKS, type PayNetwork } from './pay-networks.js';
import { paymentView } from './payment-view.js';

/**
 * What the gateway is built from.
 * @example
 * const deps: PayGatewayDeps = { facilitator, store, verifier, clock, organizationId };
 */
export interface PayGatewayDeps {
  facilitator: PayFacilitator;
  store: Store;
  verifier: SignatureVerifier;
  clock: Clock;
  /** The operator's organization: `/settle`'s payments, `GET /v1/payments/{id}`. */
  organizationId: string;
  /** Where faults are reported (their details never reach a client). */
  onFault?: (error: unknown, request: RawRequest) => void;
}

const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };

const ok = (body: unknown): RawResponse => ({
  status: 200,
  headers: { ...JSON_HEADERS },
  body: JSON.stringify(body),
});

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The body as JSON. @throws PayError PAYMENT_REQUEST_INVALID */
function jsonBody(rawBody: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(rawBody));
  } catch {
    throw new PayError('PAYMENT_REQUEST_INVALID', { reason: 'the body is not JSON' });
  }
}

/** The id rule of payments: a payment-identifier's, or `pay_` and 32 hex digits. */
const PAYMENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The payment gateway, a RequestHandler for paths under `{pay_url}`.
 * @example
 * const gateway = new PayGateway({ facilitator, store, verifier, clock, organizationId });
 * await gateway.handle({ method: 'GET', path: '/base-sepolia/supported', headers: {}, rawBody: new Uint8Array() });
 */
export class PayGateway implements RequestHandler {
  constructor(private readonly deps: PayGatewayDeps) {}

  async handle(request: RawRequest): Promise<RawResponse> {
    try {
      return await this.route(request);
    } catch (error) {
      if (PayError.is(error)) return payErrorResponse(error);
      if (portErrorCodeOf(error) === 'STORE_UNAVAILABLE' || EvmChainUnavailableError.is(error)) {
        return payErrorResponse(new PayError('PAYMENT_SERVICE_UNAVAILABLE'));
      }
      this.deps.onFault?.(error, request);
      return payErrorResponse(new PayError('PAYMENT_SERVICE_UNAVAILABLE'));
    }
  }

  private async route(request: RawRequest): Promise<RawResponse> {
    const { method, path } = request;
    if (path === '/ready' && method === 'GET') return readinessResponse(await this.readiness());
    const [, network, ...rest] = path.split('/');
    if (network === undefined || !isPayNetwork(network)) {
      throw new PayError('PAYMENT_REQUIREMENTS_UNSUPPORTED', {
        reason: `unknown network ${String(network)}`,
      });
    }
    const { facilitator } = this.deps;
    const route = rest.join('/');
    if (method === 'GET' && route === 'supported') return ok(facilitator.supported(network));
    if (method === 'POST' && route === 'verify') {
      return ok(await facilitator.verify(network, jsonBody(request.rawBody)));
    }
    if (method === 'POST' && route === 'settle') {
      return ok(
        await facilitator.settle(network, jsonBody(request.rawBody), {
          organizationId: this.deps.organizationId,
          source: 'settle',
        }),
      );
    }
    if (method === 'POST' && route === 'v1/settlements/charge')
      return this.charge(network, request);
    if (method === 'GET' && rest[0] === 'v1' && rest[1] === 'payments' && rest.length === 3) {
      return this.payment(network, this.deps.organizationId, rest[2]!);
    }
    if (
      method === 'GET' &&
      rest[0] === 'v1' &&
      rest[1] === 'organizations' &&
      rest[3] === 'payments' &&
      (rest.length === 4 || rest.length === 5)
    ) {
      return this.organizationPayments(network, request, rest[2]!, rest[4]);
    }
    throw new PayError('PAYMENT_NOT_FOUND', { reason: `no endpoint ${method} ${path}` });
  }

  /**
   * `POST /{network}/v1/settlements/charge`: an organization settles a payment payload to one
   * of its own addresses. Body: `{organizationId, x402Version?, paymentPayload,
   * paymentRequirements}`, stamped by a user of that organization; `paymentRequirements.payTo`
   * must be an Ethereum address of one of its wallet accounts or private keys.
   */
  private async charge(network: PayNetwork, request: RawRequest): Promise<RawResponse> {
    const { facilitator } = this.deps;
    // Read only once the stamp holds over the raw bytes.
    let body: unknown;
    let payment: ReturnType<PayFacilitator['read']> | undefined;
    let organizationId = '';
    const read = (): string => {
      body = jsonBody(request.rawBody);
      const named =
        typeof body === 'object' && body !== null
          ? (body as { organizationId?: unknown }).organizationId
          : undefined;
      if (typeof named !== 'string' || named.length === 0) {
        throw new PayError('PAYMENT_REQUEST_INVALID', { reason: 'organizationId is required' });
      }
      organizationId = named;
      payment = facilitator.read(network, body);
      return named;
    };
    await authenticateOrganizationRequest(this.deps, request, read, async (tx) => {
      const payTo = payment!.requirements.payTo;
      const held =
        (await tx.walletAccounts.findByAddress(organizationId, payTo)) ??
        (await tx.privateKeys.findByAddress(organizationId, payTo));
      if (!held) {
        throw new PayError('PAYMENT_AUTH_FORBIDDEN', {
          reason: `payTo ${payTo} is not an address of organization ${organizationId}`,
        });
      }
    });
    const result = await facilitator.settle(
      network,
      body,
      { organizationId, source: 'charge' },
      payment!,
    );
    if (!result.success) {
      throw new PayError('PAYMENT_NOT_FULFILLABLE', {
        ...(result.paymentId ? { paymentId: result.paymentId } : {}),
        ...(result.errorReason ? { reason: result.errorReason } : {}),
      });
    }
    return this.payment(network, organizationId, result.paymentId!);
  }

  /** One payment of an organization, on this network. */
  private async payment(
    network: PayNetwork,
    organizationId: string,
    paymentId: string,
  ): Promise<RawResponse> {
    if (!PAYMENT_ID.test(paymentId)) throw new PayError('PAYMENT_NOT_FOUND', { paymentId });
    const record = await this.deps.store.transaction((tx) =>
      tx.payments.get(organizationId, paymentId),
    );
    if (!record || record.network !== network) {
      throw new PayError('PAYMENT_NOT_FOUND', { paymentId });
    }
    return ok({ payment: paymentView(record) });
  }

  /** An organization's payments on this network, or one of them; stamped by its user. */
  private async organizationPayments(
    network: PayNetwork,
    request: RawRequest,
    organizationId: string,
    paymentId: string | undefined,
  ): Promise<RawResponse> {
    const { value } = await authenticateOrganizationRequest(
      this.deps,
      request,
      organizationId,
      async (tx) =>
        paymentId === undefined
          ? (await tx.payments.list(organizationId)).filter((p) => p.network === network)
          : await tx.payments.get(organizationId, paymentId),
    );
    if (paymentId === undefined) {
      return ok({ payments: (value as Parameters<typeof paymentView>[0][]).map(paymentView) });
    }
    const record = value as Parameters<typeof paymentView>[0] | undefined;
    if (!record || record.network !== network) {
      throw new PayError('PAYMENT_NOT_FOUND', { paymentId });
    }
    return ok({ payment: paymentView(record) });
  }

  /**
   * The first dependency that is down or misconfigured: the store (COORDINATOR_UNAVAILABLE),
   * the payment records (REPLAY_STORE_UNAVAILABLE), the operator's organization and each
   * chain's id (PAY_GATEWAY_CONFIGURATION_INVALID), each chain's RPC (FACILITATOR_UNAVAILABLE).
   */
  async readiness(): Promise<ReadyErrorCode | undefined> {
    const { store, organizationId, facilitator } = this.deps;
    let organizationFound: boolean;
    try {
      organizationFound = await store.transaction(
        async (tx) => (await tx.organizations.get(organizationId)) !== undefined,
      );
    } catch {
      return 'COORDINATOR_UNAVAILABLE';
    }
    try {
      await store.transaction((tx) => tx.payments.listByStatus('unknown'));
    } catch {
      return 'REPLAY_STORE_UNAVAILABLE';
    }
    if (!organizationFound) return 'PAY_GATEWAY_CONFIGURATION_INVALID';
    for (const network of Object.keys(PAY_NETWORKS) as PayNetwork[]) {
      let chain: ReturnType<PayFacilitator['chainOf']>;
      try {
        chain = facilitator.chainOf(network);
      } catch {
        continue; // not configured
      }
      try {
        if ((await chain.getChainId()) !== PAY_NETWORKS[network].chainId) {
          return 'PAY_GATEWAY_CONFIGURATION_INVALID';
        }
      } catch {
        return 'FACILITATOR_UNAVAILABLE';
      }
    }
    return undefined;
  }
}
