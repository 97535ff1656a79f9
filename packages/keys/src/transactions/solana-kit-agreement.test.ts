import { bytesToHex } from '@noble/hashes/utils.js';
import {
  type Address,
  getAddressDecoder,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getCompiledTransactionMessageEncoder,
} from '@solana/kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTransaction } from './sign-transaction.js';
import type { ParsedSolanaTransaction } from './solana.js';

/**
 * solana.ts composes kit's codecs instead of calling getCompiledTransactionMessageDecoder (see
 * the README); this keeps the two in agreement: messages kit's own encoder writes read the same
 * through both, so a change of layout in kit shows here.
 */
describe('TRANSACTION_TYPE_SOLANA: agrees with getCompiledTransactionMessageDecoder', () => {
  const address = fc
    .uint8Array({ minLength: 32, maxLength: 32 })
    .map((b) => getAddressDecoder().decode(b));
  const message = fc
    .record({
      v0: fc.boolean(),
      signers: fc.integer({ min: 1, max: 4 }),
      readonlySigners: fc.nat(3),
      unsigned: fc.integer({ min: 1, max: 5 }),
      readonlyUnsigned: fc.nat(5),
      keys: fc.array(address, { minLength: 9, maxLength: 9 }),
      blockhash: fc.uint8Array({ minLength: 32, maxLength: 32 }),
      instructions: fc.array(
        fc.record({
          program: fc.nat(),
          accounts: fc.array(fc.nat(), { maxLength: 300 }),
          data: fc.uint8Array({ maxLength: 300 }),
        }),
        { maxLength: 4 },
      ),
      lookups: fc.array(
        fc.record({
          table: address,
          writable: fc.array(fc.nat(255), { minLength: 1, maxLength: 3 }),
          readonly: fc.array(fc.nat(255), { maxLength: 3 }),
        }),
        { maxLength: 2 },
      ),
    })
    .map((m) => {
      const count = m.signers + m.unsigned;
      const lookups = m.v0 ? m.lookups : [];
      const total = count + lookups.reduce((n, l) => n + l.writable.length + l.readonly.length, 0);
      return {
        version: m.v0 ? (0 as const) : ('legacy' as const),
        header: {
          numSignerAccounts: m.signers,
          numReadonlySignerAccounts: Math.min(m.readonlySigners, m.signers - 1),
          numReadonlyNonSignerAccounts: Math.min(m.readonlyUnsigned, m.unsigned),
        },
        staticAccounts: m.keys.slice(0, count) as Address[],
        lifetimeToken: getBase58Decoder().decode(m.blockhash),
        instructions: m.instructions.map((i) => ({
          programAddressIndex: 1 + (i.program % (count - 1 || 1)),
          accountIndices: i.accounts.map((a) => a % total),
          data: i.data,
        })),
        ...(m.v0
          ? {
              addressTableLookups: lookups.map((l) => ({
                lookupTableAddress: l.table as Address,
                writableIndexes: l.writable,
                readonlyIndexes: l.readonly,
              })),
            }
          : {}),
      };
    })
    .filter((m) => m.staticAccounts.length > 1);

  it('same header, keys, blockhash, instructions and lookups (property)', () => {
    fc.assert(
      fc.property(message, (compiled) => {
        const bytes = getCompiledTransactionMessageEncoder().encode(compiled);
        const kit = getCompiledTransactionMessageDecoder().decode(bytes);
        const ours = parseTransaction(
          'TRANSACTION_TYPE_SOLANA',
          bytesToHex(Uint8Array.from(bytes)),
        );
        const { message, view } = ours as ParsedSolanaTransaction;
        if (kit.version !== 'legacy' && kit.version !== 0) throw new Error('unexpected version');
        expect(message.version).toBe(kit.version);
        expect(message.header).toEqual({
          numRequiredSignatures: kit.header.numSignerAccounts,
          numReadonlySignedAccounts: kit.header.numReadonlySignerAccounts,
          numReadonlyUnsignedAccounts: kit.header.numReadonlyNonSignerAccounts,
        });
        expect(view.account_keys).toEqual(kit.staticAccounts);
        expect(view.recent_blockhash).toBe(kit.lifetimeToken);
        expect(
          message.instructions.map((i) => [i.programIdIndex, i.accountIndexes, bytesToHex(i.data)]),
        ).toEqual(
          kit.instructions.map((i) => [
            i.programAddressIndex,
            i.accountIndices ?? [],
            bytesToHex(Uint8Array.from(i.data ?? [])),
          ]),
        );
        const lookups = kit.version === 0 ? (kit.addressTableLookups ?? []) : [];
        expect(
          view.address_table_lookups.map((l) => [
            l.address_table_key,
            l.writable_indexes.map(Number),
            l.readonly_indexes.map(Number),
          ]),
        ).toEqual(
          lookups.map((l) => [
            l.lookupTableAddress,
            [...l.writableIndexes],
            [...l.readonlyIndexes],
          ]),
        );
      }),
      { numRuns: 200 },
    );
  });
});
