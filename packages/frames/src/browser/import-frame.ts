/// <reference lib="dom" />
/**
 * The import frame (`/frames/import`): on `INJECT_IMPORT_BUNDLE` checks the import bundle
 * against the pinned signer key, the organization and the user, and keeps its target key; the
 * user types a mnemonic or private key into the frame's text area; on
 * `EXTRACT_WALLET_ENCRYPTED_BUNDLE` or `EXTRACT_KEY_ENCRYPTED_BUNDLE` the frame HPKE-seals it
 * to that target and answers `{"encappedPublic","ciphertext"}` (hex), the `encryptedBundle`
 * IMPORT_WALLET and IMPORT_PRIVATE_KEY take. The parent only ever sees the ciphertext.
 * @module
 */
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { hpkeSeal } from './bundle-hpke.js';
import type { FrameReply, FrameRequest } from './frame-channel.js';
import { readFrameConfig } from './frame-config.js';
import { startFrame } from './frame-main.js';
import { secretElement, showStatus } from './frame-view.js';
import { decodePrivateKey, keyFormatOf } from './key-formats.js';
import { hexField, openSignedBundle } from './signed-bundle.js';

const config = readFrameConfig();
/** The import target of the injected bundle (uncompressed P-256). */
let target: Uint8Array | undefined;

function typed(): string {
  const text = (secretElement() as HTMLTextAreaElement).value.trim();
  if (text === '') throw new Error('nothing was entered');
  return text;
}

async function sealed(plaintext: Uint8Array): Promise<string> {
  if (!target) throw new Error('no import bundle: send INJECT_IMPORT_BUNDLE first');
  const { encappedPublic, ciphertext } = await hpkeSeal(plaintext, target);
  (secretElement() as HTMLTextAreaElement).value = '';
  showStatus('Encrypted for import');
  return JSON.stringify({
    encappedPublic: bytesToHex(encappedPublic),
    ciphertext: bytesToHex(ciphertext),
  });
}

async function answer(request: FrameRequest): Promise<FrameReply> {
  switch (request.type) {
    case 'INJECT_IMPORT_BUNDLE': {
      const signed = openSignedBundle(request.value, config.signerPublicKey, {
        organizationId: request.organizationId,
        userId: request.userId,
      });
      const targetPublic = hexField(signed.targetPublic, 'targetPublic');
      if (targetPublic.length !== 65 || targetPublic[0] !== 4) {
        throw new Error('"targetPublic" is not an uncompressed P-256 key');
      }
      target = targetPublic;
      showStatus('Enter your secret');
      return { type: 'BUNDLE_INJECTED', value: true };
    }
    case 'EXTRACT_WALLET_ENCRYPTED_BUNDLE': {
      const mnemonic = typed().split(/\s+/).join(' ');
      if (!validateMnemonic(mnemonic, wordlist)) throw new Error('not a valid recovery phrase');
      return { type: 'ENCRYPTED_BUNDLE_EXTRACTED', value: await sealed(utf8ToBytes(mnemonic)) };
    }
    case 'EXTRACT_KEY_ENCRYPTED_BUNDLE': {
      const key = decodePrivateKey(typed(), keyFormatOf(request.keyFormat));
      return { type: 'ENCRYPTED_BUNDLE_EXTRACTED', value: await sealed(key) };
    }
    default:
      throw new Error(`unsupported message type: ${request.type}`);
  }
}

startFrame({
  allowedOrigins: config.allowedOrigins,
  // iframe-stamper's init() waits for a key; an import frame has none to give.
  readyValue: () => '',
  answer,
  waiting: 'Waiting for the import bundle',
});
