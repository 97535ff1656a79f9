/**
 * `handle()`: the transport-agnostic request path. Routes a raw request to the activity or
 * query service and turns every outcome into a response — a KeyholdError into its Status
 * body and HTTP status, anything else into "internal server error (<id>)" with the details
 * only in the log.
 * @module
 */
import {
  type ActivityService,
  QueryService,
  type Store,
  StoreUnavailableError,
} from '@keyhold/activities';
import {
  activityDefinitionsAt,
  internalStatus,
  isKeyholdError,
  KeyholdError,
  type RawRequest,
  type RawResponse,
  type RequestHandler,
} from '@keyhold/protocol';
import { KNOWN_QUERY_PATHS, KNOWN_SUBMIT_PATHS } from './known-endpoints.js';
import type { Logger } from './logger.js';

const SUBMIT = '/public/v1/submit/';
const QUERY = '/public/v1/query/';

const BASE_HEADERS = {
  'content-type': 'application/json',
  'access-control-allow-origin': '*',
  'cache-control': 'no-store',
};

const CORS_PREFLIGHT = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, GET, OPTIONS',
  'access-control-allow-headers':
    'content-type, x-stamp, x-stamp-webauthn, x-stamp-attested, x-client-version',
  'access-control-max-age': '600',
};

const json = (status: number, body: unknown): RawResponse => ({
  status,
  headers: { ...BASE_HEADERS },
  body: JSON.stringify(body),
});

/** A 503 the client should retry after a second. */
const retryLater = (body: unknown): RawResponse => ({
  ...json(503, body),
  headers: { ...BASE_HEADERS, 'retry-after': '1' },
});

export interface KeyholdRequestHandlerDeps {
  store: Store;
  activities: ActivityService;
  queries: QueryService;
  logger: Logger;
  newErrorId: () => string;
}

export class KeyholdRequestHandler implements RequestHandler {
  /** Set when the server begins to drain: readiness answers 503 so balancers stop routing here. */
  draining = false;

  constructor(private readonly deps: KeyholdRequestHandlerDeps) {}

  async handle(request: RawRequest): Promise<RawResponse> {
    try {
      return await this.route(request);
    } catch (error) {
      if (isKeyholdError(error)) return json(error.httpStatus, error.toStatus());
      if (error instanceof StoreUnavailableError) {
        const unavailable = new KeyholdError('UNAVAILABLE', { reason: 'store unavailable' });
        return retryLater(unavailable.toStatus());
      }
      const errorId = this.deps.newErrorId();
      this.deps.logger.error('request failed', {
        errorId,
        path: request.path,
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        stack: error instanceof Error ? error.stack : undefined,
      });
      return json(500, internalStatus(errorId));
    }
  }

  private async route(request: RawRequest): Promise<RawResponse> {
    const { method, path } = request;
    if (method === 'OPTIONS') return { status: 204, headers: { ...CORS_PREFLIGHT }, body: '' };
    if (path === '/health' && method === 'GET') return json(200, { status: 'ok' });
    if (path === '/ready' && method === 'GET') return this.readiness();

    const isSubmit = path.startsWith(SUBMIT);
    const isQuery = path.startsWith(QUERY);
    if (!isSubmit && !isQuery) throw new KeyholdError('NOT_FOUND_ROUTE', { path });
    const name = path.slice(isSubmit ? SUBMIT.length : QUERY.length);

    if (isSubmit) {
      if (activityDefinitionsAt(name).length === 0) {
        if (KNOWN_SUBMIT_PATHS.has(name))
          throw new KeyholdError('ACTIVITY_TYPE_NOT_SUPPORTED', { path });
        throw new KeyholdError('NOT_FOUND_ROUTE', { path });
      }
      if (method !== 'POST') throw new KeyholdError('METHOD_NOT_ALLOWED', { allow: 'POST' });
      const activity = await this.deps.activities.submit(name, request);
      return json(200, { activity });
    }
    if (!QueryService.serves(name)) {
      if (KNOWN_QUERY_PATHS.has(name)) throw new KeyholdError('QUERY_NOT_SUPPORTED', { path });
      throw new KeyholdError('NOT_FOUND_ROUTE', { path });
    }
    if (method !== 'POST') throw new KeyholdError('METHOD_NOT_ALLOWED', { allow: 'POST' });
    return json(200, await this.deps.queries.query(name, request));
  }

  /** Readiness: 200 when the store answers, 503 with a reason when it does not. */
  private async readiness(): Promise<RawResponse> {
    if (this.draining) {
      return retryLater({ status: 'unavailable', errorCode: 'DRAINING', retryable: true });
    }
    try {
      await this.deps.store.ping?.();
      return json(200, { status: 'ready' });
    } catch (error) {
      this.deps.logger.warn('not ready', {
        error: error instanceof Error ? error.message : String(error),
      });
      return retryLater({ status: 'unavailable', errorCode: 'STORE_UNAVAILABLE', retryable: true });
    }
  }
}
