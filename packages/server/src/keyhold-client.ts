/**
 * The embedded client: builds request bodies, stamps them with an API key and calls
 * `handle()` in-process. Same wire format as a remote client, no HTTP.
 * @module
 */
import type { Clock } from '@keyhold/activities';
import {
  type Activity,
  type ActivityType,
  activityDefinitionOf,
  type RequestHandler,
  type SignatureResult,
  type StatusBody,
} from '@keyhold/protocol';
import { createApiKeyStamper, type Stamper } from './api-key-signer.js';

export interface KeyholdClientOptions {
  organizationId: string;
  /** The API key's private scalar, hex (P-256). */
  apiPrivateKey: string;
}

/** A request the server refused: carries the Status body. */
export class KeyholdRequestError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly status: StatusBody,
  ) {
    super(`Keyhold error ${status.code}: ${status.message}`);
    this.name = 'KeyholdRequestError';
  }
}

/** An activity that did not complete (FAILED, REJECTED, or waiting for CONSENSUS_NEEDED). */
export class KeyholdActivityError extends Error {
  constructor(readonly activity: Activity) {
    super(
      activity.status === 'ACTIVITY_STATUS_CONSENSUS_NEEDED'
        ? `activity ${activity.id} needs consensus (fingerprint ${activity.fingerprint})`
        : `activity ${activity.id} ended ${activity.status}${activity.failure ? `: ${activity.failure.message}` : ''}`,
    );
    this.name = 'KeyholdActivityError';
  }
}

type Completed<R> = R & { activity: Activity };

export class KeyholdClient {
  private readonly stamper: Stamper;

  constructor(
    private readonly handler: RequestHandler,
    private readonly options: KeyholdClientOptions,
    private readonly clock: Clock,
  ) {
    this.stamper = createApiKeyStamper(options.apiPrivateKey);
  }

  /** POSTs a stamped body; returns the parsed 200 body or throws KeyholdRequestError. */
  async post<T>(path: string, body: unknown): Promise<T> {
    const text = JSON.stringify(body);
    const response = await this.handler.handle({
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json', 'x-stamp': this.stamper.stamp(text) },
      rawBody: new TextEncoder().encode(text),
    });
    const parsed = JSON.parse(response.body);
    if (response.status !== 200)
      throw new KeyholdRequestError(response.status, parsed as StatusBody);
    return parsed as T;
  }

  /** Submits an activity and returns it, whatever its status. */
  async submit(
    type: ActivityType,
    parameters: object,
    organizationId = this.options.organizationId,
  ): Promise<Activity> {
    const definition = activityDefinitionOf(type);
    if (!definition) throw new Error(`unsupported activity type ${type}`);
    const { activity } = await this.post<{ activity: Activity }>(
      `/public/v1/submit/${definition.path}`,
      {
        type,
        timestampMs: String(this.clock.now()),
        organizationId,
        parameters,
      },
    );
    return activity;
  }

  /** Submits an activity and returns its result; throws KeyholdActivityError unless it completed. */
  async run<R extends object>(type: ActivityType, parameters: object): Promise<Completed<R>> {
    const activity = await this.submit(type, parameters);
    if (activity.status !== 'ACTIVITY_STATUS_COMPLETED') throw new KeyholdActivityError(activity);
    const key = activityDefinitionOf(type)!.resultKey;
    return { ...(activity.result[key] as R), activity };
  }

  query<T>(name: string, body: object = {}): Promise<T> {
    return this.post<T>(`/public/v1/query/${name}`, {
      organizationId: this.options.organizationId,
      ...body,
    });
  }

  whoami() {
    return this.query<{
      organizationId: string;
      organizationName: string;
      userId: string;
      username: string;
    }>('whoami');
  }

  createWallet(parameters: {
    walletName: string;
    accounts: { curve: string; pathFormat: string; path: string; addressFormat: string }[];
    mnemonicLength?: number;
  }) {
    return this.run<{ walletId: string; addresses: string[] }>(
      'ACTIVITY_TYPE_CREATE_WALLET',
      parameters,
    );
  }

  signRawPayload(parameters: {
    signWith: string;
    payload: string;
    encoding: string;
    hashFunction: string;
  }) {
    return this.run<SignatureResult>('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', parameters);
  }

  getActivity(activityId: string) {
    return this.query<{ activity: Activity }>('get_activity', { activityId });
  }

  /** Approves the activity with this fingerprint; returns that activity after the vote. */
  approveActivity(fingerprint: string): Promise<Activity> {
    return this.submit('ACTIVITY_TYPE_APPROVE_ACTIVITY', { fingerprint });
  }

  /** Rejects the activity with this fingerprint; returns that activity after the vote. */
  rejectActivity(fingerprint: string): Promise<Activity> {
    return this.submit('ACTIVITY_TYPE_REJECT_ACTIVITY', { fingerprint });
  }
}
