/**
 * A software WebAuthn authenticator: what a browser and a platform authenticator together
 * produce, built from a `node:crypto` key so tests and the conformance suite can register a
 * passkey (an AuthenticatorParamsV2 attestation, format `none` or `packed` self-attestation)
 * and stamp requests with it exactly as `@turnkey/webauthn-stamper` does: the challenge is the
 * ASCII of hex(sha256(body)), the header plain JSON `{authenticatorData, clientDataJson,
 * credentialId, signature}` (wire-compat §1.2). ES256, RS256 and EdDSA keys. The CBOR of the
 * attestation object and the COSE key is `@simplewebauthn/server`'s encoder.
 * @module
 */
import {
  createHash,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign as signWithKey,
} from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/** The key types a passkey may have: ES256 (P-256), RS256 (RSA 2048), EdDSA (Ed25519). */
export type PasskeyAlgorithm = 'ES256' | 'RS256' | 'EdDSA';

/** How a software passkey is made. */
export interface SoftwarePasskeyOptions {
  /** Default ES256. */
  algorithm?: PasskeyAlgorithm;
  /** The relying party id its rpIdHash names, e.g. `localhost`. */
  rpId: string;
  /** The page origin its clientDataJSON names, e.g. `http://localhost:3000`. */
  origin: string;
  /** Whether it keeps a signature counter (platform passkeys that sync do not). Default true. */
  counting?: boolean;
  /** The registration's attestation format. Default `none`. */
  attestation?: 'none' | 'packed';
}

/** An AuthenticatorParamsV2, as `@turnkey/sdk-browser` sends it to register a passkey. */
export interface PasskeyRegistration {
  authenticatorName: string;
  challenge: string;
  attestation: {
    credentialId: string;
    clientDataJson: string;
    attestationObject: string;
    transports: 'AUTHENTICATOR_TRANSPORT_INTERNAL'[];
  };
}

/** The members of an `X-Stamp-Webauthn` header, base64url. */
export interface WebauthnAssertion {
  authenticatorData: string;
  clientDataJson: string;
  credentialId: string;
  signature: string;
}

/** The header name `@turnkey/webauthn-stamper` sends. */
export const WEBAUTHN_STAMP_HEADER = 'X-Stamp-Webauthn';

const COSE_ALG: Record<PasskeyAlgorithm, number> = { ES256: -7, RS256: -257, EdDSA: -8 };
const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;
/** An AAGUID that names no real model. */
const AAGUID = Buffer.from('6b6579686f6c64736f66747761726521', 'hex');

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest();

/** The challenge `@turnkey/webauthn-stamper` passes for a body: ASCII of hex(sha256(body)). */
export function stampChallengeOf(body: string | Uint8Array): Uint8Array {
  return new TextEncoder().encode(sha256(body).toString('hex'));
}

/** A WebAuthn credential held in memory, with its own signature counter. */
export class SoftwarePasskey {
  readonly algorithm: PasskeyAlgorithm;
  readonly rpId: string;
  readonly origin: string;
  /** The credential id, base64url. */
  readonly credentialId: string;
  private readonly rawId: Buffer;
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private readonly counting: boolean;
  private readonly format: 'none' | 'packed';
  private counter = 0;

  constructor(options: SoftwarePasskeyOptions) {
    this.algorithm = options.algorithm ?? 'ES256';
    this.rpId = options.rpId;
    this.origin = options.origin;
    this.counting = options.counting ?? true;
    this.format = options.attestation ?? 'none';
    this.rawId = randomBytes(16);
    this.credentialId = b64url(this.rawId);
    const pair =
      this.algorithm === 'ES256'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : this.algorithm === 'RS256'
          ? generateKeyPairSync('rsa', { modulusLength: 2048 })
          : generateKeyPairSync('ed25519');
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  /** The credential's public key as COSE (CBOR map with integer labels). */
  coseKey(): Uint8Array {
    const jwk = this.publicKey.export({ format: 'jwk' });
    const raw = (v: string | undefined) => new Uint8Array(Buffer.from(v ?? '', 'base64url'));
    const key = new Map<number, number | Uint8Array>([[3, COSE_ALG[this.algorithm]]]);
    if (this.algorithm === 'ES256') {
      key.set(1, 2).set(-1, 1).set(-2, raw(jwk.x)).set(-3, raw(jwk.y));
    } else if (this.algorithm === 'RS256') {
      key.set(1, 3).set(-1, raw(jwk.n)).set(-2, raw(jwk.e));
    } else {
      key.set(1, 1).set(-1, 6).set(-2, raw(jwk.x));
    }
    return isoCBOR.encode(key);
  }

  /** Signs as the credential's algorithm does (ECDSA DER, PKCS#1 v1.5, Ed25519). */
  private signature(data: Uint8Array): Buffer {
    return signWithKey(this.algorithm === 'EdDSA' ? null : 'sha256', data, this.privateKey);
  }

  private nextCounter(): number {
    if (this.counting) this.counter += 1;
    return this.counter;
  }

  /** authenticatorData: rpIdHash, flags, counter, and for a registration the credential. */
  authenticatorData(options: { rpId?: string; flags?: number; attested?: boolean } = {}): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.nextCounter());
    const parts: Uint8Array[] = [
      sha256(options.rpId ?? this.rpId),
      Uint8Array.of((options.flags ?? FLAG_UP | FLAG_UV) | (options.attested ? FLAG_AT : 0)),
      counter,
    ];
    if (options.attested) {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(this.rawId.length);
      parts.push(AAGUID, length, this.rawId, this.coseKey());
    }
    return Buffer.concat(parts);
  }

  /**
   * A registration as `@turnkey/sdk-browser` sends it (AuthenticatorParamsV2), over a random
   * challenge unless one is given.
   */
  register(
    authenticatorName = 'software passkey',
    challenge = b64url(randomBytes(32)),
  ): PasskeyRegistration {
    const clientDataJson = Buffer.from(
      JSON.stringify({
        type: 'webauthn.create',
        challenge,
        origin: this.origin,
        crossOrigin: false,
      }),
    );
    const authData = this.authenticatorData({ attested: true });
    const attStmt =
      this.format === 'packed'
        ? new Map<string, number | Uint8Array>([
            ['alg', COSE_ALG[this.algorithm]],
            ['sig', this.signature(Buffer.concat([authData, sha256(clientDataJson)]))],
          ])
        : new Map();
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', this.format],
        ['attStmt', attStmt],
        ['authData', new Uint8Array(authData)],
      ]) as never,
    );
    return {
      authenticatorName,
      challenge,
      attestation: {
        credentialId: this.credentialId,
        clientDataJson: b64url(clientDataJson),
        attestationObject: b64url(attestationObject),
        transports: ['AUTHENTICATOR_TRANSPORT_INTERNAL'],
      },
    };
  }

  /**
   * An assertion over `challenge` (raw bytes), as `navigator.credentials.get` returns it.
   * `overrides` make wrong ones for tests: another origin, rpId, type or flags.
   */
  assert(
    challenge: Uint8Array,
    overrides: { origin?: string; rpId?: string; type?: string; flags?: number } = {},
  ): WebauthnAssertion {
    const clientDataJson = Buffer.from(
      JSON.stringify({
        type: overrides.type ?? 'webauthn.get',
        challenge: b64url(challenge),
        origin: overrides.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
    const authData = this.authenticatorData({
      ...(overrides.rpId !== undefined ? { rpId: overrides.rpId } : {}),
      ...(overrides.flags !== undefined ? { flags: overrides.flags } : {}),
    });
    return {
      authenticatorData: b64url(authData),
      clientDataJson: b64url(clientDataJson),
      credentialId: this.credentialId,
      signature: b64url(this.signature(Buffer.concat([authData, sha256(clientDataJson)]))),
    };
  }

  /**
   * Stamps `body` as `@turnkey/webauthn-stamper` does: the same interface, so `@turnkey/http`'s
   * `TurnkeyClient` and `@turnkey/sdk-server` take it as their stamper.
   */
  async stamp(body: string): Promise<{ stampHeaderName: string; stampHeaderValue: string }> {
    return {
      stampHeaderName: WEBAUTHN_STAMP_HEADER,
      stampHeaderValue: JSON.stringify(this.assert(stampChallengeOf(body))),
    };
  }
}
