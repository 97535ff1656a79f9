/**
 * What CREATE_SMART_CONTRACT_INTERFACE checks before it stores anything: the address or
 * program id of the interface's type, and the ABI or IDL itself (`parseEthereumAbi`,
 * `parseSolanaIdl`). The address key is how SIGN_TRANSACTION finds the interface of a
 * transaction's contract: Ethereum addresses are case-insensitive (lower case), Solana
 * program ids are base58 and case-sensitive (as given).
 * @module
 */
import { base58 } from '@scure/base';
import { checksumEthereumAddress } from '../address.js';
import { parseEthereumAbi } from './ethereum-abi.js';
import { parseSolanaIdl } from './solana-idl.js';

/** The two interface types (`v1SmartContractInterfaceType`). */
export type ContractInterfaceType =
  | 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM'
  | 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA';

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

/**
 * Checks an uploaded interface of its type (see `parseEthereumAbi` and `parseSolanaIdl`).
 * @example
 * checkContractInterface('SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', JSON.stringify(abi));
 */
export function checkContractInterface(type: ContractInterfaceType, json: string): void {
  if (type === 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM') parseEthereumAbi(json);
  else parseSolanaIdl(json);
}
