/**
 * Offline verification of Keyhold's software proofs, with @noble only (never the server's own
 * code): an app proof (`generateAppProofs`, `list_app_proofs`) and a boot proof
 * (`get_boot_proof`, `get_latest_boot_proof`). What they prove is that the server holding the
 * signer key published as `signerPublicKey` (`/keyhold/v1/public_keys`) signed this result or
 * this statement — a software proof, not a hardware attestation: no enclave measured the code
 * that produced them.
 * @module
 */
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { base64 } from '@scure/base';

/** `v1AppProof` as list_app_proofs answers it. */
export interface AppProofLike {
  scheme: string;
  publicKey: string;
  proofPayload: string;
  signature: string;
}

/** `v1BootProof` as get_boot_proof answers it. */
export interface BootProofLike {
  ephemeralPublicKeyHex: string;
  awsAttestationDocB64: string;
  qosManifestB64: string;
  qosManifestEnvelopeB64: string;
  deploymentLabel: string;
}

/**
 * What a verified app proof says: the activity it is about and its result (`{<resultKey>: …}`).
 * @example
 * const claims: AppProofClaims = verifyKeyholdAppProof(proof, { signerPublicKey });
 */
export interface AppProofClaims {
  type: 'KEYHOLD_SOFTWARE_APP_PROOF';
  label: string;
  timestampMs: string;
  organizationId: string;
  activityId: string;
  activityType: string;
  fingerprint: string;
  result: Record<string, unknown>;
}

/**
 * What a verified boot proof states: the software, its version and its published keys.
 * @example
 * const statement: BootStatementClaims = verifyKeyholdBootProof(bootProof, { signerPublicKey });
 */
export interface BootStatementClaims {
  type: 'KEYHOLD_SOFTWARE_BOOT_STATEMENT';
  label: string;
  software: string;
  version: string;
  publicKeys: Record<string, string>;
}

/** Why a proof did not verify. */
export class ProofVerificationError extends Error {
  constructor(reason: string) {
    super(`proof does not verify: ${reason}`);
    this.name = 'ProofVerificationError';
  }
}

const fail = (reason: string): never => {
  throw new ProofVerificationError(reason);
};

/** True when the r‖s hex signs sha256(`text`) for the uncompressed key `publicKeyHex`. */
function signs(signatureHex: string, text: string, publicKeyHex: string): boolean {
  try {
    return p256.verify(
      hexToBytes(signatureHex),
      sha256(utf8ToBytes(text)),
      hexToBytes(publicKeyHex),
      {
        prehash: false,
        lowS: false,
        format: 'compact',
      },
    );
  } catch {
    return false;
  }
}

const normalized = (hex: string) => hex.replace(/^0x/, '').toLowerCase();

/**
 * Verifies a Keyhold app proof offline: its scheme and key (the signer key, twice), its
 * signature over sha256 of `proofPayload`, and, when given, that it is about `activityId`
 * and holds `result`. Answers the payload's claims.
 * @throws ProofVerificationError naming what does not hold
 * @example
 * const { appProofs } = await client.listAppProofs({ organizationId, activityId });
 * const claims = verifyKeyholdAppProof(appProofs[0], { signerPublicKey, activityId });
 * claims.result; // { createWalletResult: { walletId, addresses } }
 */
export function verifyKeyholdAppProof(
  proof: AppProofLike,
  expected: { signerPublicKey: string; activityId?: string; result?: Record<string, unknown> },
): AppProofClaims {
  const signer = normalized(expected.signerPublicKey);
  if (proof.scheme !== 'SIGNATURE_SCHEME_EPHEMERAL_KEY_P256')
    fail(`unknown scheme ${proof.scheme}`);
  if (normalized(proof.publicKey) !== `${signer}${signer}`) {
    fail('the proof is not signed by this signer key');
  }
  if (!signs(normalized(proof.signature), proof.proofPayload, signer)) {
    fail('the signature does not verify over the proof payload');
  }
  const claims = JSON.parse(proof.proofPayload) as AppProofClaims;
  if (claims.type !== 'KEYHOLD_SOFTWARE_APP_PROOF') fail(`unknown payload type ${claims.type}`);
  if (expected.activityId !== undefined && claims.activityId !== expected.activityId) {
    fail(`the proof is about activity ${claims.activityId}, not ${expected.activityId}`);
  }
  if (
    expected.result !== undefined &&
    JSON.stringify(claims.result) !== JSON.stringify(expected.result)
  ) {
    fail("the proof's result is not the activity's result");
  }
  return claims;
}

/**
 * Verifies a Keyhold boot proof offline: a software statement (no AWS attestation document)
 * signed by the signer key. Answers the statement: the software, its version, its keys.
 * @throws ProofVerificationError naming what does not hold
 * @example
 * const { bootProof } = await client.getLatestBootProof({ organizationId, appName: 'keyhold' });
 * verifyKeyholdBootProof(bootProof, { signerPublicKey }).version; // '0.1.0'
 */
export function verifyKeyholdBootProof(
  proof: BootProofLike,
  expected: { signerPublicKey: string },
): BootStatementClaims {
  const signer = normalized(expected.signerPublicKey);
  if (proof.awsAttestationDocB64 !== '')
    fail('a Keyhold boot proof carries no attestation document');
  if (normalized(proof.ephemeralPublicKeyHex) !== `${signer}${signer}`) {
    fail('the proof is not of this signer key');
  }
  const decode = (b64: string) => new TextDecoder().decode(base64.decode(b64));
  const manifest = decode(proof.qosManifestB64);
  const envelope = JSON.parse(decode(proof.qosManifestEnvelopeB64)) as {
    publicKey: string;
    signature: string;
  };
  if (normalized(envelope.publicKey) !== signer) fail('the statement is signed by another key');
  if (!signs(normalized(envelope.signature), manifest, signer)) {
    fail('the signature does not verify over the statement');
  }
  const statement = JSON.parse(manifest) as BootStatementClaims;
  if (statement.type !== 'KEYHOLD_SOFTWARE_BOOT_STATEMENT')
    fail(`unknown statement ${statement.type}`);
  return statement;
}
