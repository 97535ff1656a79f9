/**
 * Finds the key behind `signWith`: a wallet-account address, a private-key address, a
 * private-key id, or a public key (compressed SEC1 or Ed25519 hex) of either. The handlers
 * sign with it; the policy layer reads it (`wallet`, `wallet_account`, `private_key`).
 * @module
 */

import type { SealedSecret } from '@keyhold/keys';
import { type Curve, isUuid, KeyholdError } from '@keyhold/protocol';
import type { ActivityScope } from '../activity-scope.js';
import type { StoreTransaction } from '../ports/store.js';
import type { PrivateKeyRecord, WalletAccountRecord } from '../records.js';

/** A key that signs: its curve, its sealed secret and its public key (lower-case hex). */
export interface Signer {
  curve: Curve;
  key: SealedSecret;
  publicKey: string;
}

/** The record `signWith` names: a wallet account or a private key. */
export type SigningKey =
  | { kind: 'account'; account: WalletAccountRecord }
  | { kind: 'privateKey'; privateKey: PrivateKeyRecord };

const PUBLIC_KEY_HEX = /^(0x)?([0-9a-fA-F]{64}|0[23][0-9a-fA-F]{64})$/;

/** The wallet account or private key `signWith` names, or undefined. */
export async function findSigningKey(
  tx: StoreTransaction,
  organizationId: string,
  signWith: string,
): Promise<SigningKey | undefined> {
  if (isUuid(signWith)) {
    const privateKey = await tx.privateKeys.get(organizationId, signWith.toLowerCase());
    if (privateKey) return { kind: 'privateKey', privateKey };
  }
  const account = await tx.walletAccounts.findByAddress(organizationId, signWith);
  if (account) return { kind: 'account', account };
  const byAddress = await tx.privateKeys.findByAddress(organizationId, signWith);
  if (byAddress) return { kind: 'privateKey', privateKey: byAddress };
  if (PUBLIC_KEY_HEX.test(signWith)) {
    const hex = signWith.toLowerCase().replace(/^0x/, '');
    const accountByKey = await tx.walletAccounts.findByPublicKey(organizationId, hex);
    if (accountByKey) return { kind: 'account', account: accountByKey };
    const keyByKey = await tx.privateKeys.findByPublicKey(organizationId, hex);
    if (keyByKey) return { kind: 'privateKey', privateKey: keyByKey };
  }
  return undefined;
}

/**
 * The key that signs for `signWith`, read through the activity's scope (the decision has
 * usually read it already).
 * @throws KeyholdError SIGNER_NOT_FOUND, PRIVATE_KEY_DISABLED
 */
export async function resolveSigner(scope: ActivityScope, signWith: string): Promise<Signer> {
  const found = await scope.signingKey(signWith);
  if (!found) throw new KeyholdError('SIGNER_NOT_FOUND', { signWith });
  if (found.kind === 'account') {
    const { curve, key, publicKey } = found.account;
    return { curve, key, publicKey };
  }
  const { privateKey } = found;
  if (privateKey.disabled) {
    throw new KeyholdError('PRIVATE_KEY_DISABLED', { privateKeyId: privateKey.privateKeyId });
  }
  return { curve: privateKey.curve, key: privateKey.key, publicKey: privateKey.publicKey };
}
