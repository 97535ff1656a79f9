/**
 * Registering a passkey: the attestation of AuthenticatorParams (V1, the webauthn-json
 * credential) or AuthenticatorParamsV2 (`{credentialId, clientDataJson, attestationObject,
 * transports}`), verified by `@simplewebauthn/server` in every format it verifies (`none`,
 * `packed`, `fido-u2f`, `apple`, `android-key`, `android-safetynet`, `tpm`). The registration
 * challenge is the client's own (`challenge`, base64url, as `@turnkey/sdk-browser` sends it):
 * clientDataJSON must carry the same. The origin must be allowed, the rpId hash must be the
 * origin's host or a registrable parent of it, and the key ES256, RS256 or EdDSA.
 * @module
 */
import {
  type AuthenticatorParams,
  type AuthenticatorTransport,
  KeyholdError,
} from '@keyhold/protocol';
import type { verifyRegistrationResponse } from '@simplewebauthn/server';
import { relyingPartyIdsOf, requireAllowedOrigin } from './webauthn-origins.js';

// Loaded on first use: a Keyhold that never sees a passkey does not load the library (and its
// X.509 stack) at start.
const webauthnLibrary = () => import('@simplewebauthn/server');
const webauthnHelpers = () => import('@simplewebauthn/server/helpers');

/** The COSE algorithms a passkey may use: ES256, RS256 (Windows Hello), EdDSA. */
export const PASSKEY_ALGORITHMS: readonly number[] = [-7, -257, -8];

/** What a verified registration says of the new passkey. Binary values are base64url. */
export interface VerifiedRegistration {
  credentialId: string;
  /** The COSE public key. */
  publicKey: string;
  algorithm: number;
  /** The AAGUID's 16 bytes. */
  aaguid: string;
  attestationType: string;
  signCount: number;
  transports: AuthenticatorTransport[];
}

/** The V1 and V2 attestation shapes, as one. */
interface Ceremony {
  credentialId: string;
  clientDataJson: string;
  attestationObject: string;
  transports: AuthenticatorTransport[];
}

const invalid = (reason: string) => new KeyholdError('INVALID_ATTESTATION', { reason });

const unpadded = (value: string) => value.replace(/=+$/, '');

function ceremonyOf(params: AuthenticatorParams): Ceremony {
  const a = params.attestation;
  if ('response' in a) {
    if (unpadded(a.id) !== unpadded(a.rawId)) throw invalid('id and rawId differ');
    return {
      credentialId: unpadded(a.id),
      clientDataJson: a.response.clientDataJson,
      attestationObject: a.response.attestationObject,
      transports: a.response.transports ?? [],
    };
  }
  return {
    credentialId: unpadded(a.credentialId),
    clientDataJson: a.clientDataJson,
    attestationObject: a.attestationObject,
    transports: a.transports ?? [],
  };
}

function originOf(clientDataJson: string): string {
  try {
    const data = JSON.parse(
      new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(clientDataJson, 'base64url')),
    ) as unknown;
    const origin = (data as { origin?: unknown } | null)?.origin;
    if (typeof origin === 'string') return origin;
  } catch {
    // refused below
  }
  throw invalid('clientDataJson is not base64url JSON with an origin');
}

/**
 * An `android-key` attestation is chain-checked by `@simplewebauthn/server` against the root it
 * carries, then its certificates' CRL distribution points are fetched, and only then is that
 * root compared with Google's: a forged chain would make Keyhold fetch URLs of the submitter's
 * choosing (inside the request's transaction). The root is compared first, here. (The other
 * formats check chains against configured roots before any CRL is fetched, or, with none
 * configured, fetch nothing.)
 * @throws KeyholdError INVALID_ATTESTATION
 */
async function refuseForeignAndroidKeyRoot(attestationObject: string): Promise<void> {
  const { convertCertBufferToPEM, decodeAttestationObject } = await webauthnHelpers();
  const { SettingsService } = await webauthnLibrary();
  let x5c: readonly Uint8Array[] | undefined;
  try {
    const decoded = decodeAttestationObject(
      new Uint8Array(Buffer.from(attestationObject, 'base64url')),
    );
    if (decoded.get('fmt') !== 'android-key') return;
    x5c = decoded.get('attStmt').get('x5c');
  } catch {
    return; // verifyRegistrationResponse refuses what does not decode
  }
  const root = x5c?.at(-1);
  if (!root) return;
  const google = SettingsService.getRootCertificates({ identifier: 'android-key' });
  if (!google.includes(convertCertBufferToPEM(new Uint8Array(root)))) {
    throw invalid('the android-key certificate chain does not end at a Google attestation root');
  }
}

/**
 * Verifies a passkey's registration.
 * @param allowedOrigins the organization's allowed origins (empty: any secure origin)
 * @throws KeyholdError INVALID_ATTESTATION
 */
export async function verifyAttestation(
  params: AuthenticatorParams,
  allowedOrigins: readonly string[],
): Promise<VerifiedRegistration> {
  const ceremony = ceremonyOf(params);
  const origin = originOf(ceremony.clientDataJson);
  requireAllowedOrigin(origin, allowedOrigins, 'INVALID_ATTESTATION');
  const rpIds = relyingPartyIdsOf(origin, allowedOrigins);
  if (rpIds.length === 0) throw invalid('the origin names no host a passkey can belong to');
  await refuseForeignAndroidKeyRoot(ceremony.attestationObject);
  const { verifyRegistrationResponse } = await webauthnLibrary();
  const { cose, decodeCredentialPublicKey } = await webauthnHelpers();
  const challenge = unpadded(params.challenge);
  let info: Awaited<ReturnType<typeof verifyRegistrationResponse>>['registrationInfo'];
  try {
    const result = await verifyRegistrationResponse({
      response: {
        id: ceremony.credentialId,
        rawId: ceremony.credentialId,
        type: 'public-key',
        response: {
          clientDataJSON: ceremony.clientDataJson,
          attestationObject: ceremony.attestationObject,
        },
        clientExtensionResults: {},
      },
      expectedChallenge: (c) => unpadded(c) === challenge,
      expectedOrigin: origin,
      expectedRPID: rpIds,
      expectedType: 'webauthn.create',
      requireUserVerification: false,
      supportedAlgorithmIDs: [...PASSKEY_ALGORITHMS],
    });
    info = result.registrationInfo;
  } catch (error) {
    throw invalid(error instanceof Error ? error.message : 'attestation does not verify');
  }
  if (!info) throw invalid('the attestation statement does not verify');
  if (info.credential.id !== ceremony.credentialId) {
    throw invalid('credentialId is not the id of the attested credential');
  }
  const algorithm = decodeCredentialPublicKey(info.credential.publicKey).get(cose.COSEKEYS.alg);
  return {
    credentialId: info.credential.id,
    publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
    algorithm: Number(algorithm),
    aaguid: Buffer.from(info.aaguid.replace(/-/g, ''), 'hex').toString('base64url'),
    attestationType: info.fmt,
    signCount: info.credential.counter,
    transports: [...new Set(ceremony.transports)],
  };
}
