import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveAddress } from '../address.js';
import { base58check } from '../address-bitcoin.js';
import type { RawSignature } from '../key-vault.js';
import { parseTransaction, signTransaction } from './sign-transaction.js';
import type { ParsedTronTransaction } from './tron.js';

const TRON = 'TRANSACTION_TYPE_TRON';

// --- a minimal protobuf writer, to build raw_data from the fields a vector lists -------------
const varint = (value: bigint | number): Uint8Array => {
  let v = BigInt(value);
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Uint8Array.from(out);
};
const cat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};
const len = (field: number, bytes: Uint8Array) =>
  cat(varint((field << 3) | 2), varint(bytes.length), bytes);
const num = (field: number, value: bigint | number) => cat(varint(field << 3), varint(value));
const h = hexToBytes;

function contract(type: number, typeUrl: string, value: Uint8Array): Uint8Array {
  return len(11, cat(num(1, type), len(2, cat(len(1, utf8ToBytes(typeUrl)), len(2, value)))));
}

function signerOf(priv: Uint8Array) {
  return async (digest: Uint8Array): Promise<RawSignature> => {
    const sig = secp256k1.sign(digest, priv, { prehash: false, lowS: true, format: 'recovered' });
    return { r: sig.slice(1, 33), s: sig.slice(33, 65), recovery: sig[0] as 0 | 1 };
  };
}

/**
 * wallet-core tests/chains/Tron/TransactionCompilerTests.cpp (Apache-2.0): a TransferAsset
 * transaction given as JSON fields, its txID and the signature of key 2d8f…aa54 (wallet-core
 * writes the recovery id as 00/01).
 */
const WALLET_CORE = {
  privateKey: h('2d8f68944bdbfbc0769542fba8fc2d2a3de67393334471624364c7006da2aa54'),
  address: 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC',
  rawData: cat(
    len(1, h('b801')),
    len(4, h('0e2bc08d550f5f58')),
    num(8, 1541926116000),
    contract(
      2,
      'type.googleapis.com/protocol.TransferAssetContract',
      cat(
        len(1, h('31303030393539')),
        len(2, h('415cd0fb0ab3ce40f3051414c604b27756e69e43db')),
        len(3, h('41521ea197907927725ef36d70f25f850d1659c7c7')),
        num(4, 4),
      ),
    ),
    num(14, 1539295479000),
  ),
  txId: '546a3d07164c624809cf4e564a083a7a7974bb3c4eff6bb3e278b0ca21083fcb',
  signature:
    '77f5eabde31e739d34a66914540f1756981dc7d782c9656f5e14e53b59a15371603a183aa12124adeee7991bf55acc8e488a6ca04fb393b1a8ac16610eeafdfc00',
};

/** BitGoJS test/unit/coin/trx/mock.ts (Apache-2.0): TronWeb's raw_data_hex of a TRX transfer. */
const BITGO = {
  rawDataHex:
    '0a025123220852a26dea963a47bc40c0fbb6dad62d5a65080112610a2d747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e5472616e73666572436f6e747261637412300a1541e5e00fc1cdb3921b8340c20b2b65b543c84aa1dd1215412c2ba4a9ff6c53207dc5b686bfecf75ea7b80577180a70b7b3b3dad62d',
  txId: 'ee0bbf72b238361577a9dc41d79f7a74f6ba9efe472c21bfd3e7dc850c9e9020',
};

/** Decodes the signed `Transaction { raw_data = 1; signature = 2 }` the API returns. */
function decodeSigned(hex: string): { rawData: Uint8Array; signature: Uint8Array } {
  const bytes = hexToBytes(hex);
  expect(bytes[0]).toBe(0x0a);
  let at = 1;
  let length = 0;
  for (let shift = 0; ; shift += 7) {
    const b = bytes[at++]!;
    length |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) break;
  }
  const rawData = bytes.subarray(at, at + length);
  at += length;
  expect([bytes[at], bytes[at + 1]]).toEqual([0x12, 65]);
  const signature = bytes.subarray(at + 2, at + 67);
  expect(at + 67).toBe(bytes.length);
  return { rawData, signature };
}

/** Recovers the Tron address that signed `txId` (v = 27 + recovery id). */
function recoverTronAddress(txId: Uint8Array, signature: Uint8Array): string {
  const v = signature[64]!;
  const recovery = v >= 27 ? v - 27 : v;
  const point = secp256k1.Signature.fromBytes(signature.subarray(0, 64), 'compact')
    .addRecoveryBit(recovery)
    .recoverPublicKey(txId);
  return deriveAddress('ADDRESS_FORMAT_TRON', 'CURVE_SECP256K1', point.toBytes(true));
}

async function sign(rawData: Uint8Array | string, priv: Uint8Array): Promise<string> {
  const { signedTransaction } = await signTransaction({
    type: TRON,
    unsignedTransaction: typeof rawData === 'string' ? rawData : bytesToHex(rawData),
    curve: 'CURVE_SECP256K1',
    publicKey: secp256k1.getPublicKey(priv),
    sign: signerOf(priv),
  });
  return signedTransaction;
}

describe('TRANSACTION_TYPE_TRON', () => {
  it('wallet-core vector: same txID, same r ‖ s, v = 27 + recovery id', async () => {
    const { privateKey, rawData, txId, signature, address } = WALLET_CORE;
    expect(bytesToHex(sha256(rawData))).toBe(txId);
    expect(
      deriveAddress('ADDRESS_FORMAT_TRON', 'CURVE_SECP256K1', secp256k1.getPublicKey(privateKey)),
    ).toBe(address);
    const signed = decodeSigned(await sign(rawData, privateKey));
    expect(bytesToHex(signed.rawData)).toBe(bytesToHex(rawData));
    expect(bytesToHex(signed.signature.subarray(0, 64))).toBe(signature.slice(0, 128));
    expect(signed.signature[64]).toBe(27 + Number.parseInt(signature.slice(128), 16));
    expect(recoverTronAddress(h(txId), signed.signature)).toBe(address);
  });

  it('the tron.tx view of the wallet-core transaction', () => {
    const { view } = parseTransaction(
      TRON,
      bytesToHex(WALLET_CORE.rawData),
    ) as ParsedTronTransaction;
    expect(view).toEqual({
      tx_id: WALLET_CORE.txId,
      ref_block_bytes: 'b801',
      ref_block_hash: '0e2bc08d550f5f58',
      expiration: 1541926116000n,
      timestamp: 1539295479000n,
      contract: [
        {
          type: 'TransferAssetContract',
          permission_id: 0n,
          type_url: 'type.googleapis.com/protocol.TransferAssetContract',
          parameter_hex: expect.any(String),
          asset_name: '1000959',
          owner_address: 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC',
          to_address: 'THTR75o8xXAgCTQqpiot2AFRAjvW1tSbVV',
          amount: 4n,
        },
      ],
    });
  });

  it("BitGo / TronWeb raw_data_hex: txID and the docs' tron.tx.contract[0].amount", () => {
    const parsed = parseTransaction(TRON, BITGO.rawDataHex) as ParsedTronTransaction;
    expect(bytesToHex(parsed.txId)).toBe(BITGO.txId);
    expect(parsed.view).toMatchObject({
      ref_block_bytes: '5123',
      ref_block_hash: '52a26dea963a47bc',
      expiration: 1569463320000n,
      timestamp: 1569463261623n,
      contract: [
        {
          type: 'TransferContract',
          amount: 10n,
          owner_address: base58check.encode(h('41e5e00fc1cdb3921b8340c20b2b65b543c84aa1dd')),
          to_address: base58check.encode(h('412c2ba4a9ff6c53207dc5b686bfecf75ea7b80577')),
        },
      ],
    });
  });

  it('signs any key and recovers to its Tron address (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .uint8Array({ minLength: 48, maxLength: 48 })
          .map((s) => secp256k1.utils.randomSecretKey(s)),
        fc.bigInt({ min: 0n, max: (1n << 62n) - 1n }),
        async (priv, amount) => {
          const owner = deriveAddress(
            'ADDRESS_FORMAT_TRON',
            'CURVE_SECP256K1',
            secp256k1.getPublicKey(priv),
          );
          const raw = cat(
            len(1, h('5123')),
            len(4, h('52a26dea963a47bc')),
            num(8, 1569463320000),
            contract(
              1,
              'type.googleapis.com/protocol.TransferContract',
              cat(
                len(1, base58check.decode(owner)),
                len(2, h('412c2ba4a9ff6c53207dc5b686bfecf75ea7b80577')),
                num(3, amount),
              ),
            ),
            num(14, 1569463261623),
          );
          const signed = decodeSigned(await sign(raw, priv));
          expect([27, 28]).toContain(signed.signature[64]);
          expect(recoverTronAddress(sha256(raw), signed.signature)).toBe(owner);
          const view = (parseTransaction(TRON, bytesToHex(raw)) as ParsedTronTransaction).view;
          expect(view.contract[0]).toMatchObject({ owner_address: owner, amount });
        },
      ),
      { numRuns: 25 },
    );
  });

  it('decodes a TRC-20 call (TriggerSmartContract) with fee_limit', () => {
    const data = h(
      'a9059cbb0000000000000000000000002c2ba4a9ff6c53207dc5b686bfecf75ea7b8057700000000000000000000000000000000000000000000000000000000000003e8',
    );
    const raw = cat(
      len(1, h('5123')),
      len(4, h('52a26dea963a47bc')),
      num(8, 1569463320000),
      contract(
        31,
        'type.googleapis.com/protocol.TriggerSmartContract',
        cat(
          len(1, h('41e5e00fc1cdb3921b8340c20b2b65b543c84aa1dd')),
          len(2, h('41a614f803b6fd780986a42c78ec9c7f77e6ded13c')),
          len(4, data),
        ),
      ),
      num(14, 1569463261623),
      num(18, 100_000_000),
    );
    const { view } = parseTransaction(TRON, bytesToHex(raw)) as ParsedTronTransaction;
    expect(view.fee_limit).toBe(100_000_000n);
    expect(view.contract[0]).toMatchObject({
      type: 'TriggerSmartContract',
      contract_address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
      data: bytesToHex(data),
      call_value: 0n,
    });
  });

  it.each([
    ['garbage', 'deadbeef'],
    ['a field number 0', '0002'],
    ['a truncated length', BITGO.rawDataHex.slice(0, -10)],
    ['no contract', bytesToHex(cat(len(1, h('5123')), num(8, 1)))],
    ['a contract with the wrong wire type', bytesToHex(num(11, 5))],
    ['a group wire type', '0b'],
    ['an Ethereum transaction', '02c0'],
  ])('%s → "failed to parse transaction"', (_name, hex) => {
    expect(() => parseTransaction(TRON, hex)).toThrow(
      expect.objectContaining({
        key: 'INVALID_TRANSACTION',
        message: 'failed to parse transaction',
      }),
    );
  });

  it('never throws anything but "failed to parse transaction" on random bytes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 200 }), (bytes) => {
        try {
          parseTransaction(TRON, bytesToHex(bytes));
        } catch (error) {
          expect((error as { key?: string }).key).toBe('INVALID_TRANSACTION');
        }
      }),
      { numRuns: 500 },
    );
  });
});
