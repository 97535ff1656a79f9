/**
 * The decoded contract call of an Ethereum transaction, for its condition context: with an ABI
 * uploaded for the transaction's `to` (CREATE_SMART_CONTRACT_INTERFACE), `eth.tx` gains
 * `function_name`, `function_signature` and `contract_call_args`; without one, or when the
 * call data names no function of the ABI or does not decode, they stay absent, so a policy
 * reading them gets a `missing` error and cannot match (an ALLOW grants nothing).
 *
 * Likewise a Solana transaction's instructions gain `parsed_instruction_data` when their
 * program's IDL is uploaded (`withDecodedInstructions`).
 *
 * The ABI was checked when it was uploaded and the decoder bounds its work (see
 * `ethereum-abi.ts` of `@keyhold/keys`); parsed ABIs are kept in a small cache keyed by the
 * interface's id and content, so a signing request does not parse 400 KiB of JSON each time.
 * @module
 */
import {
  ContractInterfaceError,
  decodeEthereumCall,
  decodeSolanaInstruction,
  type EthereumAbi,
  type EthereumCallView,
  MAX_DECODED_VALUES,
  parseEthereumAbi,
  parseSolanaIdl,
  type SolanaIdl,
  type SolanaTransactionView,
} from '@keyhold/keys';
import { hexToBytes } from '@noble/hashes/utils.js';
import { LRUCache } from 'lru-cache';
import type { StoreTransaction } from '../ports/store.js';
import type { SmartContractInterfaceRecord } from '../records.js';

/** Parsed interfaces (null: a stored one that no longer checks), at most 128. */
const parsed = new LRUCache<string, { value: EthereumAbi | SolanaIdl | null }>({ max: 128 });

/**
 * The parsed interface of a stored record, cached by id and content (an interface is never
 * updated, only deleted and created again under a new id).
 */
function interfaceOf<T extends EthereumAbi | SolanaIdl>(
  record: SmartContractInterfaceRecord,
  parse: (json: string) => T,
): T | null {
  const key = `${record.organizationId}/${record.smartContractInterfaceId}/${record.smartContractInterface.length}/${record.createdAt}`;
  const hit = parsed.get(key);
  if (hit) return hit.value as T | null;
  let value: T | null;
  try {
    value = parse(record.smartContractInterface);
  } catch (error) {
    if (!(error instanceof ContractInterfaceError)) throw error;
    value = null;
  }
  parsed.set(key, { value });
  return value;
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
  const abi = interfaceOf(record, parseEthereumAbi);
  return abi ? decodeEthereumCall(abi, data) : undefined;
}

/**
 * `solana.tx` with `parsed_instruction_data` on each instruction whose program has an IDL
 * uploaded and whose data decodes by it (the others unchanged). Each distinct program is
 * looked up once.
 * @example
 * const view = await withDecodedInstructions(tx, organizationId, parsed.view);
 * view.instructions[0]?.parsed_instruction_data?.instruction_name; // 'route'
 */
export async function withDecodedInstructions(
  tx: StoreTransaction,
  organizationId: string,
  view: SolanaTransactionView,
): Promise<SolanaTransactionView> {
  const idls = new Map<string, SolanaIdl | null>();
  for (const program of new Set(view.instructions.map((i) => i.program_key))) {
    const record = await tx.smartContractInterfaces.findByAddress(
      organizationId,
      'SMART_CONTRACT_INTERFACE_TYPE_SOLANA',
      program,
    );
    idls.set(program, record ? interfaceOf(record, parseSolanaIdl) : null);
  }
  if (![...idls.values()].some(Boolean)) return view;
  // One budget for the whole transaction: many instructions do not multiply the work.
  const budget = { values: MAX_DECODED_VALUES };
  return {
    ...view,
    instructions: view.instructions.map((instruction) => {
      const idl = idls.get(instruction.program_key);
      if (!idl) return instruction;
      const decoded = decodeSolanaInstruction(
        idl,
        hexToBytes(instruction.instruction_data_hex),
        instruction.accounts.map((a) => a.account_key),
        budget,
      );
      return decoded ? { ...instruction, parsed_instruction_data: decoded } : instruction;
    }),
  };
}
