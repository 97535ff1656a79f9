/**
 * Stamped reads. Any user of the organization, or of its parent, may read it; queries
 * store nothing. whoami alone also answers a sub-organization's user who names the parent.
 * @module
 */
import { type BootProof, KeyholdError, validateQuery } from '@keyhold/protocol';
import { requireOrganization } from './activity-service.js';
import { DEFAULT_CONSENSUS_EXPIRY_MS } from './decision/voting-rights.js';
import type { Clock } from './ports/clock.js';
import { noSendTransactionChains, type SendTransactionChains } from './ports/evm-send-chain.js';
import type { OnRampProvider } from './ports/on-ramp-provider.js';
import type { SignatureVerifier } from './ports/signature-verifier.js';
import type { Store } from './ports/store.js';
import { findPrincipal, findWhoamiPrincipal } from './principal.js';
import { QUERY_HANDLERS } from './queries/index.js';
import type { RequestMeter } from './rate-limit/request-admission.js';
import {
  findSessionReader,
  isSessionRequest,
  readSessionRequest,
  type SessionRequest,
} from './read-only-session.js';
import {
  type IncomingRequest,
  organizationIdOf,
  readSignedRequest,
  type SignedRequest,
} from './signed-request.js';

/** What a QueryService runs on. Queries store nothing, so there is no vault and no Ids. */
export interface QueryServiceDeps {
  store: Store;
  /**
   * The EVM and Solana chains of the send-transaction queries. Default: none
   * (EVM_RPC_NOT_CONFIGURED, SOLANA_RPC_NOT_CONFIGURED).
   */
  chains?: SendTransactionChains;
  /** The fiat on-ramp provider adapters (get_onramp_transaction_status). Default: none. */
  onRampProviders?: readonly OnRampProvider[];
  verifier: SignatureVerifier;
  clock: Clock;
  /**
   * The notarizer's public key (uncompressed hex): read-only sessions it signed authenticate
   * queries (`X-Session`). Absent: only stamps do.
   */
  notarizerPublicKey?: string;
  /** This server's software boot proof, answered by get_boot_proof and get_latest_boot_proof. */
  bootProof?: BootProof;
  options?: {
    /** As ActivityServiceOptions.consensusExpiryMs: when `canApprove` stops being true. */
    consensusExpiryMs?: number;
  };
}

/**
 * Stamped reads (`/public/v1/query/<name>`).
 *
 * @example
 * ```ts
 * const queries = new QueryService({
 *   store,
 *   verifier: nobleSignatureVerifier,
 *   clock: systemClock,
 * });
 * const { wallets } = await queries.query('list_wallets', { headers, rawBody });
 * ```
 */
export class QueryService {
  private readonly onRampProviders: ReadonlyMap<string, OnRampProvider>;

  constructor(private readonly deps: QueryServiceDeps) {
    this.onRampProviders = new Map((deps.onRampProviders ?? []).map((p) => [p.provider, p]));
  }

  /**
   * Every query Keyhold serves (`/public/v1/query/<name>`), e.g. for the OpenAPI document.
   * @example
   * QueryService.names().includes('whoami'); // true
   */
  static names(): readonly string[] {
    return Object.keys(QUERY_HANDLERS);
  }

  /** True when `name` is a query Keyhold serves. */
  static serves(name: string): boolean {
    return Object.hasOwn(QUERY_HANDLERS, name);
  }

  /**
   * Runs the stamped body posted to `/public/v1/query/<name>`. With a `meter`, the query is
   * charged (cost 1) to its user and organization once its stamp verified.
   */
  async query(
    name: string,
    request: IncomingRequest,
    meter?: RequestMeter,
  ): Promise<Record<string, unknown>> {
    const handler = QUERY_HANDLERS[name];
    if (!handler) throw new KeyholdError('UNSUPPORTED_QUERY', { query: name });
    const now = this.deps.clock.now();
    const { notarizerPublicKey } = this.deps;
    const authenticated: SignedRequest | SessionRequest =
      notarizerPublicKey !== undefined && isSessionRequest(request.headers)
        ? readSessionRequest(request, notarizerPublicKey, now)
        : await readSignedRequest(this.deps.verifier, request);
    const { body } = authenticated;
    validateQuery(name, body);
    const organizationId = organizationIdOf(body);
    return this.deps.store.transaction(async (tx) => {
      const organization = await requireOrganization(tx, organizationId);
      // whoami also finds a sub-organization's user who names the parent organization.
      const principal =
        'claims' in authenticated
          ? await findSessionReader(tx, organization, authenticated.claims)
          : await (name === 'whoami' ? findWhoamiPrincipal : findPrincipal)(
              tx,
              organization,
              authenticated.stamp,
              now,
            );
      await meter?.charge({
        organizationId: organization.organizationId,
        userId: principal.user.userId,
        cost: 1,
      });
      return handler(
        {
          tx,
          organization,
          principal,
          now,
          consensusExpiryMs: this.deps.options?.consensusExpiryMs ?? DEFAULT_CONSENSUS_EXPIRY_MS,
          ...(this.deps.bootProof ? { bootProof: this.deps.bootProof } : {}),
          chains: this.deps.chains ?? noSendTransactionChains,
          onRampProviders: this.onRampProviders,
        },
        body,
      );
    });
  }
}
