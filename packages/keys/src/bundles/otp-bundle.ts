/**
 * The OTP target bundle and the encrypted OTP bundle (wire-compat §3.5). INIT_OTP (V2, V3)
 * answers `otpEncryptionTargetBundle` = `{version, data: hex({"targetPublic"}), dataSignature,
 * enclaveQuorumPublic}` signed by the TLS-fetcher key; `@turnkey/crypto`'s
 * `encryptOtpCodeToBundle` checks it against that key and HPKE-encrypts
 * `{"otp_code","public_key"}` to `targetPublic`, which VERIFY_OTP V2 opens here. The target key
 * of one OTP is derived from the TLS-fetcher key and the OTP's id, so no secret is stored
 * between the two activities.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { openImportBundle } from './import-bundle.js';
import { type BundleSigner, signEnvelope } from './signed-envelope.js';

/** The target key of one OTP: HKDF-SHA256 of the TLS-fetcher key, labelled with the OTP id. */
function otpTargetKey(signer: BundleSigner, otpId: string): Uint8Array {
  const info = utf8ToBytes(`keyhold/otp-target/v1:${otpId}`);
  return p256.utils.randomSecretKey(
    hkdf(sha256, signer.privateKey, utf8ToBytes('keyhold'), info, 48),
  );
}

/**
 * The `otpEncryptionTargetBundle` of an OTP, signed by `signer` (the TLS-fetcher key).
 * @example
 * const bundle = createOtpTargetBundle({ otpId, signer: tlsFetcher });
 * await encryptOtpCodeToBundle(code, bundle, publicKey, tlsFetcherSignPublicKey); // @turnkey/crypto
 */
export function createOtpTargetBundle(input: { otpId: string; signer: BundleSigner }): string {
  const target = otpTargetKey(input.signer, input.otpId);
  return signEnvelope({ targetPublic: bytesToHex(p256.getPublicKey(target, false)) }, input.signer);
}

/** What an encrypted OTP bundle holds. */
export interface OtpBundleContent {
  readonly otpCode: string;
  /** The key the verification token binds (compressed P-256 hex, as the client sent it). */
  readonly publicKey: string;
}

/**
 * Opens VERIFY_OTP V2's `encryptedOtpBundle` for the OTP `otpId`. A bundle that is not the
 * JSON `{encappedPublic, ciphertext}`, does not decrypt with this OTP's target, or holds no
 * `otp_code` and `public_key` strings is INVALID_OTP_CODE: to the caller it is a wrong code.
 * @example
 * const { otpCode, publicKey } = await openOtpBundle({ encryptedOtpBundle, otpId, signer: tlsFetcher });
 */
export async function openOtpBundle(input: {
  encryptedOtpBundle: string;
  otpId: string;
  signer: BundleSigner;
}): Promise<OtpBundleContent> {
  const targetPrivateKey = otpTargetKey(input.signer, input.otpId);
  let parsed: unknown;
  try {
    const plaintext = await openImportBundle({
      encryptedBundle: input.encryptedOtpBundle,
      targetPrivateKey,
    });
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(plaintext));
  } catch {
    throw new KeyholdError('INVALID_OTP_CODE', {
      reason: 'the encrypted OTP bundle does not open',
    });
  } finally {
    targetPrivateKey.fill(0);
  }
  const content = parsed as { otp_code?: unknown; public_key?: unknown } | null;
  if (typeof content?.otp_code !== 'string' || typeof content.public_key !== 'string') {
    throw new KeyholdError('INVALID_OTP_CODE', {
      reason: 'the OTP bundle holds no otp_code and public_key',
    });
  }
  return { otpCode: content.otp_code, publicKey: content.public_key };
}
