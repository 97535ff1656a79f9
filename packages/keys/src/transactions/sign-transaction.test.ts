import type { TransactionType } from '@keyhold/protocol';
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { base64 } from '@scure/base';
import { p2wpkh, Transaction } from '@scure/btc-signer';
import { serializeTransaction } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  isSupportedTransactionType,
  parseTransaction,
  SUPPORTED_TRANSACTION_TYPES,
  signTransaction,
  TRANSACTION_CURVES,
} from './sign-transaction.js';

const ethereum = serializeTransaction({
  type: 'eip1559',
  chainId: 1,
  nonce: 0,
  maxFeePerGas: 2n,
  maxPriorityFeePerGas: 1n,
  gas: 21_000n,
  to: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  value: 1n,
}).slice(2);

const bitcoin = (() => {
  const pub = secp256k1.getPublicKey(new Uint8Array(32).fill(7));
  const tx = new Transaction();
  tx.addInput({
    txid: new Uint8Array(32).fill(1),
    index: 0,
    witnessUtxo: { script: p2wpkh(pub).script, amount: 10_000n },
  });
  tx.addOutput({ script: p2wpkh(pub).script, amount: 9_000n });
  return bytesToHex(tx.toPSBT(0));
})();

// A legacy Solana transfer with its signature slot zeroed (wallet-core vector, see solana.test.ts).
const solana = (() => {
  const tx = base64.decode(
    'AdQl49kO1FxfkAnAuK9KSQEGLzxHNYLqBrYGFN711q7aT/qyrzYMn/7/IdFBy6yMhjOA1CkwZsgmqmbu+XKvVAUBAAEDZsL1CMnFVcrMn7JtiOiN1U4hC7WovOVof2DX51xM0H/GizyJTHgrBanCf8bGbrFNTn0x3pCGq30hKbywSTr6AgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAseKSLpOE0fdq67Jk9Ckme2c3SYD//nqcykr/oci67zEBAgIAAQwCAAAAKgAAAAAAAAA=',
  );
  tx.fill(0, 1, 65);
  return bytesToHex(tx);
})();

// TronWeb raw_data_hex (BitGoJS mock, see tron.test.ts).
const tron =
  '0a025123220852a26dea963a47bc40c0fbb6dad62d5a65080112610a2d747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e5472616e73666572436f6e747261637412300a1541e5e00fc1cdb3921b8340c20b2b65b543c84aa1dd1215412c2ba4a9ff6c53207dc5b686bfecf75ea7b80577180a70b7b3b3dad62d';

const VALID: Record<(typeof SUPPORTED_TRANSACTION_TYPES)[number], string> = {
  TRANSACTION_TYPE_ETHEREUM: ethereum,
  TRANSACTION_TYPE_SOLANA: solana,
  TRANSACTION_TYPE_TRON: tron,
  TRANSACTION_TYPE_BITCOIN: bitcoin,
};

function keyOf(error: () => unknown): string | undefined {
  try {
    error();
  } catch (e) {
    return (e as { key?: string }).key;
  }
  return undefined;
}

describe('parseTransaction: every type', () => {
  it.each(SUPPORTED_TRANSACTION_TYPES)('%s parses its own kind of transaction', (type) => {
    const parsed = parseTransaction(type, VALID[type]);
    expect(parsed.chain).toBe(type.replace('TRANSACTION_TYPE_', '').toLowerCase());
    expect(parseTransaction(type, `0x${VALID[type].toUpperCase()}`).view).toEqual(parsed.view);
  });

  const cases = SUPPORTED_TRANSACTION_TYPES.flatMap((type) => [
    [type, 'garbage', 'deadbeefcafe'],
    [type, 'not hex', 'hello'],
    [type, 'empty', ''],
    [type, 'truncated', VALID[type].slice(0, VALID[type].length / 2)],
    ...SUPPORTED_TRANSACTION_TYPES.filter((other) => other !== type).map((other) => [
      type,
      `a ${other.replace('TRANSACTION_TYPE_', '')} transaction`,
      VALID[other],
    ]),
  ]) as [TransactionType, string, string][];

  it.each(cases)('%s refuses %s with "failed to parse transaction"', (type, _name, hex) => {
    expect(keyOf(() => parseTransaction(type, hex))).toBe('INVALID_TRANSACTION');
  });

  it.each(['TRANSACTION_TYPE_TEMPO', 'TRANSACTION_TYPE_FOO', '', 42])(
    'refuses the type %s with UNSUPPORTED_TRANSACTION_TYPE',
    (type) => {
      expect(keyOf(() => parseTransaction(type as TransactionType, ethereum))).toBe(
        'UNSUPPORTED_TRANSACTION_TYPE',
      );
      expect(isSupportedTransactionType(type)).toBe(false);
    },
  );

  it('has one curve per type', () => {
    expect(TRANSACTION_CURVES).toEqual({
      TRANSACTION_TYPE_ETHEREUM: 'CURVE_SECP256K1',
      TRANSACTION_TYPE_SOLANA: 'CURVE_ED25519',
      TRANSACTION_TYPE_TRON: 'CURVE_SECP256K1',
      TRANSACTION_TYPE_BITCOIN: 'CURVE_SECP256K1',
    });
  });
});

describe('signTransaction: refusals before the vault is called', () => {
  const noVault = async () => {
    throw new Error('the vault must not be called');
  };

  it('refuses a P-256 key for every type', async () => {
    for (const type of SUPPORTED_TRANSACTION_TYPES) {
      await expect(
        signTransaction({
          type,
          unsignedTransaction: VALID[type],
          curve: 'CURVE_P256',
          publicKey: new Uint8Array(33),
          sign: noVault,
        }),
      ).rejects.toMatchObject({ key: 'INVALID_CURVE' });
    }
  });

  it('refuses a public key that is not a point of the curve', async () => {
    await expect(
      signTransaction({
        type: 'TRANSACTION_TYPE_ETHEREUM',
        unsignedTransaction: ethereum,
        curve: 'CURVE_SECP256K1',
        publicKey: new Uint8Array(20).fill(2),
        sign: noVault,
      }),
    ).rejects.toMatchObject({ key: 'INVALID_PUBLIC_KEY' });
  });

  it('parses first: an undecodable transaction is refused whatever the key', async () => {
    await expect(
      signTransaction({
        type: 'TRANSACTION_TYPE_SOLANA',
        unsignedTransaction: '00',
        curve: 'CURVE_SECP256K1',
        publicKey: ed25519.getPublicKey(new Uint8Array(32)),
        sign: noVault,
      }),
    ).rejects.toMatchObject({ key: 'INVALID_TRANSACTION' });
  });
});
