import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ContractInterfaceError } from './ethereum-abi.js';
import { decodeSolanaInstruction, parseSolanaIdl } from './solana-idl.js';

const u64le = (v: bigint) =>
  Array.from({ length: 8 }, (_, i) => Number((v >> BigInt(8 * i)) & 0xffn));
const u32le = (v: number) => [v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >>> 24) & 0xff];

// The Anchor 0.30 shape: explicit discriminators, pubkey, {defined: {name}}.
const IDL = {
  address: 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4',
  instructions: [
    {
      name: 'route',
      discriminator: [229, 23, 203, 151, 122, 227, 173, 42],
      accounts: [
        { name: 'user', signer: true },
        { name: 'group', accounts: [{ name: 'source', writable: true }, { name: 'mint' }] },
      ],
      args: [
        { name: 'in_amount', type: 'u64' },
        { name: 'route_plan', type: { vec: { defined: { name: 'Step' } } } },
        { name: 'memo', type: { option: 'string' } },
        { name: 'owner', type: 'pubkey' },
        { name: 'side', type: { defined: { name: 'Side' } } },
      ],
    },
  ],
  types: [
    {
      name: 'Step',
      type: {
        kind: 'struct',
        fields: [
          { name: 'percent', type: 'u8' },
          { name: 'delta', type: 'i16' },
        ],
      },
    },
    {
      name: 'Side',
      type: { kind: 'enum', variants: [{ name: 'Bid' }, { name: 'Ask', fields: ['u32'] }] },
    },
    {
      name: 'Loop',
      type: { kind: 'struct', fields: [{ name: 'next', type: { defined: { name: 'Loop' } } }] },
    },
    { name: 'Empty', type: { kind: 'struct', fields: [] } },
  ],
};

describe('parseSolanaIdl and decodeSolanaInstruction', () => {
  const idl = parseSolanaIdl(JSON.stringify(IDL));
  const owner = new Uint8Array(32).fill(7);

  it('decodes an instruction: name, discriminator, named accounts (groups flattened), Borsh arguments', () => {
    const data = Uint8Array.from([
      ...IDL.instructions[0]!.discriminator,
      ...u64le(995_500_000n),
      ...u32le(2),
      50,
      0xff,
      0xff, // percent 50, delta -1
      50,
      1,
      0,
      1,
      ...u32le(2),
      ...utf8ToBytes('hi'),
      ...owner,
      1,
      ...u32le(9),
    ]);
    expect(decodeSolanaInstruction(idl, data, ['U', 'S', undefined])).toEqual({
      instruction_name: 'route',
      discriminator: 'e517cb977ae3ad2a',
      named_accounts: { user: 'U', source: 'S' },
      named_account: { user: 'U', source: 'S' },
      program_call_args: {
        in_amount: 995_500_000n,
        route_plan: [
          { percent: 50n, delta: -1n },
          { percent: 50n, delta: 1n },
        ],
        memo: 'hi',
        owner: base58.encode(owner),
        side: { Ask: [9n] },
      },
    });
  });

  it('derives legacy discriminators from the snake_case name', () => {
    const legacy = parseSolanaIdl(
      JSON.stringify({
        version: '0.1.0',
        name: 'demo',
        instructions: [
          {
            name: 'initializeVault',
            accounts: [{ name: 'authority', isMut: false, isSigner: true }],
            args: [
              { name: 'amount', type: 'u64' },
              { name: 'who', type: 'publicKey' },
            ],
          },
        ],
      }),
    );
    const disc = sha256(utf8ToBytes('global:initialize_vault')).subarray(0, 8);
    const decoded = decodeSolanaInstruction(
      legacy,
      Uint8Array.from([...disc, ...u64le(5n), ...owner]),
      ['A'],
    );
    expect(decoded?.instruction_name).toBe('initializeVault');
    expect(decoded?.program_call_args).toEqual({ amount: 5n, who: base58.encode(owner) });
  });

  it('leaves out what does not decode', () => {
    expect(decodeSolanaInstruction(idl, Uint8Array.from([1, 2, 3]), [])).toBeUndefined();
    const truncated = Uint8Array.from([...IDL.instructions[0]!.discriminator, 1, 2]);
    expect(decodeSolanaInstruction(idl, truncated, [])).toBeUndefined();
  });

  it('refuses IDLs that are not, or that are outside the bounds', () => {
    const reason = (json: string) => {
      try {
        parseSolanaIdl(json);
      } catch (e) {
        expect(e).toBeInstanceOf(ContractInterfaceError);
        return (e as ContractInterfaceError).reason;
      }
      return undefined;
    };
    expect(reason('[')).toBe('the IDL is not JSON');
    expect(reason('[]')).toBe('an IDL is a JSON object');
    expect(reason('{"instructions":[]}')).toBe('the IDL has no instructions');
    expect(reason('{"instructions":[{"accounts":[]}]}')).toBe('instruction 0 has no name');
    expect(reason('{"instructions":[{"name":"a","discriminator":[256]}]}')).toMatch(
      /discriminator/,
    );
    expect(
      reason(
        '{"instructions":[{"name":"a","discriminator":[1]},{"name":"b","discriminator":[1]}]}',
      ),
    ).toMatch(/discriminator of another instruction/);
    expect(
      reason(
        JSON.stringify({
          instructions: [{ name: 'a', args: Array(1025).fill({ name: 'x', type: 'u8' }) }],
        }),
      ),
    ).toMatch(/more than 1024/);
  });

  it('bounds the work of hostile data: recursive types, huge vectors of empty structs (property)', () => {
    const hostile = parseSolanaIdl(
      JSON.stringify({
        instructions: [
          {
            name: 'loop',
            discriminator: [1],
            args: [{ name: 'l', type: { defined: { name: 'Loop' } } }],
          },
          {
            name: 'empties',
            discriminator: [2],
            args: [{ name: 'v', type: { vec: { vec: { defined: { name: 'Empty' } } } } }],
          },
        ],
        types: IDL.types,
      }),
    );
    expect(decodeSolanaInstruction(hostile, Uint8Array.from([1]), [])).toBeUndefined();
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 64 }), (tail) => {
        const started = performance.now();
        const decoded = decodeSolanaInstruction(hostile, Uint8Array.from([2, ...tail]), []);
        expect(performance.now() - started).toBeLessThan(1000);
        if (decoded) {
          const values = JSON.stringify(decoded.program_call_args).length;
          expect(values).toBeLessThan(65_536 * 4);
        }
      }),
      { numRuns: 100 },
    );
    // 0xffffffff empty structs: stopped by the value budget, not looped.
    expect(
      decodeSolanaInstruction(hostile, Uint8Array.from([2, ...u32le(1), ...u32le(0xffffffff)]), []),
    ).toBeUndefined();
  });
});
