/**
 * What CREATE_SMART_CONTRACT_INTERFACE checks before it stores anything: the address or
 * program id of the interface's type, and the ABI or IDL itself (`parseEthereumAbi`,
 * `checkSolanaIdl`). The address key is how SIGN_TRANSACTION finds the interface of a
 * transaction's contract: Ethereum addresses are case-insensitive (lower case), Solana
 * program ids are base58 and case-sensitive (as given).
 * @module
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';
import { checksumEthereumAddress } from '../address.js';
import {
  CONTRACT_INTERFACE_MAX_BYTES,
  ContractInterfaceError,
  parseEthereumAbi,
} from './ethereum-abi.js';

/** The two interface types (`v1SmartContractInterfaceType`). */
export type ContractInterfaceType =
  | 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM'
  | 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA';

/** The most instructions, accounts or args (per instruction) and types one IDL may declare. */
export const IDL_MAX_ENTRIES = 1024;

/**
 * The lookup key of an interface's address, or `undefined` when it is not an address of the
 * type: an Ethereum address (`0x` and 40 hex digits; a mixed-case one must be its EIP-55
 * checksum) in lower case, or a Solana program id (base58 of 32 bytes) as given.
 * @example
 * contractAddressKey('SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', '0xC02a…'); // '0xc02a…'
 */
export function contractAddressKey(
  type: ContractInterfaceType,
  address: string,
): string | undefined {
  if (type === 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM') {
    if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return undefined;
    const lower = address.toLowerCase();
    const mixed =
      address.slice(2) !== lower.slice(2) && address.slice(2) !== address.slice(2).toUpperCase();
    if (mixed && checksumEthereumAddress(lower) !== address) return undefined;
    return lower;
  }
  try {
    return base58.decode(address).length === 32 ? address : undefined;
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks an uploaded Solana IDL (Anchor's format, new or legacy): a JSON object whose
 * `instructions` is a non-empty list of `{name, accounts?, args?}` with names and bounded
 * lists, and whose explicit discriminators (when given) are byte lists. Throws
 * `ContractInterfaceError` with the reason.
 * @example
 * checkSolanaIdl('{"instructions":[{"name":"initialize","accounts":[],"args":[]}]}');
 */
export function checkSolanaIdl(json: string): void {
  if (utf8ToBytes(json).length > CONTRACT_INTERFACE_MAX_BYTES) {
    throw new ContractInterfaceError(`the IDL is over ${CONTRACT_INTERFACE_MAX_BYTES} bytes`);
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new ContractInterfaceError('the IDL is not JSON');
  }
  if (!isObject(value)) throw new ContractInterfaceError('an IDL is a JSON object');
  const { instructions, types } = value;
  if (!Array.isArray(instructions) || instructions.length === 0) {
    throw new ContractInterfaceError('the IDL has no instructions');
  }
  const bounded = (list: unknown, where: string) => {
    if (list === undefined) return;
    if (!Array.isArray(list)) throw new ContractInterfaceError(`${where} is not a list`);
    if (list.length > IDL_MAX_ENTRIES) {
      throw new ContractInterfaceError(`${where} has more than ${IDL_MAX_ENTRIES} entries`);
    }
  };
  bounded(instructions, 'instructions');
  bounded(types, 'types');
  const discriminators = new Set<string>();
  instructions.forEach((instruction: unknown, i) => {
    const where = `instruction ${i}`;
    if (!isObject(instruction) || typeof instruction.name !== 'string' || !instruction.name) {
      throw new ContractInterfaceError(`${where} has no name`);
    }
    bounded(instruction.accounts, `${where}.accounts`);
    bounded(instruction.args, `${where}.args`);
    const { discriminator } = instruction;
    const bytes =
      discriminator === undefined
        ? sha256(utf8ToBytes(`global:${instruction.name}`)).subarray(0, 8)
        : discriminator;
    if (
      !(Array.isArray(bytes) || bytes instanceof Uint8Array) ||
      bytes.length === 0 ||
      bytes.length > 32 ||
      ![...bytes].every((b) => Number.isInteger(b) && b >= 0 && b <= 255)
    ) {
      throw new ContractInterfaceError(`${where} has an invalid discriminator`);
    }
    const key = bytesToHex(Uint8Array.from(bytes as number[]));
    if (discriminators.has(key)) {
      throw new ContractInterfaceError(`${where} has the discriminator of another instruction`);
    }
    discriminators.add(key);
  });
}

/**
 * Checks an uploaded interface of its type (see `parseEthereumAbi` and `checkSolanaIdl`).
 * @example
 * checkContractInterface('SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', JSON.stringify(abi));
 */
export function checkContractInterface(type: ContractInterfaceType, json: string): void {
  if (type === 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM') parseEthereumAbi(json);
  else checkSolanaIdl(json);
}
