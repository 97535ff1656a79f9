/**
 * Signatures started before their activity's transaction.
 *
 * A signing activity holds its transaction while the vault signs: on the memory store and on
 * PGlite, whose transactions run one at a time, every other request waits for that signature,
 * so a pool of signing threads signs one request at a time. Here the signature is started on
 * the pool as the request arrives, before the transaction opens, when the same API key signed
 * with the same `signWith` in the same organization not long ago (the key, its curve and who
 * the API key belonged to are remembered then). The transaction then runs exactly as before —
 * authentication, the policy decision, the key read again — and the handler takes the started
 * signature only if the key the transaction resolved is the one it was started with and the
 * message is the same; otherwise it signs in the transaction. A signature whose activity is
 * refused is dropped, never seen.
 *
 * What it costs: a refused request that was started signs for nothing. Only an API key that
 * signed with that key before can start one (nobody else can make its stamp), a refusal
 * forgets the key, and with a rate limiter the request is charged before it starts (to the user
 * and organization the API key was charged to last time; the transaction's charge is then that
 * one, see `RequestMeter.charge`).
 * @module
 */

import type { KeyVault, RawSignature, SealedSecret } from '@keyhold/keys';
import type { Curve } from '@keyhold/protocol';
import { equalBytes } from '@noble/curves/utils.js';
import { LRUCache } from 'lru-cache';

/** What a handler will sign, as it knows before the transaction: the key's name and messages. */
export interface SigningPlan {
  /** The `signWith` of the intent: resolved in the transaction, remembered after. */
  readonly signWith: string;
  /**
   * The messages the vault will be asked to sign by a key of `curve`, in order; throws for a
   * payload the handler would refuse (nothing is started then).
   */
  messages(curve: Curve): readonly Uint8Array[];
}

/** A key an API key signed with, and whom that API key was charged to. */
export interface RecentSigner {
  readonly key: SealedSecret;
  readonly curve: Curve;
  /** The submitter's organization and user the request was charged to. */
  readonly organizationId: string;
  readonly userId: string;
}

/** Signatures started for one request; the handler takes them as it signs. */
export class StartedSignatures {
  readonly #key: SealedSecret;
  readonly #curve: Curve;
  readonly #started: { message: Uint8Array; signature: Promise<RawSignature> }[];

  constructor(vault: KeyVault, signer: RecentSigner, messages: readonly Uint8Array[]) {
    this.#key = signer.key;
    this.#curve = signer.curve;
    this.#started = messages.map((message) => {
      const signature = vault.sign(signer.key, signer.curve, message);
      // Taken or not, a failure here is the vault's to report again when the handler signs.
      signature.catch(() => {});
      return { message, signature };
    });
  }

  /**
   * Resolves when every started signature has finished, signed or failed. The service waits
   * for this before it opens the transaction, so no transaction waits on a signing thread.
   */
  finished(): Promise<void> {
    return Promise.allSettled(this.#started.map((s) => s.signature)).then(() => undefined);
  }

  /**
   * The started signature of `message` by `key`, or undefined when it was not started, was
   * started with another key, or failed (the handler then signs itself and meets the error).
   */
  take(key: SealedSecret, curve: Curve, message: Uint8Array): Promise<RawSignature> | undefined {
    if (key !== this.#key || curve !== this.#curve) return undefined;
    const index = this.#started.findIndex((s) => equalBytes(s.message, message));
    if (index < 0) return undefined;
    const [taken] = this.#started.splice(index, 1);
    return taken!.signature;
  }
}

/**
 * Signs `message` with the started signature when there is one for it, else with the vault;
 * a started signature that failed is signed again, so the vault's own error is what the
 * handler meets.
 */
export async function signWithStarted(
  vault: KeyVault,
  started: StartedSignatures | undefined,
  key: SealedSecret,
  curve: Curve,
  message: Uint8Array,
): Promise<RawSignature> {
  const taken = started?.take(key, curve, message);
  if (taken) {
    try {
      return await taken;
    } catch {
      // Signed again below, so the error the handler meets is the vault's, in the transaction.
    }
  }
  return vault.sign(key, curve, message);
}

/** The recent signers of a service: at most `capacity`, the least recently used dropped first. */
export class RecentSigners {
  readonly #signers: LRUCache<string, RecentSigner>;

  constructor(readonly capacity = 10_000) {
    this.#signers = new LRUCache({ max: capacity });
  }

  /** The key this API key last signed with for `signWith` in this organization, if any. */
  recall(organizationId: string, apiPublicKey: string, signWith: string): RecentSigner | undefined {
    return this.#signers.get(idOf(organizationId, apiPublicKey, signWith));
  }

  remember(
    organizationId: string,
    apiPublicKey: string,
    signWith: string,
    signer: RecentSigner,
  ): void {
    this.#signers.set(idOf(organizationId, apiPublicKey, signWith), signer);
  }

  forget(organizationId: string, apiPublicKey: string, signWith: string): void {
    this.#signers.delete(idOf(organizationId, apiPublicKey, signWith));
  }

  get size(): number {
    return this.#signers.size;
  }
}

const idOf = (organizationId: string, apiPublicKey: string, signWith: string) =>
  `${organizationId}\n${apiPublicKey}\n${signWith}`;
