/**
 * Finds the key behind `signWith`: a wallet-account address, a private-key address, a
 * private-key id, or a public key (compressed SEC1 or Ed25519 hex) of either.
 * @module
 */

import type { SealedSecret } from '@keyhold/keys';
import { type Curve, isUuid, KeyholdError } from '@keyhold/protocol';
import type { StoreTransaction } from '../ports/store.js';

export interface Signer {
  curve: Curve;
  key: SealedSecret;
}

const PUBLIC_KEY_HEX = /^(0x)?([0-9a-fA-F]{64}|0[23][0-9a-fA-F]{64})$/;

export async function resolveSigner(
  tx: StoreTransaction,
  organizationId: string,
  signWith: string,
): Promise<Signer> {
  if (isUuid(signWith)) {
    const key = await tx.privateKeys.get(organizationId, signWith.toLowerCase());
    if (key) return usable(key);
  }
  const account = await tx.walletAccounts.findByAddress(organizationId, signWith);
  if (account) return { curve: account.curve, key: account.key };
  const byAddress = await tx.privateKeys.findByAddress(organizationId, signWith);
  if (byAddress) return usable(byAddress);
  if (PUBLIC_KEY_HEX.test(signWith)) {
    const hex = signWith.toLowerCase().replace(/^0x/, '');
    const accountByKey = await tx.walletAccounts.findByPublicKey(organizationId, hex);
    if (accountByKey) return { curve: accountByKey.curve, key: accountByKey.key };
    const keyByKey = await tx.privateKeys.findByPublicKey(organizationId, hex);
    if (keyByKey) return usable(keyByKey);
  }
  throw new KeyholdError('SIGN_WITH_NOT_FOUND', { signWith });
}

function usable(key: {
  curve: Curve;
  key: SealedSecret;
  disabled: boolean;
  privateKeyId: string;
}): Signer {
  if (key.disabled)
    throw new KeyholdError('PRIVATE_KEY_DISABLED', { privateKeyId: key.privateKeyId });
  return { curve: key.curve, key: key.key };
}
