import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import * as Rlp from 'ox/Rlp';
import {
  type Hex,
  recoverTransactionAddress,
  serializeTransaction,
  type TransactionSerializable,
  parseTransaction as viemParseTransaction,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import type { RawSignature } from '../key-vault.js';
import { parseTransaction, signTransaction } from './sign-transaction.js';

// Anvil's first account.
const PRIVATE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as const;
const account = privateKeyToAccount(PRIVATE_KEY);
const priv = hexToBytes(PRIVATE_KEY.slice(2));
const publicKey = secp256k1.getPublicKey(priv, true);

/** The software vault's signing, as a callback. */
async function vaultSign(digest: Uint8Array): Promise<RawSignature> {
  const sig = secp256k1.sign(digest, priv, { prehash: false, lowS: true, format: 'recovered' });
  return { r: sig.slice(1, 33), s: sig.slice(33, 65), recovery: sig[0] as 0 | 1 };
}

const ETH = 'TRANSACTION_TYPE_ETHEREUM';
const TO = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8' as const;

async function sign(unsigned: Hex | string, signer = vaultSign): Promise<Hex> {
  const { signedTransaction } = await signTransaction({
    type: ETH,
    unsignedTransaction: unsigned.replace(/^0x/, ''),
    curve: 'CURVE_SECP256K1',
    publicKey,
    sign: signer,
  });
  expect(signedTransaction).toMatch(/^[0-9a-f]+$/);
  return `0x${signedTransaction}`;
}

function errorOf(fn: () => unknown): { key?: string; message?: string; context?: unknown } {
  try {
    fn();
  } catch (error) {
    return error as { key?: string };
  }
  throw new Error('expected a refusal');
}

async function rejectionOf(
  promise: Promise<unknown>,
): Promise<{ key?: string; context?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as { key?: string };
  }
  throw new Error('expected a refusal');
}

const authorization = await account.signAuthorization({
  contractAddress: '0x00000000000000000000000000000000000000aa',
  chainId: 1,
  nonce: 7,
});

const CASES: Record<string, TransactionSerializable> = {
  'legacy, EIP-155': {
    type: 'legacy',
    chainId: 1,
    nonce: 3,
    gasPrice: 20_000_000_000n,
    gas: 21_000n,
    to: TO,
    value: 10n ** 18n,
  },
  'legacy, pre-EIP-155 (no chain id)': {
    type: 'legacy',
    nonce: 0,
    gasPrice: 1n,
    gas: 21_000n,
    to: TO,
    value: 1n,
  },
  'legacy contract creation on chain 137': {
    type: 'legacy',
    chainId: 137,
    nonce: 1,
    gasPrice: 30_000_000_000n,
    gas: 1_000_000n,
    data: '0x6080604052',
  },
  'EIP-2930': {
    type: 'eip2930',
    chainId: 11155111,
    nonce: 9,
    gasPrice: 2n,
    gas: 50_000n,
    to: TO,
    accessList: [
      {
        address: '0x0000000000000000000000000000000000000001',
        storageKeys: [`0x${'00'.repeat(31)}01`],
      },
    ],
  },
  'EIP-1559': {
    type: 'eip1559',
    chainId: 1,
    nonce: 42,
    maxFeePerGas: 30_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
    gas: 60_000n,
    to: TO,
    value: 0n,
    data: '0xa9059cbb000000000000000000000000111111111111111111111111111111111111111100000000000000000000000000000000000000000000000000000000000003e8',
  },
  'EIP-4844 body': {
    type: 'eip4844',
    chainId: 1,
    nonce: 1,
    maxFeePerGas: 10n,
    maxPriorityFeePerGas: 1n,
    maxFeePerBlobGas: 3n,
    gas: 100_000n,
    to: TO,
    blobVersionedHashes: [`0x01${'ab'.repeat(31)}`],
  },
  'EIP-7702': {
    type: 'eip7702',
    chainId: 1,
    nonce: 8,
    maxFeePerGas: 10n,
    maxPriorityFeePerGas: 1n,
    gas: 100_000n,
    to: account.address,
    authorizationList: [authorization],
  },
};

describe('TRANSACTION_TYPE_ETHEREUM: signed transactions verified with viem', () => {
  it.each(Object.entries(CASES))('%s', async (_name, tx) => {
    const unsigned = serializeTransaction(tx);
    const signed = await sign(unsigned);
    // viem reads it, and it recovers to the signing account.
    const decoded = viemParseTransaction(signed);
    expect(decoded.type).toBe(tx.type);
    expect(decoded.r).toBeDefined();
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(
      account.address,
    );
    // RFC 6979 is deterministic, so viem's own local account produces the same bytes.
    expect(signed).toBe(await account.signTransaction(tx));
  });

  it('accepts 0x, upper-case hex and a vault that returns high S without a recovery id', async () => {
    const unsigned = serializeTransaction(CASES['EIP-1559']!);
    const n = secp256k1.Point.CURVE().n;
    const hsm = async (digest: Uint8Array): Promise<RawSignature> => {
      const good = await vaultSign(digest);
      const s = n - BigInt(`0x${bytesToHex(good.s)}`);
      return { r: good.r, s: hexToBytes(s.toString(16).padStart(64, '0')) };
    };
    const expected = await account.signTransaction(CASES['EIP-1559']!);
    expect(await sign(unsigned.toUpperCase().replace('0X', '0x'), hsm)).toBe(expected);
  });

  it('round-trips random legacy and EIP-1559 transactions through viem (property)', async () => {
    const quantity = fc.bigInt({ min: 0n, max: (1n << 96n) - 1n });
    const common = {
      chainId: fc.integer({ min: 1, max: 2 ** 32 }),
      nonce: fc.integer({ min: 0, max: 2 ** 31 }),
      gas: fc.bigInt({ min: 21_000n, max: 30_000_000n }),
      to: fc.option(
        fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${bytesToHex(b)}` as Hex),
        {
          nil: undefined,
        },
      ),
      value: quantity,
      data: fc
        .uint8Array({ maxLength: 80 })
        .map((b) => (b.length ? (`0x${bytesToHex(b)}` as Hex) : undefined)),
    };
    const legacy = fc.record({
      ...common,
      type: fc.constant('legacy' as const),
      gasPrice: quantity,
    });
    const eip1559 = fc
      .record({
        ...common,
        type: fc.constant('eip1559' as const),
        fees: fc.tuple(quantity, quantity),
      })
      .map(({ fees, ...tx }) => {
        // viem (and ox) refuse a tip above the fee cap.
        const [tip, cap] = [...fees].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
        return { ...tx, maxFeePerGas: cap!, maxPriorityFeePerGas: tip! };
      });
    await fc.assert(
      fc.asyncProperty(fc.oneof(legacy, eip1559), async (tx) => {
        const clean = Object.fromEntries(
          Object.entries(tx).filter(([, v]) => v !== undefined),
        ) as TransactionSerializable;
        const signed = await sign(serializeTransaction(clean));
        expect(signed).toBe(await account.signTransaction(clean));
        expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(
          account.address,
        );
        const view = parseTransaction(ETH, serializeTransaction(clean)).view;
        expect(view).toMatchObject({ type: clean.type, chain_id: BigInt(clean.chainId!) });
      }),
      { numRuns: 40 },
    );
  });
});

describe('the eth.tx view', () => {
  it('has the policy fields of an EIP-1559 call', () => {
    const parsed = parseTransaction(ETH, serializeTransaction(CASES['EIP-1559']!));
    expect(parsed.chain).toBe('ethereum');
    expect(parsed.view).toEqual({
      type: 'eip1559',
      chain_id: 1n,
      nonce: 42n,
      to: TO,
      value: 0n,
      data: CASES['EIP-1559']!.data,
      gas: 60_000n,
      max_fee_per_gas: 30_000_000_000n,
      max_priority_fee_per_gas: 1_000_000_000n,
      access_list: [],
    });
  });

  it('has gas_price for legacy, blob fields for EIP-4844, the authorizations for EIP-7702', () => {
    expect(
      parseTransaction(ETH, serializeTransaction(CASES['legacy, EIP-155']!)).view,
    ).toMatchObject({
      type: 'legacy',
      gas_price: 20_000_000_000n,
      value: 10n ** 18n,
    });
    expect(
      parseTransaction(ETH, serializeTransaction(CASES['legacy contract creation on chain 137']!))
        .view,
    ).not.toHaveProperty('to');
    expect(parseTransaction(ETH, serializeTransaction(CASES['EIP-4844 body']!)).view).toMatchObject(
      {
        max_fee_per_blob_gas: 3n,
        blob_versioned_hashes: [`0x01${'ab'.repeat(31)}`],
      },
    );
    expect(parseTransaction(ETH, serializeTransaction(CASES['EIP-7702']!)).view).toMatchObject({
      authorization_list: [
        { address: '0x00000000000000000000000000000000000000aa', chain_id: 1n, nonce: 7n },
      ],
    });
    expect(
      parseTransaction(ETH, serializeTransaction(CASES['legacy, pre-EIP-155 (no chain id)']!)).view,
    ).not.toHaveProperty('chain_id');
  });
});

describe('TRANSACTION_TYPE_ETHEREUM: what is refused', () => {
  const eip1559 = serializeTransaction(CASES['EIP-1559']!);
  const signature = { r: `0x${'11'.repeat(32)}`, s: `0x${'22'.repeat(32)}`, yParity: 1 } as const;
  const body = Rlp.toHex(`0x${serializeTransaction(CASES['EIP-4844 body']!).slice(4)}`);
  const wrapper = `0x03${Rlp.fromHex([body, '0x01', [], [], []]).slice(2)}`;

  it.each([
    ['garbage', 'deadbeef'],
    ['not hex', 'zz'],
    ['an odd number of digits', '02c'],
    ['the empty string', ''],
    ['only 0x', '0x'],
    ['truncated', eip1559.slice(0, -4)],
    ['one trailing byte', `${eip1559}00`],
    ['an EIP-1559 transaction with r, s, v', serializeTransaction(CASES['EIP-1559']!, signature)],
    ['an EIP-2930 transaction with r, s, v', serializeTransaction(CASES['EIP-2930']!, signature)],
    ['an EIP-7702 transaction with r, s, v', serializeTransaction(CASES['EIP-7702']!, signature)],
    [
      'a signed legacy transaction',
      serializeTransaction(CASES['legacy, EIP-155']!, { ...signature, v: 37n }),
    ],
    ['type byte 0x05', `0x05${eip1559.slice(4)}`],
    ['a Tempo transaction (0x76)', `0x76${eip1559.slice(4)}`],
    ['an RLP string instead of a list', '0x02820102'],
    ['too few fields', `0x02${bytesToHex(Rlp.fromHex(['0x01', '0x'], { as: 'Bytes' }))}`],
  ])('%s → "failed to parse transaction"', (_name, hex) => {
    const error = errorOf(() => parseTransaction(ETH, hex));
    expect(error.key).toBe('INVALID_TRANSACTION');
    expect(error.message).toBe('failed to parse transaction');
  });

  it('an EIP-4844 network wrapper → "failed to parse transaction", saying to send the body', () => {
    const error = errorOf(() => parseTransaction(ETH, wrapper)) as {
      key?: string;
      context?: { reason?: string };
    };
    expect(error.key).toBe('INVALID_TRANSACTION');
    expect(error.context?.reason).toContain('body only');
  });

  it('refuses an Ed25519 key with INVALID_CURVE, before anything is signed', async () => {
    let calls = 0;
    const error = await rejectionOf(
      signTransaction({
        type: ETH,
        unsignedTransaction: eip1559,
        curve: 'CURVE_ED25519',
        publicKey: new Uint8Array(32),
        sign: async () => {
          calls++;
          return vaultSign(new Uint8Array(32));
        },
      }),
    );
    expect(error.key).toBe('INVALID_CURVE');
    expect(calls).toBe(0);
  });

  it('fails (not a refusal) when the vault signs with another key', async () => {
    const other = secp256k1.utils.randomSecretKey();
    await expect(
      signTransaction({
        type: ETH,
        unsignedTransaction: eip1559,
        curve: 'CURVE_SECP256K1',
        publicKey,
        sign: async (digest) => {
          const sig = secp256k1.sign(digest, other, { prehash: false, format: 'recovered' });
          return { r: sig.slice(1, 33), s: sig.slice(33, 65), recovery: sig[0] as 0 | 1 };
        },
      }),
    ).rejects.toThrow('does not verify');
  });
});
