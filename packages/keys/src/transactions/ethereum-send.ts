/**
 * The Ethereum transactions of the send-transaction activities: the unsigned EIP-1559
 * transaction ETH_SEND_TRANSACTION builds from its intent (then signed like any
 * SIGN_TRANSACTION), and the signed one ETH_SEND_RAW_TRANSACTION broadcasts, decoded with its
 * sender recovered from the signature — what policies see as `eth.tx` and what the chain id is
 * checked against. Encoding by `ox`.
 * @module
 */
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type * as Hex from 'ox/Hex';
import * as Secp256k1 from 'ox/Secp256k1';
import * as TxEnvelope from 'ox/TxEnvelope';
import * as TxEnvelopeEip1559 from 'ox/TxEnvelopeEip1559';
import {
  type EthereumEnvelope,
  type EthereumTransactionView,
  parseEthereumTransaction,
} from './ethereum.js';
import { failedToParse, reasonOf } from './transaction-input.js';

/**
 * The fields of an EIP-1559 transaction ETH_SEND_TRANSACTION signs.
 * @example
 * const fields: Eip1559Fields = { chainId: 84532, nonce: 0n, to: '0x…', value: 1n, data: '0x', gas: 21_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n };
 */
export interface Eip1559Fields {
  readonly chainId: number;
  readonly nonce: bigint;
  readonly to: string;
  readonly value: bigint;
  readonly data: string;
  readonly gas: bigint;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

/**
 * The unsigned serialization (`0x02 || rlp([...])`) of an EIP-1559 transaction, lower-case hex
 * without `0x`: what `signTransaction` with TRANSACTION_TYPE_ETHEREUM signs.
 * @example
 * const unsignedTransaction = unsignedEip1559Transaction({ chainId: 84532, nonce: 0n, to, value: 1n, data: '0x', gas: 21_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n });
 */
export function unsignedEip1559Transaction(fields: Eip1559Fields): string {
  const envelope = TxEnvelopeEip1559.from({
    chainId: fields.chainId,
    nonce: fields.nonce,
    to: fields.to as Hex.Hex,
    value: fields.value,
    data: (fields.data === '' ? '0x' : fields.data) as Hex.Hex,
    gas: fields.gas,
    maxFeePerGas: fields.maxFeePerGas,
    maxPriorityFeePerGas: fields.maxPriorityFeePerGas,
  });
  return TxEnvelopeEip1559.serialize(envelope).slice(2);
}

/**
 * A decoded signed Ethereum transaction: `eth.tx` with `from`, and its hash.
 * @example
 * const { view, hash } = parseSignedEthereumTransaction(signedTransaction);
 */
export interface SignedEthereumTransaction {
  readonly view: EthereumTransactionView & { readonly from: string };
  /** keccak256 of the signed serialization, `0x` lower-case: the transaction hash. */
  readonly hash: string;
  /** The signed serialization, `0x` lower-case hex. */
  readonly serialized: string;
}

/**
 * Decodes a signed Ethereum transaction (hex, with or without `0x`) and recovers its sender.
 * Throws INVALID_TRANSACTION ("failed to parse transaction") for bytes that do not decode or
 * carry no valid signature.
 * @example
 * parseSignedEthereumTransaction('0x02f8…').view.from; // '0x…'
 */
export function parseSignedEthereumTransaction(signed: string): SignedEthereumTransaction {
  const digits = signed.startsWith('0x') || signed.startsWith('0X') ? signed.slice(2) : signed;
  if (!/^[0-9a-fA-F]*$/.test(digits) || digits.length === 0 || digits.length % 2 === 1) {
    failedToParse('signedTransaction must be non-empty hexadecimal');
  }
  const serialized = `0x${digits.toLowerCase()}` as Hex.Hex;
  let envelope: EthereumEnvelope;
  try {
    envelope = TxEnvelope.deserialize(serialized) as EthereumEnvelope;
  } catch (error) {
    failedToParse(reasonOf(error));
  }
  if (envelope.r === undefined || envelope.s === undefined) {
    failedToParse('the transaction carries no signature');
  }
  let from: string;
  try {
    const payload = TxEnvelope.getSignPayload(envelope);
    const yParity =
      envelope.yParity ??
      (envelope.v !== undefined ? Number((BigInt(envelope.v) + 1n) % 2n) : undefined);
    if (yParity === undefined) failedToParse('the transaction carries no recovery id');
    from = Secp256k1.recoverAddress({
      payload,
      signature: { r: envelope.r, s: envelope.s, yParity },
    }).toLowerCase();
  } catch (error) {
    failedToParse(`the signature does not recover: ${reasonOf(error)}`);
  }
  // The unsigned form through the SIGN_TRANSACTION parser: one view for both activities.
  const unsigned = TxEnvelope.serialize({
    ...envelope,
    r: undefined,
    s: undefined,
    v: undefined,
    yParity: undefined,
  } as EthereumEnvelope);
  const { view } = parseEthereumTransaction(hexToBytes(unsigned.slice(2)));
  return {
    view: { ...view, from },
    hash: TxEnvelope.hash(envelope as never).toLowerCase(),
    serialized: `0x${bytesToHex(hexToBytes(digits))}`,
  };
}
