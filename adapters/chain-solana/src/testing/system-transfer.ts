/**
 * An unsigned System Program transfer built with `@solana/kit`, as a client hands one to
 * Keyhold: the full wire form, with a zero signature slot for each signer (the fee payer, and
 * `from` when another account pays the fee).
 * @module
 */
import {
  AccountRole,
  address,
  appendTransactionMessageInstruction,
  type Blockhash,
  compileTransaction,
  createTransactionMessage,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';

const SYSTEM_PROGRAM = '11111111111111111111111111111111';

export interface SystemTransfer {
  readonly from: string;
  readonly to: string;
  readonly lamports: bigint;
  readonly blockhash: string;
  /** Who pays the fee: `from` unless given. */
  readonly feePayer?: string;
  /** The message version: 0 unless given. */
  readonly version?: 'legacy' | 0;
}

/**
 * The wire bytes of an unsigned transfer.
 * @example
 * const bytes = unsignedSystemTransfer({ from, to, lamports: 1_000_000n, blockhash: rpc.svm.latestBlockhash() });
 */
export function unsignedSystemTransfer(transfer: SystemTransfer): Uint8Array {
  const data = new Uint8Array(12);
  const view = new DataView(data.buffer);
  view.setUint32(0, 2, true); // SystemInstruction::Transfer
  view.setBigUint64(4, transfer.lamports, true);
  const message = pipe(
    createTransactionMessage({ version: transfer.version ?? 0 }),
    (m) => setTransactionMessageFeePayer(address(transfer.feePayer ?? transfer.from), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: transfer.blockhash as Blockhash, lastValidBlockHeight: 0n },
        m,
      ),
    (m) =>
      appendTransactionMessageInstruction(
        {
          programAddress: address(SYSTEM_PROGRAM),
          accounts: [
            { address: address(transfer.from), role: AccountRole.WRITABLE_SIGNER },
            { address: address(transfer.to), role: AccountRole.WRITABLE },
          ],
          data,
        },
        m,
      ),
  );
  return Uint8Array.from(getTransactionEncoder().encode(compileTransaction(message)));
}
