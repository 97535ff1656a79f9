/**
 * Ethereum ABIs (SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM): checked when uploaded, then used to
 * decode the call data of a transaction to the contract into what policies read as
 * `eth.tx.function_name`, `eth.tx.function_signature` and `eth.tx.contract_call_args`.
 *
 * A tenant writes the ABI and whoever signs writes the call data, so both are hostile input and
 * the work is bounded twice:
 * - **The ABI** (`parseEthereumAbi`): JSON of at most 400 KiB, at most 4,096 items; parameter
 *   types from the ABI grammar only, tuples at most 8 deep with 1–64 components, at most 4 array
 *   dimensions of 1–1,024 items each (no zero-width type: every decoded value then consumes call
 *   data, so a decode cannot loop without reading), and no two functions with one selector.
 * - **The call data** (`decodeEthereumCall`): ox's decoder reads through a cursor that refuses
 *   to read outside the data and to re-read one position more than 8,192 times in all (the ABI
 *   offset-aliasing amplification), so the values decoded are bounded by the data's size (itself
 *   bounded by the transaction's) plus that limit; the result is at most `MAX_DECODED_VALUES`
 *   values or the call is left undecoded.
 *
 * What policies see: ints as bigint, addresses as lower-case hex (as `eth.tx.to`), `bytes` and
 * `bytesN` as lower-case `0x` hex, bools, strings, arrays as lists, tuples as maps of their
 * component names. Arguments are keyed by name (a nameless one by its position, `'0'`).
 * @module
 */
import * as AbiFunction from 'ox/AbiFunction';
import * as AbiParameters from 'ox/AbiParameters';
import * as Hex from 'ox/Hex';

/** The most bytes an uploaded ABI or IDL may have (the reference's 400 kB). */
export const CONTRACT_INTERFACE_MAX_BYTES = 409_600;
/** The most items (functions, events, errors …) one ABI may declare. */
export const ABI_MAX_ITEMS = 4096;
/** The most components of one tuple, and inputs of one function. */
export const ABI_MAX_COMPONENTS = 64;
/** The deepest tuple nesting. */
export const ABI_MAX_TUPLE_DEPTH = 8;
/** The most array dimensions of one type, and the most items of a fixed dimension. */
export const ABI_MAX_ARRAY_DIMENSIONS = 4;
export const ABI_MAX_FIXED_ARRAY_LENGTH = 1024;
/** The most values one decoded call may hold (every scalar, list and map counts one). */
export const MAX_DECODED_VALUES = 65_536;

/**
 * Why an uploaded interface was refused, in words (the handler puts it in the refusal's details).
 * @example
 * try { parseEthereumAbi('{}'); } catch (e) { if (e instanceof ContractInterfaceError) e.reason; }
 */
export class ContractInterfaceError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'ContractInterfaceError';
  }
}

const fail = (reason: string): never => {
  throw new ContractInterfaceError(reason);
};

/** One checked ABI parameter (ox's shape). */
interface AbiParameter {
  readonly name?: string;
  readonly type: string;
  readonly components?: readonly AbiParameter[];
}

/** One function of the ABI, with its selector. */
interface AbiFunctionEntry {
  readonly name: string;
  readonly selector: string;
  readonly item: AbiFunction.AbiFunction;
}

/**
 * A checked ABI: its functions by selector (`0x` and 8 lower-case hex digits).
 * @example
 * const abi = parseEthereumAbi(JSON.stringify(erc20Abi));
 * abi.functions.has('0xa9059cbb'); // true
 */
export interface EthereumAbi {
  readonly functions: ReadonlyMap<string, AbiFunctionEntry>;
}

/**
 * What `eth.tx` gains from a decoded call.
 * @example
 * const call: EthereumCallView = {
 *   function_name: 'transfer', function_signature: '0xa9059cbb',
 *   contract_call_args: { to: '0x08d2…', value: 1000n },
 * };
 */
export interface EthereumCallView {
  readonly function_name: string;
  readonly function_signature: string;
  readonly contract_call_args: Readonly<Record<string, unknown>>;
}

const ITEM_TYPES = new Set(['function', 'constructor', 'event', 'error', 'fallback', 'receive']);
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]{0,255}$/;
/** A base type and its array suffixes, e.g. `uint256[2][]`. */
const TYPE =
  /^(address|bool|string|bytes([1-9]|[12][0-9]|3[0-2])?|u?int(8|16|24|32|40|48|56|64|72|80|88|96|104|112|120|128|136|144|152|160|168|176|184|192|200|208|216|224|232|240|248|256)?|tuple)((\[[0-9]*\])*)$/;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function checkParameter(p: unknown, where: string, depth: number): AbiParameter {
  if (!isObject(p)) return fail(`${where} is not an object`);
  const { name, type, components } = p;
  if (name !== undefined && name !== '' && (typeof name !== 'string' || !IDENTIFIER.test(name))) {
    fail(`${where} has an invalid name`);
  }
  if (typeof type !== 'string') return fail(`${where} has no type`);
  const match = TYPE.exec(type);
  if (!match) return fail(`${where} has an unsupported type '${type.slice(0, 64)}'`);
  const dimensions = (match[4] ?? '').match(/\[[0-9]*\]/g) ?? [];
  if (dimensions.length > ABI_MAX_ARRAY_DIMENSIONS) {
    fail(`${where} has more than ${ABI_MAX_ARRAY_DIMENSIONS} array dimensions`);
  }
  for (const d of dimensions) {
    if (d === '[]') continue;
    const n = Number(d.slice(1, -1));
    if (!(n >= 1 && n <= ABI_MAX_FIXED_ARRAY_LENGTH) || d.startsWith('[0')) {
      fail(`${where} has a fixed array length outside 1–${ABI_MAX_FIXED_ARRAY_LENGTH}`);
    }
  }
  const checked: { name?: string; type: string; components?: AbiParameter[] } = { type };
  if (typeof name === 'string' && name !== '') checked.name = name;
  if (match[1] === 'tuple') {
    if (depth >= ABI_MAX_TUPLE_DEPTH)
      fail(`${where} nests tuples deeper than ${ABI_MAX_TUPLE_DEPTH}`);
    if (!Array.isArray(components) || components.length === 0) {
      fail(`${where} is a tuple without components`);
    }
    checked.components = checkParameters(components, `${where}.components`, depth + 1);
  } else if (components !== undefined && !(Array.isArray(components) && components.length === 0)) {
    fail(`${where} has components but is not a tuple`);
  }
  return checked;
}

function checkParameters(list: unknown, where: string, depth: number): AbiParameter[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) return fail(`${where} is not a list`);
  if (list.length > ABI_MAX_COMPONENTS)
    fail(`${where} has more than ${ABI_MAX_COMPONENTS} entries`);
  return list.map((p, i) => checkParameter(p, `${where}[${i}]`, depth));
}

/**
 * Checks an uploaded ABI (the JSON text) and indexes its functions by selector. Throws
 * `ContractInterfaceError` with the reason for anything outside the bounds above.
 * @example
 * const abi = parseEthereumAbi('[{"type":"function","name":"transfer","inputs":[{"name":"to","type":"address"},{"name":"value","type":"uint256"}]}]');
 */
export function parseEthereumAbi(json: string): EthereumAbi {
  if (new TextEncoder().encode(json).length > CONTRACT_INTERFACE_MAX_BYTES) {
    fail(`the ABI is over ${CONTRACT_INTERFACE_MAX_BYTES} bytes`);
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return fail('the ABI is not JSON');
  }
  if (!Array.isArray(value)) return fail('an ABI is a JSON array of items');
  if (value.length > ABI_MAX_ITEMS) fail(`the ABI has more than ${ABI_MAX_ITEMS} items`);
  const functions = new Map<string, AbiFunctionEntry>();
  for (const [i, item] of (value as unknown[]).entries()) {
    const where = `item ${i}`;
    if (!isObject(item)) fail(`${where} is not an object`);
    const entry = item as Record<string, unknown>;
    // Old ABIs leave `type` out for functions.
    const type = entry.type ?? 'function';
    if (typeof type !== 'string' || !ITEM_TYPES.has(type)) fail(`${where} has an unknown type`);
    const inputs = checkParameters(entry.inputs, `${where}.inputs`, 0);
    checkParameters(entry.outputs, `${where}.outputs`, 0);
    if (type !== 'function') continue;
    const { name } = entry;
    if (typeof name !== 'string' || !IDENTIFIER.test(name)) {
      return fail(`${where} has no valid name`);
    }
    const abiFunction = {
      type: 'function',
      name,
      inputs,
      outputs: [],
      stateMutability: 'nonpayable',
    } as unknown as AbiFunction.AbiFunction;
    const selector = AbiFunction.getSelector(abiFunction).toLowerCase();
    if (functions.has(selector)) {
      fail(`${where} (${name}) has the selector ${selector} of another function`);
    }
    functions.set(selector, { name, selector, item: abiFunction });
  }
  return { functions };
}

/** Counts decoded values, refusing past MAX_DECODED_VALUES. */
class Budget {
  left = MAX_DECODED_VALUES;
  spend(): void {
    if (--this.left < 0) throw new ContractInterfaceError('too many decoded values');
  }
}

/** ox's decoded value → what policies read (see the module comment). */
function policyValue(parameter: AbiParameter, value: unknown, budget: Budget): unknown {
  budget.spend();
  const arrayMatch = /^(.*)\[[0-9]*\]$/.exec(parameter.type);
  if (arrayMatch) {
    const element = { ...parameter, type: arrayMatch[1]! };
    return (value as readonly unknown[]).map((v) => policyValue(element, v, budget));
  }
  if (parameter.type === 'tuple') {
    const out: Record<string, unknown> = {};
    const components = parameter.components ?? [];
    const values = value as Record<string, unknown> | readonly unknown[];
    components.forEach((c, i) => {
      const v = Array.isArray(values)
        ? values[i]
        : (values as Record<string, unknown>)[c.name ?? String(i)];
      out[c.name ?? String(i)] = policyValue(c, v, budget);
    });
    return out;
  }
  if (typeof value === 'string') {
    // address, bytes, bytesN as hex; string as it is.
    return parameter.type === 'string' ? value : value.toLowerCase();
  }
  if (typeof value === 'number') return BigInt(value);
  return value;
}

/**
 * Decodes call data with a checked ABI: the function its selector names and its arguments.
 * `undefined` when the data is shorter than a selector, names no function of the ABI, or does
 * not decode as that function's inputs (policies reading the fields then get a `missing` error).
 * @example
 * decodeEthereumCall(abi, '0xa9059cbb000…'); // { function_name: 'transfer', … }
 */
export function decodeEthereumCall(abi: EthereumAbi, data: string): EthereumCallView | undefined {
  if (!/^0x([0-9a-fA-F]{2}){4,}$/.test(data)) return undefined;
  const selector = data.slice(0, 10).toLowerCase();
  const entry = abi.functions.get(selector);
  if (!entry) return undefined;
  const inputs = entry.item.inputs as readonly AbiParameter[];
  try {
    const values = AbiParameters.decode(
      inputs as AbiParameters.AbiParameters,
      Hex.slice(data as Hex.Hex, 4),
      { checksumAddress: false },
    ) as readonly unknown[];
    const budget = new Budget();
    const args: Record<string, unknown> = {};
    inputs.forEach((p, i) => {
      args[p.name ?? String(i)] = policyValue(p, values[i], budget);
    });
    return {
      function_name: entry.name,
      function_signature: selector,
      contract_call_args: args,
    };
  } catch {
    return undefined;
  }
}
