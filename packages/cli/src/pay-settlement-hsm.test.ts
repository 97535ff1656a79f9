/**
 * The payment gateway's settlement account on the PKCS#11 vault (`--vault pkcs11`): the key is
 * born in the token and every settlement transaction is signed there; the signed transaction
 * recovers to the account's address, and a restart finds the same key. SoftHSM2; skipped
 * loudly without it.
 */
import { Clock, Ids, Store } from '@keyhold/activities';
import { openSettlementAccount, SETTLEMENT_KEY_NAME } from '@keyhold/payments';
import { createKeyhold, generateApiKeyPair, silentLogger } from '@keyhold/server';
import { openPkcs11KeyVault, type Pkcs11KeyVault } from '@keyhold/vault-pkcs11';
import {
  parseTransaction,
  recoverTransactionAddress,
  type TransactionSerializedEIP1559,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSoftHsm,
  type SoftHsm,
  softHsmAvailable,
} from '../../../adapters/vault-pkcs11/src/__fixtures__/softhsm.js';

const available = softHsmAvailable();
if (!available) {
  if (process.env.CI === 'true') throw new Error('SoftHSM2 is required in CI');
  console.warn('SoftHSM2 is not installed: the HSM settlement-account test is skipped');
}

describe.skipIf(!available)('the settlement account in an HSM', () => {
  let hsm: SoftHsm;
  let vault: Pkcs11KeyVault;

  beforeAll(async () => {
    hsm = createSoftHsm(['keyhold-pay']);
    vault = await openPkcs11KeyVault({
      modulePath: hsm.modulePath,
      tokenLabel: 'keyhold-pay',
      pin: hsm.tokens['keyhold-pay']!.pin,
    });
  });
  afterAll(async () => {
    await vault?.close();
    hsm?.cleanup();
  });

  it('is a token key that signs settlement transactions, found again on the next start', async () => {
    const keyhold = createKeyhold({ logger: silentLogger, vault });
    const { organizationId } = await keyhold.bootstrap({
      organizationName: 'Operator',
      apiPublicKey: generateApiKeyPair().publicKey,
    });
    const deps = {
      store: keyhold.container.get<Store>(Store),
      vault,
      ids: keyhold.container.get<Ids>(Ids),
      clock: keyhold.container.get<Clock>(Clock),
      organizationId,
    };
    const account = await openSettlementAccount(deps);
    const record = await deps.store.transaction(async (tx) =>
      (await tx.privateKeys.list(organizationId)).find(
        (k) => k.privateKeyName === SETTLEMENT_KEY_NAME,
      ),
    );
    expect(record?.addresses).toEqual([
      { format: 'ADDRESS_FORMAT_ETHEREUM', address: account.address },
    ]);
    const signed = await account.signTransaction({
      type: 'eip1559',
      chainId: 84532,
      to: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      data: '0xe3ee160e',
      nonce: 7,
      gas: 100_000n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
    });
    expect(parseTransaction(signed)).toMatchObject({ chainId: 84532, nonce: 7 });
    expect(
      await recoverTransactionAddress({
        serializedTransaction: signed as TransactionSerializedEIP1559,
      }),
    ).toBe(account.address);
    // The next start opens the same key rather than making another.
    const again = await openSettlementAccount(deps);
    expect(again.address).toBe(account.address);
    expect(again.privateKeyId).toBe(account.privateKeyId);
    await keyhold.close();
  });
});
