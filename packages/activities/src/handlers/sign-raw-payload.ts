/**
 * SIGN_RAW_PAYLOAD (V1 by private-key id, V2 by `signWith`) and SIGN_RAW_PAYLOADS.
 * @module
 */
import { formatSignature, preparePayload } from '@keyhold/keys';
import type { Curve, IntentOfKind, SignatureResult } from '@keyhold/protocol';
import { type SigningPlan, signWithStarted } from '../speculative-signing.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';
import { resolveSigner } from './resolve-signer.js';

/** How the payloads are read and hashed: the same members in every raw-signing intent. */
type SignParams = Pick<IntentOfKind<'SIGN_RAW_PAYLOADS'>, 'encoding' | 'hashFunction'>;

async function sign(
  ctx: ActivityContext,
  signWith: string,
  payloads: readonly string[],
  p: SignParams,
): Promise<SignatureResult[]> {
  const signer = await resolveSigner(ctx.scope, signWith);
  // Prepare every payload first: one bad payload fails the batch before anything is signed.
  const messages = messagesOf(payloads, p, signer.curve);
  const signatures: SignatureResult[] = [];
  for (const message of messages) {
    const signature = await signWithStarted(
      ctx.vault,
      ctx.started,
      signer.key,
      signer.curve,
      message,
    );
    signatures.push(formatSignature(signature));
  }
  return signatures;
}

function messagesOf(payloads: readonly string[], p: SignParams, curve: Curve): Uint8Array[] {
  return payloads.map((payload) =>
    preparePayload({ payload, encoding: p.encoding, hashFunction: p.hashFunction, curve }),
  );
}

function planOf(signWith: string, payloads: readonly string[], p: SignParams): SigningPlan {
  return { signWith, messages: (curve) => messagesOf(payloads, p, curve) };
}

export const signRawPayloadHandler: HandlerOf<'SIGN_RAW_PAYLOAD'> = {
  async execute(ctx, p) {
    // V2 names the key by `signWith`, V1 by `privateKeyId`.
    const signWith = 'signWith' in p ? p.signWith : p.privateKeyId;
    const [signature] = await sign(ctx, signWith, [p.payload], p);
    return { ...signature! };
  },
  signingPlan: (p) => planOf('signWith' in p ? p.signWith : p.privateKeyId, [p.payload], p),
};

export const signRawPayloadsHandler: HandlerOf<'SIGN_RAW_PAYLOADS'> = {
  async execute(ctx, p) {
    return { signatures: await sign(ctx, p.signWith, p.payloads, p) };
  },
  signingPlan: (p) => planOf(p.signWith, p.payloads, p),
};
