/**
 * The payment gateway beside a Keyhold instance: the facilitator over the instance's Store,
 * KeyVault, Clock and Ids, the settlement key in the operator's organization, the reconciler
 * on a timer, and the request handler that serves `{url}/pay` next to the public API. Here in
 * `@keyhold/cli`, not `@keyhold/server`, like the other heavy wiring: embedding Keyhold loads
 * no chain client.
 * @module
 */
import { Clock, Ids, SignatureVerifier, Store } from '@keyhold/activities';
import { createViemEvmChain } from '@keyhold/chain-evm-viem';
import { KeyVault } from '@keyhold/keys';
import {
  type EvmChain,
  openSettlementAccount,
  PAY_OPENAPI_PATHS,
  PayFacilitator,
  PayGateway,
  type PayNetwork,
} from '@keyhold/payments';
import type { RawRequest, RawResponse, RequestHandler } from '@keyhold/protocol';
import {
  type Keyhold,
  type KeyholdRequestHandler,
  Logger,
  OPENAPI_PATH,
  ServerTokens,
  withOpenApiPaths,
} from '@keyhold/server';

/**
 * Where the gateway is served, under the server's URL.
 * @example
 * `${server.url}${PAY_PATH_PREFIX}/base-sepolia/supported`;
 */
export const PAY_PATH_PREFIX = '/pay';

/**
 * How the payment gateway is configured.
 * @example
 * const options: PayGatewayOptions = { chains: new Map([['base-sepolia', 'http://127.0.0.1:8545']]), organizationId };
 */
export interface PayGatewayOptions {
  /** The RPC URL (or an EvmChain) of each network to serve. */
  chains: ReadonlyMap<PayNetwork, EvmChain | string>;
  /** The operator's organization: it holds the settlement key and `/settle`'s payments. */
  organizationId: string;
  /** How long a settlement waits for its receipt. Default 15 s. */
  receiptTimeoutMs?: number;
  /** How often the reconciler runs, ms; 0 never. Default 2000. */
  reconcileIntervalMs?: number;
}

/**
 * A payment gateway bound to a Keyhold instance.
 * @example
 * const pay: RunningPayGateway = await createPayGateway(keyhold, options);
 * await pay.facilitator.reconcile();
 */
export interface RunningPayGateway {
  readonly gateway: PayGateway;
  readonly facilitator: PayFacilitator;
  /** The settlement account's address (fund it with gas). */
  readonly signerAddress: string;
  /** Stops the reconciler. */
  close(): Promise<void>;
}

/**
 * Creates the payment gateway of a Keyhold instance (and the settlement key, on first start).
 * @example
 * const pay = await createPayGateway(keyhold, { chains: new Map([['base-sepolia', rpcUrl]]), organizationId });
 * const handler = withPayGateway(keyhold, pay.gateway);
 */
export async function createPayGateway(
  keyhold: Keyhold,
  options: PayGatewayOptions,
): Promise<RunningPayGateway> {
  const { container } = keyhold;
  const store = container.get<Store>(Store);
  const clock = container.get<Clock>(Clock);
  const ids = container.get<Ids>(Ids);
  const logger = container.get<Logger>(Logger);
  const settlement = await openSettlementAccount({
    store,
    vault: container.get<KeyVault>(KeyVault),
    ids,
    clock,
    organizationId: options.organizationId,
  });
  const chains = new Map<PayNetwork, EvmChain>();
  for (const [network, chain] of options.chains) {
    chains.set(network, typeof chain === 'string' ? createViemEvmChain(chain) : chain);
  }
  const facilitator = new PayFacilitator({
    store,
    clock,
    ids,
    chains,
    organizationId: options.organizationId,
    settlement,
    ...(options.receiptTimeoutMs !== undefined
      ? { receiptTimeoutMs: options.receiptTimeoutMs }
      : {}),
  });
  const gateway = new PayGateway({
    facilitator,
    store,
    verifier: container.get<SignatureVerifier>(SignatureVerifier),
    clock,
    organizationId: options.organizationId,
    onFault: (error, request) =>
      logger.error('payment request failed', {
        path: request.path,
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        stack: error instanceof Error ? error.stack : undefined,
      }),
  });
  const interval = options.reconcileIntervalMs ?? 2_000;
  let running: Promise<unknown> | undefined;
  const timer =
    interval > 0
      ? setInterval(() => {
          running ??= facilitator
            .reconcile()
            .then((changed) => {
              if (changed > 0) logger.info('payments reconciled', { changed });
            })
            .catch(() => {})
            .finally(() => {
              running = undefined;
            });
        }, interval)
      : undefined;
  timer?.unref();
  return {
    gateway,
    facilitator,
    signerAddress: settlement.address,
    async close() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}

/**
 * One request handler for Keyhold and its payment gateway: paths under `/pay` go to the
 * gateway (relative to `/pay`), every other path to Keyhold; Keyhold's `/openapi.json` gains
 * the gateway's paths.
 * @example
 * app.use(createKeyholdRouter(withPayGateway(keyhold, pay.gateway)));
 */
export function withPayGateway(keyhold: Keyhold, gateway: RequestHandler): RequestHandler {
  const requests = keyhold.container.get<KeyholdRequestHandler>(ServerTokens.RequestHandler);
  return {
    handle(request: RawRequest): Promise<RawResponse> {
      const { path } = request;
      if (path === PAY_PATH_PREFIX || path.startsWith(`${PAY_PATH_PREFIX}/`)) {
        // Observed as Keyhold's own routes are: a request id, an access line, the metrics.
        return requests.observe(request, PAY_PATH_PREFIX, () =>
          gateway.handle({ ...request, path: path.slice(PAY_PATH_PREFIX.length) || '/' }),
        );
      }
      if (path === OPENAPI_PATH) return withPayPaths(requests.handle(request));
      return requests.handle(request);
    },
  };
}

/** Keyhold's OpenAPI document with the gateway's paths under `/pay` (a refusal as it is). */
async function withPayPaths(answer: Promise<RawResponse>): Promise<RawResponse> {
  const response = await answer;
  if (response.status !== 200 || response.body === '') return response;
  const document = withOpenApiPaths(JSON.parse(response.body), PAY_PATH_PREFIX, PAY_OPENAPI_PATHS);
  return { ...response, body: JSON.stringify(document) };
}
