/// <reference lib="dom" />
/**
 * What the server wrote into the page for its frame: the signer key that bundles must be
 * signed by and the parent origins the frame talks to. It is read from the page the server
 * sent, never from a message, so a parent page cannot swap the key it pins.
 * @module
 */

/** The JSON of `<script type="application/json" id="keyhold-frame-config">`. */
export interface FrameConfig {
  /** Keyhold's `signerPublicKey`: uncompressed P-256, lower-case hex. */
  readonly signerPublicKey: string;
  /** Origins allowed to open the frame's message channel (see `isAllowedFrameOrigin`). */
  readonly allowedOrigins: readonly string[];
}

/** The element id of the configuration the server embeds. */
export const FRAME_CONFIG_ELEMENT_ID = 'keyhold-frame-config';

/** Reads the configuration of this page; throws when the page carries none. */
export function readFrameConfig(): FrameConfig {
  const text = document.getElementById(FRAME_CONFIG_ELEMENT_ID)?.textContent;
  if (!text) throw new Error('frame configuration missing');
  const config = JSON.parse(text) as FrameConfig;
  if (!/^04[0-9a-f]{128}$/.test(config.signerPublicKey) || !Array.isArray(config.allowedOrigins)) {
    throw new Error('frame configuration invalid');
  }
  return config;
}
