import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { base58, base64 } from '@scure/base';
import { getAddressDecoder } from '@solana/kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unsignedSystemTransfer } from '../../../../adapters/chain-solana/src/testing/system-transfer.js';
import { parseTransaction, signTransaction } from './sign-transaction.js';
import { parseSolanaTransaction } from './solana.js';
import {
  hasPlaceholderBlockhash,
  signedSolanaTransaction,
  solanaSendUnsignedTransaction,
} from './solana-send.js';

const PLACEHOLDER = '11111111111111111111111111111111';
const PAYEE = 'CktRuQ2mttgRGkXJtyksdKHjUdc2C4TgDzyB98oEzy8';
const addressOf = (publicKey: Uint8Array) => getAddressDecoder().decode(publicKey) as string;

/** A System transfer by kit, legacy or v0, with zero signature slots. */
const transfer = (from: string, to: string, blockhash: string, version: 'legacy' | 0) =>
  unsignedSystemTransfer({ from, to, lamports: 7n, blockhash, version });

const keyArb = fc.uint8Array({ minLength: 32, maxLength: 32 });

describe('solanaSendUnsignedTransaction', () => {
  it('puts recentBlockhash in the message of legacy and v0 transactions, and nothing else changes', () => {
    fc.assert(
      fc.property(
        keyArb,
        keyArb,
        keyArb,
        keyArb,
        fc.constantFrom<'legacy' | 0>('legacy', 0),
        (secret, to, first, second, version) => {
          const from = addressOf(ed25519.getPublicKey(secret));
          const original = transfer(from, addressOf(to), base58.encode(first), version);
          const hex = solanaSendUnsignedTransaction({
            unsignedTransaction: base64.encode(original),
            encoding: 'base64',
            recentBlockhash: base58.encode(second),
          });
          const replaced = parseSolanaTransaction(Buffer.from(hex, 'hex'));
          const expected = parseSolanaTransaction(
            transfer(from, addressOf(to), base58.encode(second), version),
          );
          expect(replaced.view).toEqual(expected.view);
          expect(bytesToHex(replaced.messageBytes)).toBe(bytesToHex(expected.messageBytes));
        },
      ),
      { numRuns: 50 },
    );
  });

  it('reads V2 hex (0x optional) as it is when there is no recentBlockhash; zeroes the slots when the blockhash changes', async () => {
    const secret = ed25519.utils.randomSecretKey();
    const publicKey = ed25519.getPublicKey(secret);
    const from = addressOf(publicKey);
    const original = transfer(from, PAYEE, PLACEHOLDER, 0);
    expect(hasPlaceholderBlockhash(parseSolanaTransaction(original))).toBe(true);
    const { signedTransaction } = await signTransaction({
      type: 'TRANSACTION_TYPE_SOLANA',
      unsignedTransaction: bytesToHex(original),
      curve: 'CURVE_ED25519',
      publicKey,
      sign: async (message) => {
        const signature = ed25519.sign(message, secret);
        return { r: signature.slice(0, 32), s: signature.slice(32) };
      },
    });
    expect(
      solanaSendUnsignedTransaction({
        unsignedTransaction: `0x${signedTransaction}`,
        encoding: 'hex',
      }),
    ).toBe(signedTransaction);
    const signed = signedSolanaTransaction(signedTransaction);
    expect(signed.unsigned).toEqual([]);
    expect(signed.feePayer).toBe(from);
    expect(
      ed25519.verify(
        base58.decode(signed.signature),
        parseSolanaTransaction(original).messageBytes,
        publicKey,
      ),
    ).toBe(true);
    const moved = solanaSendUnsignedTransaction({
      unsignedTransaction: signedTransaction,
      encoding: 'hex',
      recentBlockhash: base58.encode(new Uint8Array(32).fill(9)),
    });
    expect(signedSolanaTransaction(moved).unsigned).toEqual([from]);
    expect(
      hasPlaceholderBlockhash(parseTransaction('TRANSACTION_TYPE_SOLANA', moved) as never),
    ).toBe(false);
  });

  it('refuses what is not a Solana transaction of at most 1232 bytes, or a blockhash that is not 32 bytes of base58', () => {
    const from = addressOf(ed25519.getPublicKey(new Uint8Array(32).fill(1)));
    const good = base64.encode(transfer(from, PAYEE, PLACEHOLDER, 0));
    const refuse = (intent: Parameters<typeof solanaSendUnsignedTransaction>[0]) =>
      expect(() => solanaSendUnsignedTransaction(intent)).toThrow('failed to parse transaction');
    refuse({ unsignedTransaction: 'AAAA', encoding: 'base64' });
    refuse({ unsignedTransaction: '%%%', encoding: 'base64' });
    refuse({ unsignedTransaction: bytesToHex(new Uint8Array(1233)), encoding: 'hex' });
    refuse({ unsignedTransaction: good, encoding: 'base64', recentBlockhash: 'O0Il' });
    refuse({
      unsignedTransaction: good,
      encoding: 'base64',
      recentBlockhash: base58.encode(new Uint8Array(31).fill(5)),
    });
  });
});
