import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { type Hex, keccak256, parseTransaction as viemParse } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import type { RawSignature } from '../key-vault.js';
import { parseSignedEthereumTransaction, unsignedEip1559Transaction } from './ethereum-send.js';
import { signTransaction } from './sign-transaction.js';

// Anvil's first account.
const PRIVATE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as const;
const account = privateKeyToAccount(PRIVATE_KEY);
const priv = hexToBytes(PRIVATE_KEY.slice(2));
const TO = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

async function vaultSign(digest: Uint8Array): Promise<RawSignature> {
  const sig = secp256k1.sign(digest, priv, { prehash: false, lowS: true, format: 'recovered' });
  return { r: sig.slice(1, 33), s: sig.slice(33, 65), recovery: sig[0] as 0 | 1 };
}

const fields = {
  chainId: 84532,
  nonce: 7n,
  to: TO,
  value: 12345n,
  data: '0xa9059cbb',
  gas: 50_000n,
  maxFeePerGas: 3_000_000_000n,
  maxPriorityFeePerGas: 1_000_000n,
};

describe('unsignedEip1559Transaction', () => {
  it('serializes the fields viem reads back, and signs like SIGN_TRANSACTION', async () => {
    const unsigned = unsignedEip1559Transaction(fields);
    expect(unsigned).toMatch(/^02[0-9a-f]+$/);
    expect(viemParse(`0x${unsigned}`)).toMatchObject({
      type: 'eip1559',
      chainId: 84532,
      nonce: 7,
      to: TO,
      value: 12345n,
      data: '0xa9059cbb',
      gas: 50_000n,
      maxFeePerGas: 3_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
    });
    const { signedTransaction } = await signTransaction({
      type: 'TRANSACTION_TYPE_ETHEREUM',
      unsignedTransaction: unsigned,
      curve: 'CURVE_SECP256K1',
      publicKey: secp256k1.getPublicKey(priv, true),
      sign: vaultSign,
    });
    // The same transaction signed by viem with the same key: the same bytes (RFC 6979).
    const byViem = await account.signTransaction({
      ...fields,
      nonce: 7,
      type: 'eip1559',
      to: TO,
      data: '0xa9059cbb',
    });
    expect(`0x${signedTransaction}`).toBe(byViem);
  });
});

describe('parseSignedEthereumTransaction', () => {
  it('recovers the sender and the hash of EIP-1559 and legacy EIP-155 transactions', async () => {
    const eip1559 = await account.signTransaction({
      ...fields,
      nonce: 7,
      type: 'eip1559',
      to: TO,
      data: '0x',
    });
    const parsed = parseSignedEthereumTransaction(eip1559);
    expect(parsed.view).toMatchObject({
      from: account.address.toLowerCase(),
      to: TO,
      chain_id: 84532n,
      nonce: 7n,
      value: 12345n,
      type: 'eip1559',
    });
    expect(parsed.hash).toBe(keccak256(eip1559 as Hex));
    expect(parseSignedEthereumTransaction(eip1559.slice(2)).hash).toBe(parsed.hash);

    const legacy = await account.signTransaction({
      chainId: 84532,
      type: 'legacy',
      to: TO,
      value: 1n,
      nonce: 0,
      gas: 21_000n,
      gasPrice: 1_000_000_000n,
    });
    const parsedLegacy = parseSignedEthereumTransaction(legacy);
    expect(parsedLegacy.view.from).toBe(account.address.toLowerCase());
    expect(parsedLegacy.view.chain_id).toBe(84532n);
    expect(parsedLegacy.hash).toBe(keccak256(legacy as Hex));
  });

  it('refuses bytes that are not a signed transaction: failed to parse transaction', () => {
    const refusals = ['', '0x', 'zz', '0x02c0', `0x${unsignedEip1559Transaction(fields)}`];
    for (const input of refusals) {
      expect(() => parseSignedEthereumTransaction(input), input).toThrow(
        'failed to parse transaction',
      );
    }
  });
});
