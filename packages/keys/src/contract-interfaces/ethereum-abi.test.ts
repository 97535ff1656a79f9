import fc from 'fast-check';
import * as AbiFunction from 'ox/AbiFunction';
import { describe, expect, it } from 'vitest';
import {
  ContractInterfaceError,
  decodeEthereumCall,
  MAX_DECODED_VALUES,
  parseEthereumAbi,
} from './ethereum-abi.js';

const ERC20 = [
  {
    type: 'function',
    name: 'transfer',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'value', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'bool' }],
    stateMutability: 'nonpayable',
  },
  {
    type: 'function',
    name: 'approve',
    inputs: [
      { name: 'spender', type: 'address' },
      { name: 'value', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'bool' }],
    stateMutability: 'nonpayable',
  },
  {
    type: 'event',
    name: 'Transfer',
    inputs: [
      { name: 'from', type: 'address', indexed: true },
      { name: 'to', type: 'address', indexed: true },
      { name: 'value', type: 'uint256', indexed: false },
    ],
    anonymous: false,
  },
] as const;

const reasonOf = (json: string) => {
  try {
    parseEthereumAbi(json);
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(ContractInterfaceError);
    return (e as ContractInterfaceError).reason;
  }
};

describe('parseEthereumAbi', () => {
  it('indexes the functions of an ERC-20 ABI by selector', () => {
    const abi = parseEthereumAbi(JSON.stringify(ERC20));
    expect([...abi.functions.keys()]).toEqual(['0xa9059cbb', '0x095ea7b3']);
  });

  it('refuses what is not an ABI, and what is outside the bounds', () => {
    expect(reasonOf('{')).toBe('the ABI is not JSON');
    expect(reasonOf('{}')).toBe('an ABI is a JSON array of items');
    expect(reasonOf('[{"type":"function","inputs":[]}]')).toBe('item 0 has no valid name');
    expect(reasonOf('[{"type":"banana"}]')).toBe('item 0 has an unknown type');
    const fn = (type: string, components?: unknown) =>
      JSON.stringify([{ type: 'function', name: 'f', inputs: [{ name: 'a', type, components }] }]);
    expect(reasonOf(fn('uint7'))).toMatch(/unsupported type 'uint7'/);
    expect(reasonOf(fn('uint256[0]'))).toMatch(/fixed array length/);
    expect(reasonOf(fn('uint256[1025]'))).toMatch(/fixed array length/);
    expect(reasonOf(fn('uint256[][][][][]'))).toMatch(/array dimensions/);
    expect(reasonOf(fn('tuple', []))).toMatch(/tuple without components/);
    let deep: unknown = [{ name: 'x', type: 'uint8' }];
    for (let i = 0; i < 9; i++) deep = [{ name: 'x', type: 'tuple', components: deep }];
    expect(reasonOf(fn('tuple', deep))).toMatch(/deeper than 8/);
    expect(reasonOf('1'.repeat(409_601))).toMatch(/over 409600 bytes/);
    // Two functions with one selector (a collision an attacker can mine).
    expect(
      reasonOf(
        JSON.stringify([
          { type: 'function', name: 'transfer', inputs: ERC20[0].inputs },
          { type: 'function', name: 'transfer', inputs: ERC20[0].inputs },
        ]),
      ),
    ).toMatch(/selector 0xa9059cbb of another function/);
  });
});

describe('decodeEthereumCall', () => {
  const abi = parseEthereumAbi(JSON.stringify(ERC20));
  const to = '0x08d2b0a37F869FF76BACB5Bab3278E26ab7067B7';

  it('decodes a transfer into the name, the selector and the named arguments', () => {
    const data = AbiFunction.encodeData(AbiFunction.fromAbi(ERC20, 'transfer'), [to, 5n]);
    expect(decodeEthereumCall(abi, data)).toEqual({
      function_name: 'transfer',
      function_signature: '0xa9059cbb',
      contract_call_args: { to: to.toLowerCase(), value: 5n },
    });
  });

  it('leaves out what it cannot decode', () => {
    expect(decodeEthereumCall(abi, '0x')).toBeUndefined();
    expect(decodeEthereumCall(abi, '0xa9059c')).toBeUndefined();
    expect(decodeEthereumCall(abi, '0xdeadbeef')).toBeUndefined();
    expect(decodeEthereumCall(abi, '0xa9059cbb0000')).toBeUndefined();
  });

  it('decodes tuples, arrays and bytes as maps, lists and hex', () => {
    const item = {
      type: 'function',
      name: 'execute',
      inputs: [
        {
          name: 'calls',
          type: 'tuple[]',
          components: [
            { name: 'target', type: 'address' },
            { name: 'data', type: 'bytes' },
          ],
        },
        { name: 'flag', type: 'bool' },
        { name: '', type: 'int8' },
      ],
      outputs: [],
      stateMutability: 'nonpayable',
    } as const;
    const data = AbiFunction.encodeData(AbiFunction.from(item), [
      [{ target: to, data: '0xABCD' }],
      true,
      -3,
    ]);
    const decoded = decodeEthereumCall(parseEthereumAbi(JSON.stringify([item])), data);
    expect(decoded?.contract_call_args).toEqual({
      calls: [{ target: to.toLowerCase(), data: '0xabcd' }],
      flag: true,
      '2': -3n,
    });
  });

  it('bounds the work of hostile call data (property)', () => {
    // Nested dynamic arrays whose offsets alias one another: the decode either fails or stays
    // within the value budget, and never takes long.
    const nested = parseEthereumAbi(
      JSON.stringify([
        { type: 'function', name: 'f', inputs: [{ name: 'a', type: 'uint256[][][]' }] },
      ]),
    );
    const selector = AbiFunction.getSelector(AbiFunction.from('function f(uint256[][][] a)')).slice(
      2,
    );
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(0n, 1n, 32n, 64n, 96n, 255n, 2n ** 16n, 2n ** 255n), {
          minLength: 1,
          maxLength: 64,
        }),
        (words) => {
          const body = words.map((w) => w.toString(16).padStart(64, '0')).join('');
          const started = performance.now();
          const decoded = decodeEthereumCall(nested, `0x${selector}${body}`);
          expect(performance.now() - started).toBeLessThan(1000);
          if (decoded) {
            const count = JSON.stringify(decoded.contract_call_args, (_, v) =>
              typeof v === 'bigint' ? 0 : v,
            ).length;
            expect(count).toBeLessThan(MAX_DECODED_VALUES * 8);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
