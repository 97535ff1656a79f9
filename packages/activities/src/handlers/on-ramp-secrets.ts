/**
 * A fiat on-ramp credential's secrets, in and out: each arrives as an `encryptOnRampSecret`
 * envelope sealed to the on-ramp encryption key, is opened once and sealed again for storage
 * (AES-256-GCM under a key derived from that key, bound to its organization, credential and
 * field), and is opened from storage only for INIT_FIAT_ON_RAMP's call to the provider adapter.
 * @module
 */
import { type BundleSigner, openOnRampSecret, openSealedSecret, sealSecret } from '@keyhold/keys';
import { KeyholdError } from '@keyhold/protocol';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import type { OnRampCredentialSecrets } from '../ports/on-ramp-provider.js';
import type { FiatOnRampCredentialRecord } from '../records.js';

/** The two secret fields of a credential, as the intent names them. */
export type OnRampSecretField = 'encryptedSecretApiKey' | 'encryptedPrivateApiKey';

type RecordIds = Pick<FiatOnRampCredentialRecord, 'organizationId' | 'fiatOnrampCredentialId'>;

/** The AES-256-GCM key on-ramp secrets are sealed under, derived from the encryption key. */
function sealingKey(encryptionKey: BundleSigner): Uint8Array {
  return hkdf(
    sha256,
    encryptionKey.privateKey,
    utf8ToBytes('keyhold'),
    utf8ToBytes('keyhold/on-ramp-secret/aes-256-gcm/v1'),
    32,
  );
}

/** What a sealed secret is bound to: its organization, credential and field. */
const sealedFor = (record: RecordIds, field: OnRampSecretField) =>
  `fiat-on-ramp-credential/${record.organizationId}/${record.fiatOnrampCredentialId}/${field}`;

/**
 * The secret of `field` in the request, opened with the on-ramp encryption key, then sealed for
 * `record`. A secret that does not open, is empty or is not UTF-8 text is refused with
 * INVALID_ENCRYPTED_ON_RAMP_SECRET.
 */
export async function sealOnRampSecret(
  encryptionKey: BundleSigner,
  envelope: string,
  field: OnRampSecretField,
  record: RecordIds,
): Promise<string> {
  const invalid = (_field: string, reason: string) =>
    new KeyholdError('INVALID_ENCRYPTED_ON_RAMP_SECRET', { field, reason });
  const plaintext = await openOnRampSecret({
    envelope,
    privateKey: encryptionKey.privateKey,
    field,
    toError: invalid,
  });
  const key = sealingKey(encryptionKey);
  try {
    if (plaintext.length === 0) throw invalid(field, 'the secret is empty');
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(plaintext);
    } catch {
      throw invalid(field, 'the secret is not UTF-8 text');
    }
    return sealSecret({ key, plaintext, aad: sealedFor(record, field) });
  } finally {
    plaintext.fill(0);
    key.fill(0);
  }
}

/** The credential with its secrets opened, for one call to the provider adapter. */
export function openOnRampCredential(
  encryptionKey: BundleSigner,
  record: FiatOnRampCredentialRecord,
): OnRampCredentialSecrets {
  const key = sealingKey(encryptionKey);
  const open = (sealed: string, field: OnRampSecretField) => {
    const bytes = openSealedSecret({ key, sealed, aad: sealedFor(record, field) });
    try {
      return new TextDecoder().decode(bytes);
    } finally {
      bytes.fill(0);
    }
  };
  try {
    return {
      publishableApiKey: record.publishableApiKey,
      secretApiKey: open(record.sealedSecretApiKey, 'encryptedSecretApiKey'),
      ...(record.projectId !== undefined ? { projectId: record.projectId } : {}),
      ...(record.sealedPrivateApiKey !== undefined
        ? { privateApiKey: open(record.sealedPrivateApiKey, 'encryptedPrivateApiKey') }
        : {}),
      sandboxMode: record.sandboxMode,
    };
  } finally {
    key.fill(0);
  }
}
