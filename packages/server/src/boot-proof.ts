/**
 * The software boot proof a Keyhold server states at start (get_boot_proof,
 * get_latest_boot_proof): its version and published keys, signed by its signer key. A
 * self-hosted server runs in no enclave: the proof is labelled as a software statement and
 * carries no hardware attestation.
 * @module
 */
import { readFileSync } from 'node:fs';
import { createSoftwareBootProof } from '@keyhold/keys';
import { type BootProof, timestampOf } from '@keyhold/protocol';
import type { SignerKey } from './signer-key.js';

/**
 * The version of `@keyhold/server`, as its package.json says it.
 * @example
 * serverVersion(); // '0.1.0'
 */
export function serverVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version?: string;
  };
  return pkg.version ?? '0.0.0';
}

/**
 * The boot proof of a server with this signer key and these published keys, made at `nowMs`.
 * @example
 * const proof = softwareBootProof(signerKey, { signerPublicKey: signerKey.publicKey }, Date.now());
 */
export function softwareBootProof(
  signer: SignerKey,
  publicKeys: Readonly<Record<string, string>>,
  nowMs: number,
): BootProof {
  return createSoftwareBootProof(
    signer,
    { software: 'keyhold', version: serverVersion(), publicKeys },
    timestampOf(nowMs),
  );
}
