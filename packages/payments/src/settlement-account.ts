/**
 * The settlement account: the EVM account that submits `transferWithAuthorization` and pays
 * its gas. It is an ordinary Keyhold private key of the operator's organization, held by the
 * KeyVault (so `--vault pkcs11` keeps it in the HSM), created once and found by its name.
 * @module
 */
import type { Clock, Ids, Store } from '@keyhold/activities';
import { deriveAddress, type KeyVault } from '@keyhold/keys';
import { bytesToHex } from '@noble/hashes/utils.js';
import {
  type Address,
  getAddress,
  type Hex,
  hexToBytes,
  keccak256,
  serializeTransaction,
  type TransactionSerializableEIP1559,
  toHex,
} from 'viem';

/**
 * The name of the settlement key in the operator's organization.
 * @example
 * SETTLEMENT_KEY_NAME; // 'pay-settlement'
 */
export const SETTLEMENT_KEY_NAME = 'pay-settlement';

/**
 * An account that signs settlement transactions through the KeyVault.
 * @example
 * const raw = await account.signTransaction({ chainId: 84532, type: 'eip1559', to, data, nonce, gas, maxFeePerGas, maxPriorityFeePerGas });
 */
export interface SettlementAccount {
  readonly address: Address;
  readonly privateKeyId: string;
  signTransaction(transaction: TransactionSerializableEIP1559): Promise<Hex>;
}

/**
 * The settlement account of `organizationId`: its private key named `privateKeyName`, created
 * (secp256k1, with its Ethereum address) when the organization has none.
 * @throws Error when the organization does not exist
 * @example
 * const account = await openSettlementAccount({ store, vault, ids, clock, organizationId });
 * account.address; // fund it with gas
 */
export async function openSettlementAccount(deps: {
  store: Store;
  vault: KeyVault;
  ids: Ids;
  clock: Clock;
  organizationId: string;
  privateKeyName?: string;
}): Promise<SettlementAccount> {
  const { store, vault, ids, clock, organizationId } = deps;
  const name = deps.privateKeyName ?? SETTLEMENT_KEY_NAME;
  const record = await store.transaction(async (tx) => {
    if (!(await tx.organizations.get(organizationId))) {
      throw new Error(`the payment gateway's organization ${organizationId} does not exist`);
    }
    const existing = (await tx.privateKeys.list(organizationId)).find(
      (key) => key.privateKeyName === name && !key.disabled,
    );
    if (existing) return existing;
    const key = await vault.createKey('CURVE_SECP256K1');
    const address = deriveAddress('ADDRESS_FORMAT_ETHEREUM', 'CURVE_SECP256K1', key.publicKey);
    const now = clock.now();
    const created = {
      organizationId,
      privateKeyId: ids.uuid(),
      privateKeyName: name,
      curve: 'CURVE_SECP256K1' as const,
      publicKey: bytesToHex(key.publicKey),
      addresses: [{ format: 'ADDRESS_FORMAT_ETHEREUM' as const, address }],
      privateKeyTags: [],
      key: key.key,
      exported: false,
      imported: false,
      disabled: false,
      createdAt: now,
      updatedAt: now,
    };
    await tx.privateKeys.insert(created);
    return created;
  });
  const ethereum = record.addresses.find((a) => a.format === 'ADDRESS_FORMAT_ETHEREUM');
  const address = getAddress(
    ethereum?.address ??
      deriveAddress(
        'ADDRESS_FORMAT_ETHEREUM',
        'CURVE_SECP256K1',
        hexToBytes(`0x${record.publicKey}`),
      ),
  );
  return {
    address,
    privateKeyId: record.privateKeyId,
    async signTransaction(transaction) {
      const digest = keccak256(serializeTransaction(transaction), 'bytes');
      const { r, s, recovery } = await vault.sign(record.key, 'CURVE_SECP256K1', digest);
      return serializeTransaction(transaction, {
        r: toHex(r, { size: 32 }),
        s: toHex(s, { size: 32 }),
        yParity: recovery ?? 0,
      });
    },
  };
}
