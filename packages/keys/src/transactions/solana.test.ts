import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { base58, base64 } from '@scure/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RawSignature } from '../key-vault.js';
import { parseTransaction, signTransaction } from './sign-transaction.js';
import { compactU16, type ParsedSolanaTransaction } from './solana.js';

const SOL = 'TRANSACTION_TYPE_SOLANA';

function signerOf(seed: Uint8Array) {
  return async (message: Uint8Array): Promise<RawSignature> => {
    const sig = ed25519.sign(message, seed);
    return { r: sig.slice(0, 32), s: sig.slice(32) };
  };
}

async function sign(tx: Uint8Array | string, seed: Uint8Array): Promise<Uint8Array> {
  const { signedTransaction } = await signTransaction({
    type: SOL,
    unsignedTransaction: typeof tx === 'string' ? tx : bytesToHex(tx),
    curve: 'CURVE_ED25519',
    publicKey: ed25519.getPublicKey(seed),
    sign: signerOf(seed),
  });
  return hexToBytes(signedTransaction);
}

function parse(tx: Uint8Array): ParsedSolanaTransaction {
  return parseTransaction(SOL, bytesToHex(tx)) as ParsedSolanaTransaction;
}

/** Zeroes every signature slot of a serialized transaction (n < 128 slots). */
function unsign(tx: Uint8Array): Uint8Array {
  const out = Uint8Array.from(tx);
  out.fill(0, 1, 1 + 64 * tx[0]!);
  return out;
}

/**
 * Vectors from Trust Wallet wallet-core (Apache-2.0): rust/tw_tests/tests/chains/solana/
 * solana_transaction_ffi.rs, rust/chains/tw_solana/tests/update_blockhash_and_sign.rs and
 * tests/chains/Solana/TransactionTests.cpp. Most were broadcast (explorer links there).
 */
const WALLET_CORE = {
  // Legacy SOL transfer, one signer; key given as a base58 seed.
  legacy: {
    seed: base58.decode('A7psj2GW7ZMdY4E5hJq14KMeYg7HFjULSsWSrTXZLvYr'),
    signed:
      'AdQl49kO1FxfkAnAuK9KSQEGLzxHNYLqBrYGFN711q7aT/qyrzYMn/7/IdFBy6yMhjOA1CkwZsgmqmbu+XKvVAUBAAEDZsL1CMnFVcrMn7JtiOiN1U4hC7WovOVof2DX51xM0H/GizyJTHgrBanCf8bGbrFNTn0x3pCGq30hKbywSTr6AgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAseKSLpOE0fdq67Jk9Ckme2c3SYD//nqcykr/oci67zEBAgIAAQwCAAAAKgAAAAAAAAA=',
  },
  // Legacy transfer with compute-budget instructions (mainnet 3dxcZP8Q…): the input still
  // carries an old signature in the slot, which signing replaces.
  legacyPriorityFee: {
    seed: hexToBytes('baf2b2dbbbad7ca96c1fa199c686f3d8fbd2c7b352f307e37e04f33df6741f18'),
    input:
      'Ab8KqzeQeInEQVRNDD1akh2B0EEeb5XJFfyVjqDrocz49NcZ6x5cp76zC9mjZKspsVCWVYIYdvNRYJYVB2OK3g4BAAIEODI+iWe7g68B9iwCy8bFkJKvsIEj350oSOpcv4gNnv/st+6qmqipl9lwMK6toB9TiL7LrJVfij+pKwr+pUKxfwMGRm/lIRcy/+ytunLDm+e8jOW7xfcSayxDmzpAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABwXONiS/AgQzMMUxsafHXszeF2QJdufrIFBZHMZlu8/gMCAAkD6AMAAAAAAAACAAUCECcAAAMCAAEMAgAAAOgDAAAAAAAA',
    signed:
      'AYPn6T3Qqfqg/IW+2FL1suZyUDrhFVlEiKBaCAWAtINfuLgWkDw7Q+QaDvGGRa7eMgEnj4hfCA92tssQByeCCw4BAAIEODI+iWe7g68B9iwCy8bFkJKvsIEj350oSOpcv4gNnv/st+6qmqipl9lwMK6toB9TiL7LrJVfij+pKwr+pUKxfwMGRm/lIRcy/+ytunLDm+e8jOW7xfcSayxDmzpAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABwXONiS/AgQzMMUxsafHXszeF2QJdufrIFBZHMZlu8/gMCAAkD6AMAAAAAAAACAAUCECcAAAMCAAEMAgAAAOgDAAAAAAAA',
  },
  // v0 transfer whose recipient comes from an address lookup table (mainnet 4vkDYvXn…).
  v0Lookup: {
    seed: hexToBytes('a73613f265ae572772e28bd921a7bcd0f020e188aae4d1ebd07b9b487fde3573'),
    input:
      'Acjjw79E1WGC531Oq6lsyg3X+D65Fo37i6A4nKaqDjxWVrF/djOxbyShfg0HwMuCMp2Mj2JtsiGMkJbt/iD8rQ2AAQACAwEFuF07bbuXk4EuSECBjRkLhDeGEZ4Jm4QbrRF/TN0CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADBkZv5SEXMv/srbpyw5vnvIzlu8X3EmssQ5s6QAAAABQT9t1PQCVM3yb4hmStvNpNTEdyegpbdZm5yq7uawiZAwIABQIQJwAAAQIAAwwCAAAA9AEAAAAAAAACAAkD6AMAAAAAAAABg6ubjXXDDLT4HDIIaUQTs2tXhM3DYb69M4nd4UWaFdMBAAA=',
    signed:
      'AcRmE7GRYYh3XKjfYpBRvTdXjYMLtowRUxaStETGPTm0qxa7sm11yqGXKiO3SgOdsRL2Y9IQRBMfqwkBZyrK9gKAAQACAwEFuF07bbuXk4EuSECBjRkLhDeGEZ4Jm4QbrRF/TN0CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADBkZv5SEXMv/srbpyw5vnvIzlu8X3EmssQ5s6QAAAABQT9t1PQCVM3yb4hmStvNpNTEdyegpbdZm5yq7uawiZAwIABQIQJwAAAQIAAwwCAAAA9AEAAAAAAAACAAkD6AMAAAAAAAABg6ubjXXDDLT4HDIIaUQTs2tXhM3DYb69M4nd4UWaFdMBAAA=',
  },
  // Legacy SPL TransferChecked with an external fee payer: two signers (devnet 3KbvREZU…).
  twoSigners: {
    feePayerSeed: base58.decode('66ApBuKpo2uSzpjGBraHq7HP8UZMUJzp3um8FdEjkC9c'),
    ownerSeed: base58.decode('9YtuoD4sH4h88CVM8DSnkfoAaLY7YeGC2TarDJ8eyMS5'),
    unsigned:
      'AgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAgACBssq8Im1alV3N7wXGODL8jLPWwLhTuCqfGZ1Iz9fb5tXlMOJD6jUvASrKmdtLK/qXNyJns2Vqcvlk+nfJYdZaFpIWiT/tAcEYbttfxyLdYxrLckAKdVRtf1OrNgtZeMCII4SAn6SYaaidrX/AN3s/aVn/zrlEKW0cEUIatHVDKtXO0Qss5EhV/E6kz0BNCgtAytf/s0Botvxt3kGCN8ALqcG3fbh12Whk9nL4UbO63msHLSF7V9bN5E6jPWFfv8AqbHiki6ThNH3auuyZPQpJntnN0mA//56nMpK/6HIuu8xAQUEAgQDAQoMoA8AAAAAAAAG',
    signed:
      'Ajzc/Tke0CG8Cew5qFa6xZI/7Ya3DN0M8Ige6tKPsGzhg8Bw9DqL18KUrEZZ1F4YqZBo4Rv+FsDT8A7Nss7p4A6BNVZzzGprCJqYQeNg0EVIbmPc6mDitNniHXGeKgPZ6QZbM4FElw9O7IOFTpOBPvQFeqy0vZf/aayncL8EK/UEAgACBssq8Im1alV3N7wXGODL8jLPWwLhTuCqfGZ1Iz9fb5tXlMOJD6jUvASrKmdtLK/qXNyJns2Vqcvlk+nfJYdZaFpIWiT/tAcEYbttfxyLdYxrLckAKdVRtf1OrNgtZeMCII4SAn6SYaaidrX/AN3s/aVn/zrlEKW0cEUIatHVDKtXO0Qss5EhV/E6kz0BNCgtAytf/s0Botvxt3kGCN8ALqcG3fbh12Whk9nL4UbO63msHLSF7V9bN5E6jPWFfv8AqbHiki6ThNH3auuyZPQpJntnN0mA//56nMpK/6HIuu8xAQUEAgQDAQoMoA8AAAAAAAAG',
  },
  // v0, two signers, the wallet-core compiled message and both signatures (devnet 66PAVjxF…).
  v0TwoSigners: {
    signed:
      'Av658VzDRfoVZFBnYQADOGDtvoCm9h2rgZnpT9xHZ47P25XjvBDsCn+GOrjvXDjtrnLbfl1yhV2yJf2TX9WbcAqTbNbRducB0fdIAxklsvAp9vGrS5mux24kzPBWSewmlWmgjsC9gPX+4cuNE+zUIL9QxfZK50x6+iZ0WMq7TlgEgAIAAQTLKvCJtWpVdze8Fxjgy/Iyz1sC4U7gqnxmdSM/X2+bV2uEKrOPvZNBtdUtSFXcg8+kj4O/Z1Ht/hwvnaqq5s6mTXd3KtwUyJFfRs2PBfeQW8xCEZvNr/5J/Tx8ltbn0pwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACo+QRbvXWNKoOfaOL4cSpfYrmn/2TV+dBmct+HsmmwdAQMCAQIMAgAAAACcnwYAAAAAAA==',
    message:
      '8002000104cb2af089b56a557737bc1718e0cbf232cf5b02e14ee0aa7c6675233f5f6f9b576b842ab38fbd9341b5d52d4855dc83cfa48f83bf6751edfe1c2f9daaaae6cea64d77772adc14c8915f46cd8f05f7905bcc42119bcdaffe49fd3c7c96d6e7d29c00000000000000000000000000000000000000000000000000000000000000002a3e4116ef5d634aa0e7da38be1c4a97d8ae69ffd9357e74199cb7e1ec9a6c1d01030201020c02000000009c9f060000000000',
  },
  // A real SPL TransferChecked (mainnet 3vZ67CGo…), base58, TransactionTests.cpp.
  splTransfer:
    'PGfKqEaH2zZXDMZLcU6LUKdBSzU1GJWJ1CJXtRYCxaCH7k8uok38WSadZfrZw3TGejiau7nSpan2GvbK26hQim24jRe2AupmcYJFrgsdaCt1Aqs5kpGjPqzgj9krgxTZwwob3xgC1NdHK5BcNwhxwRtrCphGEH7zUFpGFrFrHzgpf2KY8FvPiPELQyxzTBuyNtjLjMMreehSKShEjD9Xzp1QeC1pEF8JL6vUKzxMXuveoEYem8q8JiWszYzmTMfDk13JPgv7pXFGMqDV3yNGCLsWccBeSFKN4UKECre6x2QbUEiKGkHkMc4zQwwyD8tGmEMBAGm339qdANssEMNpDeJp2LxLDStSoWShHnotcrH7pUa94xCVvCPPaomF',
};

describe('TRANSACTION_TYPE_SOLANA: wallet-core vectors', () => {
  it('legacy transfer: the zeroed slot is filled exactly as wallet-core signs it', async () => {
    const signed = base64.decode(WALLET_CORE.legacy.signed);
    const out = await sign(unsign(signed), WALLET_CORE.legacy.seed);
    expect(bytesToHex(out)).toBe(bytesToHex(signed));
  });

  it('legacy with compute budget: an old signature in the slot is replaced', async () => {
    const { seed, input, signed } = WALLET_CORE.legacyPriorityFee;
    const out = await sign(base64.decode(input), seed);
    expect(base64.encode(out)).toBe(signed);
  });

  it('v0 with an address lookup table', async () => {
    const { seed, input, signed } = WALLET_CORE.v0Lookup;
    const out = await sign(base64.decode(input), seed);
    expect(base64.encode(out)).toBe(signed);
    const { view } = parse(base64.decode(input));
    expect(view.version).toBe('v0');
    expect(view.address_table_lookups).toHaveLength(1);
    // The recipient of the transfer is loaded from the table: no key, a lookup reference.
    expect(view.transfers).toHaveLength(1);
    expect(view.transfers[0]).toMatchObject({ from: view.account_keys[0], amount: 500n });
    expect(view.transfers[0]).not.toHaveProperty('to');
    const transfer = view.instructions.find(
      (i) => i.program_key === '11111111111111111111111111111111',
    )!;
    expect(transfer.accounts[1]).toMatchObject({
      writable: true,
      signer: false,
      lookup: { index: 0 },
    });
    expect(transfer.address_table_lookups).toEqual([
      {
        address_table_key: view.address_table_lookups[0]!.address_table_key,
        writable_indexes: [0n],
        readonly_indexes: [],
      },
    ]);
  });

  it('two signers: each key fills its own slot, the other slot is kept', async () => {
    const { feePayerSeed, ownerSeed, unsigned, signed } = WALLET_CORE.twoSigners;
    const byFeePayer = await sign(base64.decode(unsigned), feePayerSeed);
    const expected = base64.decode(signed);
    expect(bytesToHex(byFeePayer.subarray(1, 65))).toBe(bytesToHex(expected.subarray(1, 65)));
    expect(byFeePayer.subarray(65, 129).every((b) => b === 0)).toBe(true);
    const byBoth = await sign(byFeePayer, ownerSeed);
    expect(base64.encode(byBoth)).toBe(signed);
    // Order does not matter.
    expect(
      base64.encode(await sign(await sign(base64.decode(unsigned), ownerSeed), feePayerSeed)),
    ).toBe(signed);
    const { view } = parse(base64.decode(unsigned));
    expect(view.required_signers).toEqual([
      base58.encode(ed25519.getPublicKey(feePayerSeed)),
      base58.encode(ed25519.getPublicKey(ownerSeed)),
    ]);
    expect(view.spl_transfers).toEqual([
      {
        // TransferChecked accounts [source, mint, destination, owner] = keys [2, 4, 3, 1].
        from: view.account_keys[2],
        token_mint: view.account_keys[4],
        to: view.account_keys[3],
        amount: 4000n,
        owner: view.account_keys[1],
        signers: [],
      },
    ]);
  });

  it('v0, two signers: the message is what both broadcast signatures cover', () => {
    const { signed, message } = WALLET_CORE.v0TwoSigners;
    const tx = base64.decode(signed);
    const parsed = parse(tx);
    expect(bytesToHex(parsed.messageBytes)).toBe(message);
    parsed.view.required_signers.forEach((signer, i) => {
      expect(
        ed25519.verify(parsed.signatures[i]!, parsed.messageBytes, base58.decode(signer)),
      ).toBe(true);
    });
    expect(parsed.view.transfers).toEqual([
      { from: parsed.view.account_keys[1], to: parsed.view.account_keys[2], amount: 111_123_456n },
    ]);
  });

  it('a broadcast SPL TransferChecked: the signature verifies over the parsed message', () => {
    const parsed = parse(base58.decode(WALLET_CORE.splTransfer));
    expect(parsed.view.account_keys[0]).toBe('B1iGmDJdvmxyUiYM8UEo2Uw2D58EmUrw4KyLYMmrhf8V');
    expect(
      ed25519.verify(
        parsed.signatures[0]!,
        parsed.messageBytes,
        base58.decode(parsed.view.account_keys[0]!),
      ),
    ).toBe(true);
    expect(parsed.view.spl_transfers).toEqual([
      {
        from: 'EDNd1ycsydWYwVmrYZvqYazFqwk1QjBgAUKFjBoz1jKP',
        token_mint: 'SRMuApVNdxXokk5GT7XD5cUUgXMBCoAz2LHeuAoKWRt',
        to: '3WUX9wASxyScbA7brDipioKfXS1XEYkQ4vo3Kej9bKei',
        amount: 4000n,
        owner: 'B1iGmDJdvmxyUiYM8UEo2Uw2D58EmUrw4KyLYMmrhf8V',
        signers: [],
      },
    ]);
    expect(parsed.view.program_keys).toEqual(['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA']);
  });
});

describe('TRANSACTION_TYPE_SOLANA: inputs and outputs', () => {
  const seed = WALLET_CORE.legacy.seed;
  const signed = base64.decode(WALLET_CORE.legacy.signed);
  const message = signed.subarray(65);

  it('accepts a bare message and returns the full transaction', async () => {
    expect(bytesToHex(await sign(message, seed))).toBe(bytesToHex(signed));
    expect(parse(message).form).toBe('message');
    expect(parse(unsign(signed)).form).toBe('transaction');
  });

  it('the filled slot verifies with noble ed25519 over the message bytes', async () => {
    const other = ed25519.utils.randomSecretKey();
    const out = await sign(unsign(signed), seed);
    const parsed = parse(out);
    expect(
      ed25519.verify(parsed.signatures[0]!, parsed.messageBytes, ed25519.getPublicKey(seed)),
    ).toBe(true);
    expect(
      ed25519.verify(parsed.signatures[0]!, parsed.messageBytes, ed25519.getPublicKey(other)),
    ).toBe(false);
  });

  it('compact-u16 matches the short_vec examples (0x7f, 0x80, 0x3fff, 0x4000, 0xffff)', () => {
    expect(bytesToHex(compactU16(0))).toBe('00');
    expect(bytesToHex(compactU16(0x7f))).toBe('7f');
    expect(bytesToHex(compactU16(0x80))).toBe('8001');
    expect(bytesToHex(compactU16(0x3fff))).toBe('ff7f');
    expect(bytesToHex(compactU16(0x4000))).toBe('808001');
    expect(bytesToHex(compactU16(0xffff))).toBe('ffff03');
  });
});

describe('TRANSACTION_TYPE_SOLANA: what is refused', () => {
  const seed = WALLET_CORE.legacy.seed;
  const signed = base64.decode(WALLET_CORE.legacy.signed);
  const tx = unsign(signed);
  const hex = bytesToHex(tx);

  function parseError(input: string): { key?: string; context?: { reason?: string } } {
    try {
      parseTransaction(SOL, input);
    } catch (error) {
      return error as { key?: string };
    }
    throw new Error('expected a refusal');
  }

  const withByte = (at: number, value: number) => {
    const copy = Uint8Array.from(tx);
    copy[at] = value;
    return bytesToHex(copy);
  };

  it.each([
    ['garbage', 'deadbeef'],
    ['not hex', 'xyz0'],
    ['truncated', hex.slice(0, -2)],
    ['a trailing byte', `${hex}00`],
    ['only the signature slots', hex.slice(0, 2 + 128)],
    ['message version 1', `${hex.slice(0, 130)}81${hex.slice(130)}`],
    ['no writable fee payer (numReadonlySigned = numRequired)', withByte(66, 1)],
    ['more header accounts than keys', withByte(67, 9)],
    ['a program id index out of range', withByte(65 + 3 + 1 + 96 + 32 + 1, 7)],
    ['the fee payer as the program', withByte(65 + 3 + 1 + 96 + 32 + 1, 0)],
    ['an Ethereum transaction', '02c0'],
  ])('%s → "failed to parse transaction"', (_name, input) => {
    const error = parseError(input);
    expect(error.key).toBe('INVALID_TRANSACTION');
  });

  it('a non-minimal compact-u16 is refused', () => {
    // The signature count 1 written as 0x81 0x00.
    expect(parseError(`8100${hex.slice(2)}`).key).toBe('INVALID_TRANSACTION');
  });

  it('a key that is not a required signer → SIGNER_NOT_IN_TRANSACTION, nothing signed', async () => {
    let calls = 0;
    // The transfer's recipient is in the account keys, but not a signer.
    const recipientIsNoSigner = parse(tx).view.account_keys[1]!;
    expect(recipientIsNoSigner).toBeDefined();
    const stranger = ed25519.utils.randomSecretKey();
    await expect(
      signTransaction({
        type: SOL,
        unsignedTransaction: hex,
        curve: 'CURVE_ED25519',
        publicKey: ed25519.getPublicKey(stranger),
        sign: async (m) => {
          calls++;
          return signerOf(stranger)(m);
        },
      }),
    ).rejects.toMatchObject({ key: 'SIGNER_NOT_IN_TRANSACTION' });
    expect(calls).toBe(0);
  });

  it('a secp256k1 key → INVALID_CURVE', async () => {
    await expect(
      signTransaction({
        type: SOL,
        unsignedTransaction: hex,
        curve: 'CURVE_SECP256K1',
        publicKey: new Uint8Array(33),
        sign: signerOf(seed),
      }),
    ).rejects.toMatchObject({ key: 'INVALID_CURVE' });
  });

  it('never throws anything but a KeyholdError on random bytes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 400 }), (bytes) => {
        try {
          parseTransaction(SOL, bytesToHex(bytes));
        } catch (error) {
          expect((error as { key?: string }).key).toBe('INVALID_TRANSACTION');
        }
      }),
      { numRuns: 500 },
    );
  });

  it('survives any single-byte corruption of a real transaction (property)', () => {
    fc.assert(
      fc.property(fc.nat(tx.length - 1), fc.integer({ min: 0, max: 255 }), (at, value) => {
        try {
          parseTransaction(SOL, withByte(at, value));
        } catch (error) {
          expect((error as { key?: string }).key).toBe('INVALID_TRANSACTION');
        }
      }),
      { numRuns: 300 },
    );
  });
});
