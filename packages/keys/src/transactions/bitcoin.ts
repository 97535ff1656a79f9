/**
 * TRANSACTION_TYPE_BITCOIN: a PSBT (BIP174 v0 or BIP370 v2) in, the same PSBT with this key's
 * signatures added out, not finalized (the client finalizes, as the Turnkey Bitcoin example does).
 * Decoding, sighashes and PSBT updates are @scure/btc-signer's (`Transaction.fromPSBT`,
 * `getInputType`, `preimageLegacy` / `preimageWitnessV0` / `preimageWitnessV1`, `updateInput`);
 * what is here is deciding which inputs the key owns, and signing through the vault.
 *
 * An input is the key's when (compressed key K, x-only key X):
 * - legacy / SegWit v0 — its script (the prevout script, or the redeem / witness script it
 *   commits to) pushes K or hash160(K): P2PKH, P2WPKH, P2SH-P2WPKH, P2PK, and bare / P2SH /
 *   P2WSH multisig that lists K. The signature goes to `partialSig` as DER ‖ sighash byte.
 * - Taproot key path — the output key is X tweaked per BIP341 with the input's `tapMerkleRoot`
 *   (none: BIP86). The signature goes to `tapKeySig`. BIP340 Schnorr needs the tweaked secret,
 *   which an ECDSA `sign` cannot give, so it takes the separate `signSchnorr` capability; without
 *   it an owned Taproot input is TRANSACTION_INPUT_NOT_SIGNABLE. Script-path spends are not
 *   signed (TRANSACTION_INPUT_NOT_SIGNABLE when only a leaf names the key).
 *
 * Finalized inputs are left alone. Every owned input is planned (sighash computed, checks done)
 * before the vault signs anything, so a bad input fails the request before any signature exists.
 * A legacy input needs its full previous transaction (`nonWitnessUtxo`): with only a
 * `witnessUtxo` its amount is unauthenticated and a fee can be hidden. The sighash type is the
 * input's `sighashType` (default ALL; Taproot DEFAULT); policies see it per input.
 * @module
 */
import { schnorr } from '@noble/curves/secp256k1.js';
import { bytesToHex, concatBytes, equalBytes } from '@noble/curves/utils.js';
import { getInputType, OutScript, Script, SigHash, Transaction } from '@scure/btc-signer';
import { hash160, taprootTweakPubkey } from '@scure/btc-signer/utils.js';
import { type DigestSigner, derSignature, signRecoverable } from './secp256k1-signature.js';
import {
  failedToParse,
  inputNotSignable,
  reasonOf,
  signerNotInTransaction,
} from './transaction-input.js';

/**
 * Produces a BIP340 signature over `digest` with the signing key tweaked per BIP341 by
 * `merkleRoot` (empty for a key-path-only output, BIP86): what `taprootTweakPrivKey` +
 * `schnorr.sign` do with a software key. Returns the 64-byte signature.
 */
export type SchnorrSigner = (digest: Uint8Array, merkleRoot: Uint8Array) => Promise<Uint8Array>;

export interface BitcoinInputView {
  /** The previous transaction id, display (RPC) byte order, hex. */
  readonly tx_id: string;
  readonly vout: bigint;
  readonly sequence: bigint;
  /** The amount spent, when the PSBT carries the previous output. */
  readonly value?: bigint;
  readonly script_pubkey?: string;
  readonly address_type?: string;
  /** The sighash type the input asks for (`ALL`, `DEFAULT`, `SINGLE_ANYONECANPAY`, …). */
  readonly sighash?: string;
  readonly finalized: boolean;
}

export interface BitcoinOutputView {
  readonly value: bigint;
  readonly script_pubkey: string;
  readonly address_type: string;
}

/**
 * What policies see as `bitcoin.tx` (wire-compat §5). A PSBT does not name its network, so
 * outputs carry their script and type but no address; `fee` is present when every input
 * carries its previous output.
 */
export interface BitcoinTransactionView {
  readonly version: string;
  readonly inputs: readonly BitcoinInputView[];
  readonly outputs: readonly BitcoinOutputView[];
  /** nLockTime: below 500 000 000 a block height, otherwise a Unix time. */
  readonly locktime: { readonly amount: bigint; readonly type: 'BLOCK_HEIGHT' | 'TIMESTAMP' };
  readonly fee?: bigint;
}

export interface ParsedBitcoinTransaction {
  readonly chain: 'bitcoin';
  readonly view: BitcoinTransactionView;
  /** The PSBT bytes (each signing run decodes its own copy). */
  readonly psbt: Uint8Array;
}

const PSBT_OPTIONS = {
  // A signer passes through what it does not understand.
  allowUnknownOutputs: true,
  allowUnknownInputs: true,
  unknown: 'ignore',
  proprietary: 'ignore',
} as const;

const ADDRESS_TYPES: Readonly<Record<string, string>> = {
  pkh: 'P2PKH',
  sh: 'P2SH',
  wpkh: 'P2WPKH',
  wsh: 'P2WSH',
  tr: 'P2TR',
  pk: 'P2PK',
  ms: 'P2MS',
  unknown: 'UNKNOWN',
};

const SIGHASH_NAMES: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(SigHash).map(([name, value]) => [value as number, name]),
);

function decode(psbt: Uint8Array): Transaction {
  return Transaction.fromPSBT(psbt, PSBT_OPTIONS);
}

function addressType(script: Uint8Array): string {
  if (script[0] === 0x6a) return 'OP_RETURN';
  try {
    return ADDRESS_TYPES[OutScript.decode(script).type] ?? 'UNKNOWN';
  } catch {
    return 'UNKNOWN';
  }
}

interface PrevOut {
  readonly script: Uint8Array;
  readonly amount: bigint;
}

function prevOutOf(tx: Transaction, index: number): PrevOut | undefined {
  const input = tx.getInput(index);
  if (input.nonWitnessUtxo && input.index !== undefined) {
    const out = input.nonWitnessUtxo.outputs[input.index];
    return out ? { script: out.script, amount: out.amount } : undefined;
  }
  return input.witnessUtxo;
}

function isFinalized(tx: Transaction, index: number): boolean {
  const input = tx.getInput(index);
  return (
    (input.finalScriptSig !== undefined && input.finalScriptSig.length > 0) ||
    input.finalScriptWitness !== undefined
  );
}

/**
 * Decodes a PSBT. Throws INVALID_TRANSACTION for bytes that are not a PSBT or a PSBT
 * without inputs.
 * @example
 * parseBitcoinTransaction(psbtBytes).view.outputs[0].value; // 50_000n
 */
export function parseBitcoinTransaction(psbt: Uint8Array): ParsedBitcoinTransaction {
  let tx: Transaction;
  try {
    tx = decode(psbt);
  } catch (error) {
    failedToParse(`not a PSBT: ${reasonOf(error)}`);
  }
  if (tx.inputsLength === 0) failedToParse('the PSBT has no inputs');
  const inputs: BitcoinInputView[] = [];
  let fee: bigint | undefined = 0n;
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    const prev = prevOutOf(tx, i);
    if (prev === undefined) fee = undefined;
    else if (fee !== undefined) fee += prev.amount;
    const sighash = input.sighashType;
    inputs.push({
      tx_id: bytesToHex(input.txid ?? new Uint8Array(32)),
      vout: BigInt(input.index ?? 0),
      sequence: BigInt(input.sequence ?? 0xffffffff),
      ...(prev
        ? {
            value: prev.amount,
            script_pubkey: bytesToHex(prev.script),
            address_type: addressType(prev.script),
          }
        : {}),
      ...(sighash !== undefined ? { sighash: SIGHASH_NAMES[sighash] ?? String(sighash) } : {}),
      finalized: isFinalized(tx, i),
    });
  }
  const outputs: BitcoinOutputView[] = [];
  for (let i = 0; i < tx.outputsLength; i++) {
    const output = tx.getOutput(i);
    const script = output.script ?? new Uint8Array();
    const value = output.amount ?? 0n;
    if (fee !== undefined) fee -= value;
    outputs.push({
      value,
      script_pubkey: bytesToHex(script),
      address_type: addressType(script),
    });
  }
  const lockTime = BigInt(tx.lockTime);
  return {
    chain: 'bitcoin',
    view: {
      version: String(tx.version),
      inputs,
      outputs,
      locktime: { amount: lockTime, type: lockTime < 500_000_000n ? 'BLOCK_HEIGHT' : 'TIMESTAMP' },
      ...(fee !== undefined ? { fee } : {}),
    },
    psbt: Uint8Array.from(psbt),
  };
}

type Plan =
  | { kind: 'ecdsa'; index: number; digest: Uint8Array; sighash: number }
  | {
      kind: 'taproot';
      index: number;
      digest: Uint8Array;
      sighash: number;
      merkleRoot: Uint8Array;
      outputKey: Uint8Array;
    };

interface SighashPreimages {
  preimageLegacy(idx: number, prevOutScript: Uint8Array, hashType: number): Uint8Array;
}

const ECDSA_SIGHASHES = new Set([0x01, 0x02, 0x03, 0x81, 0x82, 0x83]);
const TAPROOT_SIGHASHES = new Set([0x00, ...ECDSA_SIGHASHES]);

function pushes(script: Uint8Array, needles: readonly Uint8Array[]): boolean {
  try {
    return Script.decode(script).some(
      (op) => op instanceof Uint8Array && needles.some((n) => equalBytes(op, n)),
    );
  } catch {
    return false;
  }
}

function planInput(tx: Transaction, index: number, key: Uint8Array): Plan | undefined {
  if (isFinalized(tx, index)) return undefined;
  const input = tx.getInput(index);
  let type: ReturnType<typeof getInputType>;
  try {
    // allowLegacyWitnessUtxo only to classify; signing such an input is refused below.
    type = getInputType(input, true);
  } catch {
    return undefined; // no previous output, or a script btc-signer cannot classify
  }
  const xOnly = key.subarray(1);
  if (type.txType === 'taproot') {
    const merkleRoot = input.tapMerkleRoot ?? new Uint8Array();
    const outputKey = (type.last as { pubkey: Uint8Array }).pubkey;
    const internalMatches =
      input.tapInternalKey === undefined || equalBytes(input.tapInternalKey, xOnly);
    const [tweaked] = taprootTweakPubkey(xOnly, merkleRoot);
    if (!(internalMatches && equalBytes(tweaked, outputKey))) {
      const inLeaf = (input.tapLeafScript ?? []).some(([, script]) =>
        pushes(script.subarray(0, -1), [xOnly]),
      );
      if (inLeaf) inputNotSignable(index, 'Taproot script-path spending is not supported');
      return undefined;
    }
    const sighash = type.sighash;
    if (!TAPROOT_SIGHASHES.has(sighash)) inputNotSignable(index, `unknown sighash type ${sighash}`);
    const prevOuts = Array.from({ length: tx.inputsLength }, (_, i) => prevOutOf(tx, i));
    if (prevOuts.some((p) => p === undefined)) {
      inputNotSignable(index, 'a Taproot signature commits to every input’s previous output');
    }
    let digest: Uint8Array;
    try {
      digest = tx.preimageWitnessV1(
        index,
        prevOuts.map((p) => p!.script),
        sighash,
        prevOuts.map((p) => p!.amount),
      );
    } catch (error) {
      inputNotSignable(index, reasonOf(error));
    }
    return { kind: 'taproot', index, digest, sighash, merkleRoot, outputKey };
  }
  if (!pushes(type.lastScript, [key, hash160(key)])) return undefined;
  const sighash = type.sighash;
  if (!ECDSA_SIGHASHES.has(sighash)) inputNotSignable(index, `unknown sighash type ${sighash}`);
  if ((sighash & 0x1f) === SigHash.SINGLE && index >= tx.outputsLength) {
    inputNotSignable(index, 'SIGHASH_SINGLE without an output of the same index');
  }
  const prevOut = prevOutOf(tx, index)!;
  let digest: Uint8Array;
  if (type.txType === 'legacy') {
    if (!input.nonWitnessUtxo) {
      inputNotSignable(index, 'a legacy input needs its previous transaction (nonWitnessUtxo)');
    }
    digest = (tx as unknown as SighashPreimages).preimageLegacy(index, type.lastScript, sighash);
  } else {
    const last = type.last as { type: string; hash?: Uint8Array };
    // BIP143: the scriptCode of P2WPKH is the P2PKH script of the key hash.
    const script =
      last.type === 'wpkh' ? OutScript.encode({ type: 'pkh', hash: last.hash! }) : type.lastScript;
    digest = tx.preimageWitnessV0(index, script, sighash, prevOut.amount);
  }
  return { kind: 'ecdsa', index, digest, sighash };
}

/**
 * Adds this key's signatures to every input it owns and returns the updated PSBT (not
 * finalized). `publicKey` is the compressed secp256k1 key `sign` signs with. Throws
 * SIGNER_NOT_IN_TRANSACTION when the key owns no input, TRANSACTION_INPUT_NOT_SIGNABLE when an
 * owned input cannot be signed.
 * @example
 * const psbt = await signBitcoinTransaction(parsed, publicKey, (d) => vault.sign(key, curve, d));
 */
export async function signBitcoinTransaction(
  parsed: ParsedBitcoinTransaction,
  publicKey: Uint8Array,
  sign: DigestSigner,
  signSchnorr?: SchnorrSigner,
): Promise<Uint8Array> {
  const tx = decode(parsed.psbt);
  const plans: Plan[] = [];
  for (let i = 0; i < tx.inputsLength; i++) {
    const plan = planInput(tx, i, publicKey);
    if (plan) plans.push(plan);
  }
  if (plans.length === 0) {
    signerNotInTransaction(`the key owns none of the ${tx.inputsLength} inputs of the PSBT`);
  }
  const taproot = plans.find((p) => p.kind === 'taproot');
  if (taproot && !signSchnorr) {
    inputNotSignable(
      taproot.index,
      'Taproot key-path signing needs a vault that produces BIP340 Schnorr signatures',
    );
  }
  for (const plan of plans) {
    if (plan.kind === 'ecdsa') {
      const signature = await signRecoverable(sign, plan.digest, publicKey);
      const sig = concatBytes(derSignature(signature), Uint8Array.of(plan.sighash));
      tx.updateInput(plan.index, { partialSig: [[publicKey, sig]] }, true);
    } else {
      const signature = await signSchnorr!(plan.digest, plan.merkleRoot);
      if (!schnorr.verify(signature, plan.digest, plan.outputKey)) {
        throw new Error('the vault Schnorr signature does not verify under the Taproot output key');
      }
      const tapKeySig =
        plan.sighash === SigHash.DEFAULT
          ? signature
          : concatBytes(signature, Uint8Array.of(plan.sighash));
      tx.updateInput(plan.index, { tapKeySig }, true);
    }
  }
  return tx.toPSBT();
}
