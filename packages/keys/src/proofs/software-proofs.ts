/**
 * Keyhold's proofs, honestly: a self-hosted server runs in no enclave, so what it can give is a
 * software proof — a signature by its signer key (derived from the master key, published as
 * `signerPublicKey`) — never a hardware attestation.
 *
 * - An app proof (`generateAppProofs` on an activity) has the shape of `v1AppProof`: the
 *   scheme `SIGNATURE_SCHEME_EPHEMERAL_KEY_P256`, `publicKey` the signer's uncompressed key
 *   twice (the 130 bytes `@turnkey/crypto`'s `verifyAppProofSignature` reads as an encryption
 *   key then a signing key), `proofPayload` a JSON text naming the activity and holding its
 *   result, `signature` the 64-byte r‖s (hex) over sha256 of the payload.
 * - A boot proof (`get_boot_proof`, `get_latest_boot_proof`) has the shape of `v1BootProof`
 *   with no AWS attestation document: its "manifest" is a JSON statement of the server's
 *   version and published keys, and its "manifest envelope" the signer's signature over it.
 * @module
 */
import type { AppProof, BootProof, Timestamp } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { base64 } from '@scure/base';
import type { BundleSigner } from '../bundles/index.js';

/** What every Keyhold proof says it is. */
export const SOFTWARE_PROOF_LABEL =
  'software proof: signed by the Keyhold signer key of a self-hosted server; not a hardware attestation';

/** `deploymentLabel` of a Keyhold boot proof. */
export const SOFTWARE_BOOT_PROOF_LABEL = 'keyhold-self-hosted-software-statement';

/**
 * The activity an app proof is about, and its result.
 * @example
 * const subject: AppProofSubject = { organizationId, activityId, activityType: 'ACTIVITY_TYPE_CREATE_WALLET', fingerprint, result: { createWalletResult: { walletId, addresses } } };
 */
export interface AppProofSubject {
  organizationId: string;
  activityId: string;
  activityType: string;
  fingerprint: string;
  /** The activity's `result` as the wire shows it (`{ <resultKey>: … }`). */
  result: Record<string, unknown>;
}

/** The signer's public key as app and boot proofs carry it (uncompressed, twice). */
const proofPublicKey = (signer: BundleSigner) => {
  const key = bytesToHex(p256.getPublicKey(signer.privateKey, false));
  return `${key}${key}`;
};

const sign = (signer: BundleSigner, text: string) =>
  bytesToHex(p256.sign(sha256(utf8ToBytes(text)), signer.privateKey, { prehash: false }));

/**
 * A software app proof of `subject`, made at `timestampMs`.
 * @example
 * const proof = createSoftwareAppProof(signer, subject, Date.now());
 * JSON.parse(proof.proofPayload).activityId === subject.activityId; // true
 */
export function createSoftwareAppProof(
  signer: BundleSigner,
  subject: AppProofSubject,
  timestampMs: number,
): AppProof {
  const proofPayload = JSON.stringify({
    type: 'KEYHOLD_SOFTWARE_APP_PROOF',
    label: SOFTWARE_PROOF_LABEL,
    timestampMs: String(timestampMs),
    organizationId: subject.organizationId,
    activityId: subject.activityId,
    activityType: subject.activityType,
    fingerprint: subject.fingerprint,
    result: subject.result,
  });
  return {
    scheme: 'SIGNATURE_SCHEME_EPHEMERAL_KEY_P256',
    publicKey: proofPublicKey(signer),
    proofPayload,
    signature: sign(signer, proofPayload),
  };
}

/**
 * What a self-hosted server states at start: its software and version, and the public keys it
 * publishes (`/keyhold/v1/public_keys`).
 * @example
 * const statement: BootStatement = { software: 'keyhold', version: '0.1.0', publicKeys: { signerPublicKey: '04…' } };
 */
export interface BootStatement {
  software: string;
  version: string;
  publicKeys: Readonly<Record<string, string>>;
}

const toBase64 = (text: string) => base64.encode(utf8ToBytes(text));

/**
 * The software boot proof of a self-hosted server: its statement, signed by the signer key.
 * @example
 * const proof = createSoftwareBootProof(signer, { software: 'keyhold', version: '0.1.0', publicKeys }, timestampOf(Date.now()));
 * proof.awsAttestationDocB64; // '' — there is no hardware attestation
 */
export function createSoftwareBootProof(
  signer: BundleSigner,
  statement: BootStatement,
  createdAt: Timestamp,
): BootProof {
  const manifest = JSON.stringify({
    type: 'KEYHOLD_SOFTWARE_BOOT_STATEMENT',
    label: SOFTWARE_PROOF_LABEL,
    software: statement.software,
    version: statement.version,
    publicKeys: statement.publicKeys,
    createdAt,
  });
  const envelope = JSON.stringify({
    scheme: 'P256_SHA256_R_S_HEX',
    publicKey: bytesToHex(p256.getPublicKey(signer.privateKey, false)),
    signature: sign(signer, manifest),
  });
  return {
    ephemeralPublicKeyHex: proofPublicKey(signer),
    awsAttestationDocB64: '',
    qosManifestB64: toBase64(manifest),
    qosManifestEnvelopeB64: toBase64(envelope),
    deploymentLabel: SOFTWARE_BOOT_PROOF_LABEL,
    enclaveApp: statement.software,
    owner: 'self-hosted',
    createdAt,
    qosManifestVersion: statement.version,
  };
}
