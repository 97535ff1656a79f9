import { describe, expect, it } from 'vitest';
import { decodeRevert } from './revert-chain.js';

const to = '0x036cbd53842c5426634e7929541ec2318f3dcf7e';
/** ABI: a 32-byte word of `n`. */
const word = (n: number | bigint) => BigInt(n).toString(16).padStart(64, '0');
/** Error(string) revert data, encoded by hand as solc does. */
function errorString(message: string): string {
  const bytes = Buffer.from(message, 'utf8');
  const padded = bytes.toString('hex').padEnd(Math.ceil(bytes.length / 32) * 64, '0');
  return `0x08c379a0${word(32)}${word(bytes.length)}${padded}`;
}

describe('decodeRevert', () => {
  it('Error(string): native error_string with the message', () => {
    expect(decodeRevert(to, errorString('ERC20: transfer amount exceeds balance'))).toEqual({
      address: to,
      errorType: 'native',
      displayMessage: 'execution reverted: ERC20: transfer amount exceeds balance',
      native: { nativeType: 'error_string', message: 'ERC20: transfer amount exceeds balance' },
    });
    expect(decodeRevert(to, errorString('')).native?.message).toBe('');
    expect(decodeRevert(to, errorString('déjà vu ✓')).native?.message).toBe('déjà vu ✓');
  });

  it('Panic(uint256): native panic with the code and its meaning', () => {
    expect(decodeRevert(to, `0x4e487b71${word(0x11)}`)).toEqual({
      address: to,
      errorType: 'native',
      displayMessage: 'panic: arithmetic overflow or underflow (0x11)',
      native: { nativeType: 'panic', panicCode: '17' },
    });
    expect(decodeRevert(to, `0x4e487b71${word(0x99)}`).displayMessage).toBe(
      'panic: unknown panic code (0x99)',
    );
  });

  it('no data: native execution_reverted', () => {
    for (const data of [undefined, '0x', '']) {
      expect(decodeRevert(to, data)).toEqual({
        address: to,
        errorType: 'native',
        displayMessage: 'execution reverted',
        native: { nativeType: 'execution_reverted' },
      });
    }
  });

  it('a custom error or damaged data: unknown, with the selector and the data', () => {
    // InsufficientBalance(uint256,uint256) — a custom error needs the ABI Keyhold lacks.
    const custom = `0xcf479181${word(1)}${word(2)}`;
    expect(decodeRevert(to, custom)).toEqual({
      address: to,
      errorType: 'unknown',
      displayMessage: 'execution reverted with unknown error 0xcf479181',
      unknown: { selector: '0xcf479181', data: custom },
    });
    // An Error(string) whose length runs past the data is not trusted as one.
    const truncated = `0x08c379a0${word(32)}${word(100)}${'68656c6c6f'.padEnd(64, '0')}`;
    expect(decodeRevert(to, truncated).errorType).toBe('unknown');
    // Invalid UTF-8 in the message: unknown, never a mangled string.
    const badUtf8 = `0x08c379a0${word(32)}${word(1)}${'ff'.padEnd(64, '0')}`;
    expect(decodeRevert(to, badUtf8).errorType).toBe('unknown');
    // A panic with a short word.
    expect(decodeRevert(to, '0x4e487b7100').errorType).toBe('unknown');
  });
});
