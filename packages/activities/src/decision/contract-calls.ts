/**
 * The decoded contract call of an Ethereum transaction, for its condition context: with an ABI
 * uploaded for the transaction's `to` (CREATE_SMART_CONTRACT_INTERFACE), `eth.tx` gains
 * `function_name`, `function_signature` and `contract_call_args`; without one, or when the
 * call data names no function of the ABI or does not decode, they stay absent, so a policy
 * reading them gets a `missing` error and cannot match (an ALLOW grants nothing).
 *
 * The ABI was checked when it was uploaded and the decoder bounds its work (see
 * `ethereum-abi.ts` of `@keyhold/keys`); parsed ABIs are kept in a small cache keyed by the
 * interface's id and content, so a signing request does not parse 400 KiB of JSON each time.
 * @module
 */
import {
  ContractInterfaceError,
  decodeEthereumCall,
  type EthereumAbi,
  type EthereumCallView,
  parseEthereumAbi,
} from '@keyhold/keys';
import type { StoreTransaction } from '../ports/store.js';
import type { SmartContractInterfaceRecord } from '../records.js';

const CACHE_ENTRIES = 128;
const parsed = new Map<string, EthereumAbi | null>();

/** The ABI of a stored interface (null: it no longer checks), cached by id and content. */
function abiOf(record: SmartContractInterfaceRecord): EthereumAbi | null {
  const key = `${record.organizationId}/${record.smartContractInterfaceId}/${record.smartContractInterface.length}/${record.createdAt}`;
  const hit = parsed.get(key);
  if (hit !== undefined && parsed.delete(key)) {
    parsed.set(key, hit);
    return hit;
  }
  let abi: EthereumAbi | null;
  try {
    abi = parseEthereumAbi(record.smartContractInterface);
  } catch (error) {
    if (!(error instanceof ContractInterfaceError)) throw error;
    abi = null;
  }
  parsed.set(key, abi);
  if (parsed.size > CACHE_ENTRIES) parsed.delete(parsed.keys().next().value as string);
  return abi;
}

/**
 * The decoded call of a transaction to `to` with call data `data`, by the organization's ABI
 * for that address; `undefined` when there is none or it does not decode.
 * @example
 * const call = await decodedContractCall(tx, organizationId, view.to, view.data);
 * call?.function_name; // 'transfer'
 */
export async function decodedContractCall(
  tx: StoreTransaction,
  organizationId: string,
  to: string | undefined,
  data: string,
): Promise<EthereumCallView | undefined> {
  if (to === undefined || data.length < 10) return undefined;
  const record = await tx.smartContractInterfaces.findByAddress(
    organizationId,
    'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
    to.toLowerCase(),
  );
  if (!record) return undefined;
  const abi = abiOf(record);
  return abi ? decodeEthereumCall(abi, data) : undefined;
}
