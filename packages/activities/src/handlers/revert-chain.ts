/**
 * A revert's data, decoded into the wire's RevertEntry (`address`, `errorType`,
 * `displayMessage`, and one of `native{nativeType, message, panicCode}`,
 * `custom{errorName, paramsJson}`, `unknown{selector, data}`): Solidity's `Error(string)`
 * (`nativeType` `error_string`), `Panic(uint256)` (`panic`, with the compiler's meaning of the
 * code), empty data (`execution_reverted`), and anything else `unknown` with its selector — a
 * custom error needs the contract's ABI, which Keyhold does not have.
 *
 * Keyhold reads the revert of the outermost call (an `eth_call` replay): the chain is one entry.
 * Nested frames would need a tracing node (`debug_traceTransaction`), which `--evm-rpc` does
 * not require.
 * @module
 */

/**
 * One entry of a revert chain, as `get_send_transaction_status` answers it.
 * @example
 * const entry: RevertEntry = { address: '0x…', errorType: 'native', displayMessage: 'reverted: not enough', native: { nativeType: 'error_string', message: 'not enough' } };
 */
export interface RevertEntry {
  address: string;
  errorType: 'native' | 'custom' | 'unknown';
  displayMessage: string;
  native?: { nativeType: string; message?: string; panicCode?: string };
  custom?: { errorName: string; paramsJson: string };
  unknown?: { selector: string; data: string };
}

const ERROR_STRING = '08c379a0';
const PANIC = '4e487b71';

/** The compiler's panic codes (Solidity docs, "Panic via assert and Error via require"). */
const PANIC_MEANING: Readonly<Record<number, string>> = {
  0: 'generic compiler panic',
  1: 'assertion failed',
  17: 'arithmetic overflow or underflow',
  18: 'division or modulo by zero',
  33: 'invalid enum value',
  34: 'incorrectly encoded storage byte array',
  49: 'pop on an empty array',
  50: 'array index out of bounds',
  65: 'out of memory',
  81: 'call to a zero-initialized function',
};

/** The ABI-encoded `string` at the start of `body` (hex without 0x), or undefined. */
function abiString(body: string): string | undefined {
  try {
    const offset = Number.parseInt(body.slice(0, 64), 16) * 2;
    const length = Number.parseInt(body.slice(offset, offset + 64), 16) * 2;
    const bytes = body.slice(offset + 64, offset + 64 + length);
    if (bytes.length !== length) return undefined;
    const raw = new Uint8Array(bytes.match(/../g)?.map((b) => Number.parseInt(b, 16)) ?? []);
    return new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    return undefined;
  }
}

/**
 * Decodes revert data (`0x…`, or undefined when the node gave none) of a call to `address`.
 * @example
 * decodeRevert('0x…', '0x08c379a0…').native?.message; // 'not enough'
 */
export function decodeRevert(address: string, data: string | undefined): RevertEntry {
  const hex = (data ?? '0x').replace(/^0x/i, '').toLowerCase();
  const selector = hex.slice(0, 8);
  if (hex.length === 0) {
    return {
      address,
      errorType: 'native',
      displayMessage: 'execution reverted',
      native: { nativeType: 'execution_reverted' },
    };
  }
  if (selector === ERROR_STRING) {
    const message = abiString(hex.slice(8));
    if (message !== undefined) {
      return {
        address,
        errorType: 'native',
        displayMessage: `execution reverted: ${message}`,
        native: { nativeType: 'error_string', message },
      };
    }
  }
  if (selector === PANIC && hex.length === 8 + 64) {
    const code = BigInt(`0x${hex.slice(8)}`);
    const meaning = PANIC_MEANING[Number(code)] ?? 'unknown panic code';
    return {
      address,
      errorType: 'native',
      displayMessage: `panic: ${meaning} (0x${code.toString(16).padStart(2, '0')})`,
      native: { nativeType: 'panic', panicCode: code.toString() },
    };
  }
  return {
    address,
    errorType: 'unknown',
    displayMessage: `execution reverted with unknown error 0x${selector}`,
    unknown: { selector: `0x${selector}`, data: `0x${hex}` },
  };
}
