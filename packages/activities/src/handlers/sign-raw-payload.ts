/**
 * SIGN_RAW_PAYLOAD (V1 by private-key id, V2 by `signWith`) and SIGN_RAW_PAYLOADS.
 * @module
 */
import { formatSignature, preparePayload } from '@keyhold/keys';
import type { HashFunction, PayloadEncoding, SignatureResult } from '@keyhold/protocol';
import type { ActivityContext, ActivityHandler } from './activity-handler.js';
import { resolveSigner } from './resolve-signer.js';

interface SignParams {
  encoding: PayloadEncoding;
  hashFunction: HashFunction;
}

async function sign(
  ctx: ActivityContext,
  signWith: string,
  payloads: readonly string[],
  p: SignParams,
): Promise<SignatureResult[]> {
  const signer = await resolveSigner(ctx.tx, ctx.organization.organizationId, signWith);
  // Prepare every payload first: one bad payload fails the batch before anything is signed.
  const messages = payloads.map((payload) =>
    preparePayload({
      payload,
      encoding: p.encoding,
      hashFunction: p.hashFunction,
      curve: signer.curve,
    }),
  );
  const signatures: SignatureResult[] = [];
  for (const message of messages) {
    signatures.push(formatSignature(await ctx.vault.sign(signer.key, signer.curve, message)));
  }
  return signatures;
}

export const signRawPayloadHandler: ActivityHandler<
  SignParams & { payload: string; signWith?: string; privateKeyId?: string }
> = {
  async execute(ctx, p) {
    const [signature] = await sign(ctx, (p.signWith ?? p.privateKeyId)!, [p.payload], p);
    return { ...signature! };
  },
};

export const signRawPayloadsHandler: ActivityHandler<
  SignParams & { signWith: string; payloads: string[] }
> = {
  async execute(ctx, p) {
    return { signatures: await sign(ctx, p.signWith, p.payloads, p) };
  },
};
