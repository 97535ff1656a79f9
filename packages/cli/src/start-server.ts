/**
 * Starting an HTTP server around a Keyhold instance: what `keyhold serve` runs, and what
 * tests use to get a real listening server. It lives in `@keyhold/cli`, not `@keyhold/server`,
 * so that embedding Keyhold installs no HTTP framework (issue #11.4).
 * @module
 */
import type { RequestListener, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type EvmSendChain,
  type GasSponsor,
  type SendTransactionChains,
  sendTransactionChainsOf,
} from '@keyhold/activities';
import type { RequestHandler } from '@keyhold/protocol';
import {
  AUTH_PROXY_PATH,
  createKeyhold,
  type Keyhold,
  type KeyholdOptions,
  Logger,
  OAUTH2_ISSUER_PATH,
} from '@keyhold/server';
import type Koa from 'koa';
import {
  createHttpServer,
  type HttpServerLimits,
  resolveHttpServerLimits,
  type TlsCredentials,
} from './http-server.js';
// Types only: the gateway (and viem) is loaded when a server serves it.
import type { PayGatewayOptions, RunningPayGateway } from './pay-gateway.js';

/**
 * The HTTP adapters `startServer` can serve through.
 * @example
 * const http: HttpAdapterKind = 'koa'; // keyhold serve --http koa
 */
export type HttpAdapterKind = 'express' | 'koa';

/**
 * What `startServer` takes: Keyhold's own options, the node:http server's limits (timeouts,
 * connection cap, header size; see HttpServerLimits for the defaults), and where to listen.
 */
export interface ServeOptions extends KeyholdOptions, HttpServerLimits {
  host?: string;
  /** 0 picks a free port. Default 8080. */
  port?: number;
  /** Creates (once) a root organization holding this compressed P-256 API public key. */
  bootstrapApiPublicKey?: string;
  bootstrapOrganizationName?: string;
  /** An existing instance to serve instead of creating one. */
  keyhold?: Keyhold;
  /** The HTTP adapter: `@keyhold/http-express` (default) or `@keyhold/http-koa`. */
  http?: HttpAdapterKind;
  /** How often due webhook deliveries are sent, in ms; 0 sends none. Default 1000. */
  webhookIntervalMs?: number;
  /** Serve HTTPS with this certificate and key. Default: plain HTTP. */
  tls?: TlsCredentials;
  /**
   * How many reverse proxies in front of the server append to `X-Forwarded-For`: the client's
   * address (rate limits, the access log) is then read that many hops back. Default 0: the
   * socket's peer, since any client can write the header.
   */
  trustProxyHops?: number;
  /**
   * Serves the payment gateway at `<url>/pay` on these chains (`keyhold serve --evm-rpc`). Its
   * organization defaults to the bootstrap organization, which it then needs.
   */
  pay?: Omit<PayGatewayOptions, 'organizationId'> & { organizationId?: string };
  /**
   * Gas sponsorship of ETH_SEND_TRANSACTION by the payment gateway's settlement account: what
   * one ETH is worth in USD (`keyhold serve --gas-sponsor-usd-per-eth`), the price the
   * organizations' USD limits are counted at. Without it nothing is sponsored.
   */
  gasSponsorUsdPerEth?: string;
}

/**
 * The send-transaction chains of the gateway's networks (`base-sepolia` → `eip155:84532`): an
 * RPC URL becomes a viem chain (loaded only then); an EvmChain object given in its place (a
 * test's) serves the gateway alone.
 */
async function sendTransactionChainsFor(
  chains: PayGatewayOptions['chains'],
): Promise<SendTransactionChains> {
  const { createViemEvmSendChain } = await import('@keyhold/chain-evm-viem');
  const { PAY_NETWORKS } = await import('@keyhold/payments');
  const byCaip2 = new Map<string, EvmSendChain>();
  for (const [network, chain] of chains) {
    if (typeof chain === 'string') {
      byCaip2.set(PAY_NETWORKS[network].caip2, createViemEvmSendChain(chain));
    }
  }
  return sendTransactionChainsOf(byCaip2);
}

/** A listening server started by `startServer`. */
export interface RunningServer {
  url: string;
  keyhold: Keyhold;
  organizationId?: string;
  userId?: string;
  /** `<url>/auth-proxy`: the `authProxyUrl` of `@turnkey/core` and the wallet kit. */
  authProxyUrl: string;
  /** `<url>/pay`, when the payment gateway is served. */
  payUrl?: string;
  /** The payment gateway's settlement account (it submits and pays gas for settlements). */
  paySignerAddress?: string;
  /** The payment gateway, when it is served. */
  pay?: RunningPayGateway;
  /** Stops accepting connections, lets in-flight requests finish, closes the store. */
  close(): Promise<void>;
}

/**
 * The app answering every request with Keyhold. Both adapters hand the same raw request to
 * the same handler, so they answer alike; the node:http server around them (and so draining)
 * is the same. Only the chosen adapter is loaded, when a server starts.
 */
async function requestListener(
  kind: HttpAdapterKind,
  keyhold: Keyhold,
  trustProxyHops: number,
  handler: RequestHandler,
): Promise<RequestListener> {
  if (kind === 'koa') {
    const [{ default: Koa }, { createKeyholdMiddleware, isClientDisconnect }] = await Promise.all([
      import('koa'),
      import('@keyhold/http-koa'),
    ]);
    const app = new Koa();
    if (trustProxyHops > 0) {
      app.proxy = true;
      app.maxIpsCount = trustProxyHops;
    }
    // fallThrough: false — nothing else is mounted, so unknown paths get Keyhold's 404 Status.
    app.use(createKeyholdMiddleware(handler, { fallThrough: false }));
    // Faults the middleware turned into 500 Status bodies: log them as Keyhold does (no stack).
    // Koa also reports a client resetting its connection mid-request: not a fault.
    const logger = keyhold.container.get<Logger>(Logger);
    app.on('error', (error: Error, ctx?: Koa.Context) => {
      if (isClientDisconnect(error)) {
        logger.info('client disconnected', { error: `${error.name}: ${error.message}` });
        return;
      }
      logger.error('request failed', {
        errorId: ctx?.state.keyholdErrorId,
        error: `${error.name}: ${error.message}`,
      });
    });
    return app.callback();
  }
  const [{ default: express }, { createKeyholdRouter }] = await Promise.all([
    import('express'),
    import('@keyhold/http-express'),
  ]);
  const app = express();
  app.disable('x-powered-by');
  if (trustProxyHops > 0) app.set('trust proxy', trustProxyHops);
  app.use(createKeyholdRouter(handler));
  return app;
}

/**
 * Starts Keyhold on a real HTTP server.
 * @example
 * const server = await startServer({ port: 0, http: 'koa', bootstrapApiPublicKey });
 * // … clients use server.url and server.organizationId …
 * await server.close(); // drains in-flight requests, then closes the store
 */
export async function startServer(options: ServeOptions = {}): Promise<RunningServer> {
  const http = options.http ?? 'express';
  if (http !== 'express' && http !== 'koa')
    throw new TypeError(`http must be express or koa, got "${String(http)}"`);
  const trustProxyHops = options.trustProxyHops ?? 0;
  if (!Number.isSafeInteger(trustProxyHops) || trustProxyHops < 0) {
    throw new TypeError(`trustProxyHops must be a non-negative integer, got ${trustProxyHops}`);
  }
  const limits = resolveHttpServerLimits(options);
  // The OIDC issuer of OAUTH2_AUTHENTICATE's tokens is this server unless told otherwise: its
  // URL is known once it listens, so the issuer is asked for at each activity.
  let listeningUrl: string | undefined;
  // The send-transaction activities broadcast on the gateway's RPC endpoints; the sponsor is
  // the settlement account, known once the gateway has opened it.
  let gasSponsor: GasSponsor | undefined;
  const sendChains = options.pay ? await sendTransactionChainsFor(options.pay.chains) : undefined;
  const keyhold =
    options.keyhold ??
    createKeyhold({
      ...options,
      sendTransaction: {
        ...(sendChains ? { chains: sendChains } : {}),
        gasSponsor: () => gasSponsor,
        ...options.sendTransaction,
      },
      oauth2: {
        ...options.oauth2,
        issuer:
          options.oauth2?.issuer ??
          (() => `${listeningUrl ?? 'http://keyhold.invalid'}${OAUTH2_ISSUER_PATH}`),
      },
    });
  let organizationId: string | undefined;
  let userId: string | undefined;
  if (options.bootstrapApiPublicKey) {
    const result = await keyhold.bootstrap({
      organizationName: options.bootstrapOrganizationName ?? 'Keyhold',
      apiPublicKey: options.bootstrapApiPublicKey,
    });
    organizationId = result.organizationId;
    userId = result.userId;
  }
  let pay: RunningPayGateway | undefined;
  let handler: RequestHandler = keyhold;
  let payUrlPath = '';
  if (options.pay) {
    const { createPayGateway, PAY_PATH_PREFIX, withPayGateway } = await import('./pay-gateway.js');
    const payOrganizationId = options.pay.organizationId ?? organizationId;
    if (!payOrganizationId) {
      throw new Error(
        'the payment gateway needs an organization for its settlement key: the bootstrap organization (--bootstrap-api-public-key)',
      );
    }
    pay = await createPayGateway(keyhold, { ...options.pay, organizationId: payOrganizationId });
    if (options.gasSponsorUsdPerEth !== undefined) {
      gasSponsor = {
        organizationId: payOrganizationId,
        address: pay.signerAddress,
        usdPerNative: options.gasSponsorUsdPerEth,
      };
    }
    handler = withPayGateway(keyhold, pay.gateway);
    payUrlPath = PAY_PATH_PREFIX;
  }
  const edge = createHttpServer(
    await requestListener(http, keyhold, trustProxyHops, handler),
    limits,
    keyhold.container.get<Logger>(Logger),
    options.tls,
  );
  const server: Server = edge.server;
  // Responses not yet written when draining begins say `Connection: close`, so that their
  // keep-alive sockets end with them rather than idle until keepAliveTimeout holds close() up.
  let draining = false;
  const inFlight = new Set<ServerResponse>();
  server.on('request', (_req, res: ServerResponse) => {
    if (draining) res.setHeader('connection', 'close');
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const webhookIntervalMs = options.webhookIntervalMs ?? 1_000;
  if (webhookIntervalMs > 0) keyhold.startWebhookDelivery(webhookIntervalMs);
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  listeningUrl = `${options.tls ? 'https' : 'http'}://${urlHost}:${port}`;
  const url = listeningUrl;
  return {
    url,
    keyhold,
    authProxyUrl: `${url}${AUTH_PROXY_PATH}`,
    ...(pay ? { pay, payUrl: `${url}${payUrlPath}`, paySignerAddress: pay.signerAddress } : {}),
    ...(organizationId ? { organizationId } : {}),
    ...(userId ? { userId } : {}),
    async close() {
      keyhold.beginDrain();
      draining = true;
      for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
      edge.expireStalledWhileDraining();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await pay?.close();
      await keyhold.close();
    },
  };
}
