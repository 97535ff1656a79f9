/**
 * SIGN_TRANSACTION (V1 by `privateKeyId`, V2 by `signWith`): result `{signedTransaction}`, hex
 * without `0x` (wire-compat §7.3).
 *
 * What is wrong with the transaction itself — an unsupported type, bytes that do not decode, an
 * EIP-1559 payload that already carries r, s, v — is found in `precheck`, without the key: the
 * request is refused (HTTP 400) and nothing is stored. What depends on the key — not found,
 * disabled, the wrong curve for the chain, not a signer of the Solana transaction, owning no
 * input of the PSBT — is found in `execute` and makes the activity FAILED.
 *
 * Signing goes through `ctx.vault.sign`, so keys that never leave an HSM sign transactions the
 * same way. Taproot key-path inputs need BIP340 signatures with a tweaked key, which `sign`
 * (ECDSA) cannot make; a vault that also implements `signTaproot` (see `canSignTaproot`) gets
 * them, any other refuses such an input (TRANSACTION_INPUT_NOT_SIGNABLE).
 * @module
 */
import { canSignTaproot, parseTransaction, signTransaction } from '@keyhold/keys';
import { hexToBytes } from '@noble/hashes/utils.js';
import type { HandlerOf } from './activity-handler.js';
import { resolveSigner } from './resolve-signer.js';

export const signTransactionHandler: HandlerOf<'SIGN_TRANSACTION'> = {
  precheck(p) {
    parseTransaction(p.type, p.unsignedTransaction);
  },

  async execute(ctx, p) {
    // V2 names the key by `signWith`, V1 by `privateKeyId`.
    const signWith = 'signWith' in p ? p.signWith : p.privateKeyId;
    // resolveSigner refuses what cannot sign (not found, disabled).
    const signer = await resolveSigner(ctx.scope, signWith);
    const { vault } = ctx;
    const { signedTransaction } = await signTransaction({
      type: p.type,
      unsignedTransaction: p.unsignedTransaction,
      parsed: ctx.scope.transaction(p.type, p.unsignedTransaction),
      curve: signer.curve,
      publicKey: hexToBytes(signer.publicKey),
      sign: (message) => vault.sign(signer.key, signer.curve, message),
      ...(canSignTaproot(vault)
        ? {
            signSchnorr: (digest: Uint8Array, merkleRoot: Uint8Array) =>
              vault.signTaproot(signer.key, digest, merkleRoot),
          }
        : {}),
    });
    return { signedTransaction };
  },
};
