/// <reference lib="dom" />
/**
 * The export frame (`/frames/export`): makes an embedded P-256 key in memory, gives its public
 * key to the parent (`PUBLIC_KEY_READY`), and on `INJECT_WALLET_EXPORT_BUNDLE` or
 * `INJECT_KEY_EXPORT_BUNDLE` checks the bundle against the pinned signer key and the
 * organization, opens it with the embedded key and shows the mnemonic or private key here —
 * the secret never goes back to the parent. The key is used once: after a bundle is opened it
 * is dropped, as Turnkey's frame does.
 * @module
 */
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { hpkeOpen } from './bundle-hpke.js';
import type { FrameReply, FrameRequest } from './frame-channel.js';
import { readFrameConfig } from './frame-config.js';
import { startFrame } from './frame-main.js';
import { secretElement, showStatus } from './frame-view.js';
import { encodePrivateKey, keyFormatOf } from './key-formats.js';
import { hexField, openSignedBundle } from './signed-bundle.js';

const config = readFrameConfig();
let embeddedKey: Uint8Array | undefined = p256.utils.randomSecretKey();

const publicKeyOf = (key: Uint8Array | undefined): string =>
  key ? bytesToHex(p256.getPublicKey(key, false)) : '';

/** Checks and opens an export bundle with the embedded key, then drops the key. */
async function openExportBundle(request: FrameRequest): Promise<Uint8Array> {
  const key = embeddedKey;
  if (!key) throw new Error('no embedded key: send INIT_EMBEDDED_KEY first');
  const signed = openSignedBundle(request.value, config.signerPublicKey, {
    organizationId: request.organizationId,
  });
  const plaintext = await hpkeOpen(
    hexField(signed.encappedPublic, 'encappedPublic'),
    hexField(signed.ciphertext, 'ciphertext'),
    key,
  ).catch(() => {
    throw new Error('the bundle was not encrypted to this frame’s key');
  });
  embeddedKey = undefined;
  return plaintext;
}

function show(secret: string, what: string): void {
  secretElement().textContent = secret;
  showStatus(what);
}

async function answer(request: FrameRequest): Promise<FrameReply> {
  switch (request.type) {
    case 'INJECT_WALLET_EXPORT_BUNDLE': {
      const mnemonic = new TextDecoder('utf-8', { fatal: true }).decode(
        await openExportBundle(request),
      );
      show(mnemonic, 'Your recovery phrase');
      return { type: 'BUNDLE_INJECTED', value: true };
    }
    case 'INJECT_KEY_EXPORT_BUNDLE': {
      const format = keyFormatOf(request.keyFormat);
      show(encodePrivateKey(await openExportBundle(request), format), 'Your private key');
      return { type: 'BUNDLE_INJECTED', value: true };
    }
    case 'GET_EMBEDDED_PUBLIC_KEY':
      return { type: 'EMBEDDED_PUBLIC_KEY', value: publicKeyOf(embeddedKey) || null };
    case 'INIT_EMBEDDED_KEY':
      embeddedKey ??= p256.utils.randomSecretKey();
      return { type: 'EMBEDDED_PUBLIC_KEY', value: publicKeyOf(embeddedKey) };
    case 'RESET_EMBEDDED_KEY':
      embeddedKey = undefined;
      return { type: 'EMBEDDED_KEY_RESET', value: true };
    default:
      throw new Error(`unsupported message type: ${request.type}`);
  }
}

startFrame({
  allowedOrigins: config.allowedOrigins,
  readyValue: () => publicKeyOf(embeddedKey),
  answer,
  waiting: 'Waiting for the export bundle',
});
