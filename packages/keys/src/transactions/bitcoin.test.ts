import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import {
  OutScript,
  p2ms,
  p2pkh,
  p2sh,
  p2tr,
  p2wpkh,
  p2wsh,
  RawTx,
  SigHash,
  Transaction,
} from '@scure/btc-signer';
import { taprootTweakPrivKey } from '@scure/btc-signer/utils.js';
import { describe, expect, it } from 'vitest';
import type { RawSignature } from '../key-vault.js';
import type { ParsedBitcoinTransaction, SchnorrSigner } from './bitcoin.js';
import { parseTransaction, signTransaction } from './sign-transaction.js';

const BTC = 'TRANSACTION_TYPE_BITCOIN';
const AUX = new Uint8Array(32);
const OPTS = { allowUnknownOutputs: true };

const key = (byte: number) => new Uint8Array(32).fill(byte);
const OURS = key(0x11);
const OTHER = key(0x22);
const ourPub = secp256k1.getPublicKey(OURS, true);
const otherPub = secp256k1.getPublicKey(OTHER, true);

function ecdsaSigner(priv: Uint8Array) {
  let calls = 0;
  const sign = async (digest: Uint8Array): Promise<RawSignature> => {
    calls++;
    const sig = secp256k1.sign(digest, priv, { prehash: false, lowS: true, format: 'recovered' });
    return { r: sig.slice(1, 33), s: sig.slice(33, 65), recovery: sig[0] as 0 | 1 };
  };
  return { sign, calls: () => calls };
}

/** What a software vault would do for Taproot: BIP341 tweak, then BIP340 with zero aux randomness. */
const schnorrSigner =
  (priv: Uint8Array): SchnorrSigner =>
  async (digest, merkleRoot) =>
    schnorr.sign(digest, taprootTweakPrivKey(priv, merkleRoot), AUX);

let nextTxid = 1;
const fakeTxid = () => hexToBytes((nextTxid++).toString(16).padStart(64, '0'));

/** A previous transaction paying `script` (for legacy inputs' nonWitnessUtxo). */
function previous(script: Uint8Array, amount: bigint) {
  const raw = RawTx.encode({
    version: 2,
    segwitFlag: false,
    inputs: [
      { txid: fakeTxid(), index: 0, finalScriptSig: new Uint8Array(), sequence: 0xffffffff },
    ],
    outputs: [{ script, amount }],
    lockTime: 0,
  });
  return { raw, txid: Transaction.fromRaw(raw).id };
}

type InputKind = 'p2wpkh' | 'p2pkh' | 'p2sh-p2wpkh' | 'p2tr' | 'p2wsh-multisig';

function addInput(tx: Transaction, kind: InputKind, pub: Uint8Array, amount = 100_000n) {
  switch (kind) {
    case 'p2wpkh':
      tx.addInput({
        txid: fakeTxid(),
        index: 0,
        witnessUtxo: { script: p2wpkh(pub).script, amount },
      });
      return;
    case 'p2pkh': {
      const prev = previous(p2pkh(pub).script, amount);
      tx.addInput({ txid: prev.txid, index: 0, nonWitnessUtxo: prev.raw });
      return;
    }
    case 'p2sh-p2wpkh': {
      const payment = p2sh(p2wpkh(pub));
      tx.addInput({
        txid: fakeTxid(),
        index: 0,
        witnessUtxo: { script: payment.script, amount },
        redeemScript: payment.redeemScript,
      });
      return;
    }
    case 'p2tr': {
      const payment = p2tr(pub.subarray(1));
      tx.addInput({
        txid: fakeTxid(),
        index: 0,
        witnessUtxo: { script: payment.script, amount },
        tapInternalKey: payment.tapInternalKey,
      });
      return;
    }
    case 'p2wsh-multisig': {
      const payment = p2wsh(p2ms(2, [ourPub, otherPub]));
      tx.addInput({
        txid: fakeTxid(),
        index: 0,
        witnessUtxo: { script: payment.script, amount },
        witnessScript: payment.witnessScript,
      });
      return;
    }
  }
}

function psbt(inputs: [InputKind, Uint8Array][], opts: { lockTime?: number } = {}): Uint8Array {
  const tx = new Transaction({ lockTime: opts.lockTime ?? 0, allowUnknownOutputs: true });
  for (const [kind, pub] of inputs) addInput(tx, kind, pub);
  tx.addOutput({ script: p2wpkh(otherPub).script, amount: 60_000n * BigInt(inputs.length) });
  tx.addOutput({
    script: OutScript.encode({ type: 'unknown', script: hexToBytes('6a0568656c6c6f') }),
    amount: 0n,
  });
  return tx.toPSBT(0);
}

async function sign(
  input: Uint8Array | string,
  opts: { schnorr?: boolean; priv?: Uint8Array } = {},
) {
  const priv = opts.priv ?? OURS;
  const signer = ecdsaSigner(priv);
  const { signedTransaction } = await signTransaction({
    type: BTC,
    unsignedTransaction: typeof input === 'string' ? input : bytesToHex(input),
    curve: 'CURVE_SECP256K1',
    publicKey: secp256k1.getPublicKey(priv, true),
    sign: signer.sign,
    ...(opts.schnorr === false ? {} : { signSchnorr: schnorrSigner(priv) }),
  });
  return { psbt: hexToBytes(signedTransaction), calls: signer.calls() };
}

/** btc-signer signing the same PSBT with the private key itself: the reference result. */
function referenceSign(input: Uint8Array, priv: Uint8Array, indexes: number[]): Uint8Array {
  const tx = Transaction.fromPSBT(input, OPTS);
  for (const i of indexes) tx.signIdx(priv, i, undefined, AUX);
  return tx.toPSBT(0);
}

describe('TRANSACTION_TYPE_BITCOIN: signatures match btc-signer and finalize', () => {
  it.each<InputKind>(['p2wpkh', 'p2pkh', 'p2sh-p2wpkh', 'p2tr'])(
    '%s: the same PSBT as btc-signer signing with the key, not finalized, then finalizable',
    async (kind) => {
      const unsigned = psbt([[kind, ourPub]]);
      const { psbt: signed, calls } = await sign(unsigned);
      expect(bytesToHex(signed)).toBe(bytesToHex(referenceSign(unsigned, OURS, [0])));
      const tx = Transaction.fromPSBT(signed, OPTS);
      const input = tx.getInput(0);
      if (kind === 'p2tr') {
        expect(input.tapKeySig).toHaveLength(64);
        expect(calls).toBe(0);
      } else {
        expect(input.partialSig?.[0]?.[0]).toEqual(ourPub);
        expect(input.partialSig?.[0]?.[1].at(-1)).toBe(SigHash.ALL);
        expect(calls).toBe(1);
      }
      expect(input.finalScriptWitness).toBeUndefined();
      expect(input.finalScriptSig).toBeUndefined();
      tx.finalize();
      expect(tx.isFinal).toBe(true);
      expect(Transaction.fromRaw(tx.extract(), OPTS).id).toBe(tx.id);
    },
  );

  it('signs only its own inputs of a mixed PSBT; with the other key it finalizes and extracts', async () => {
    const unsigned = psbt([
      ['p2wpkh', ourPub],
      ['p2wpkh', otherPub],
      ['p2pkh', ourPub],
      ['p2sh-p2wpkh', ourPub],
      ['p2tr', ourPub],
      ['p2tr', otherPub],
    ]);
    const { psbt: ours, calls } = await sign(unsigned);
    expect(calls).toBe(3);
    expect(bytesToHex(ours)).toBe(bytesToHex(referenceSign(unsigned, OURS, [0, 2, 3, 4])));
    const tx = Transaction.fromPSBT(ours, OPTS);
    expect(tx.getInput(1).partialSig).toBeUndefined();
    expect(tx.getInput(5).tapKeySig).toBeUndefined();
    // The other party signs its inputs with btc-signer; then the transaction is complete.
    tx.signIdx(OTHER, 1);
    tx.signIdx(OTHER, 5);
    tx.finalize();
    const raw = tx.extract();
    // The P2WPKH witness is [DER ‖ sighash, key]: verify it against the BIP143 digest.
    const witness = tx.getInput(0).finalScriptWitness!;
    expect(witness[1]).toEqual(ourPub);
    const digest = tx.preimageWitnessV0(0, p2pkh(ourPub).script, SigHash.ALL, 100_000n);
    expect(
      secp256k1.verify(witness[0]!.subarray(0, -1), digest, ourPub, {
        prehash: false,
        format: 'der',
      }),
    ).toBe(true);
    // The key-path witness is a BIP340 signature under the tweaked output key.
    const prevouts = Array.from(
      { length: 6 },
      (_, i) => tx.getInput(i).witnessUtxo ?? { script: p2pkh(ourPub).script, amount: 100_000n },
    );
    const tapDigest = tx.preimageWitnessV1(
      4,
      prevouts.map((p) => p.script),
      SigHash.DEFAULT,
      prevouts.map((p) => p.amount),
    );
    const outputKey = p2tr(ourPub.subarray(1)).tweakedPubkey;
    expect(schnorr.verify(tx.getInput(4).finalScriptWitness![0]!, tapDigest, outputKey)).toBe(true);
    expect(RawTx.decode(raw).inputs).toHaveLength(6);
  });

  it('adds a partial signature to a 2-of-2 P2WSH multisig input', async () => {
    const unsigned = psbt([['p2wsh-multisig', ourPub]]);
    const { psbt: signed } = await sign(unsigned);
    expect(bytesToHex(signed)).toBe(bytesToHex(referenceSign(unsigned, OURS, [0])));
    const tx = Transaction.fromPSBT(signed, OPTS);
    tx.signIdx(OTHER, 0);
    tx.finalize();
    expect(tx.getInput(0).finalScriptWitness).toHaveLength(4); // OP_0, sig, sig, script
  });

  it('honours an input sighash type (SINGLE|ANYONECANPAY) and leaves finalized inputs alone', async () => {
    const tx = Transaction.fromPSBT(
      psbt([
        ['p2wpkh', otherPub],
        ['p2wpkh', ourPub],
      ]),
      OPTS,
    );
    tx.updateInput(1, { sighashType: SigHash.SINGLE_ANYONECANPAY });
    tx.signIdx(OTHER, 0);
    tx.finalizeIdx(0);
    const unsigned = tx.toPSBT(0);
    const { psbt: signed, calls } = await sign(unsigned);
    expect(calls).toBe(1);
    const reference = Transaction.fromPSBT(unsigned, OPTS);
    reference.signIdx(OURS, 1, [SigHash.SINGLE_ANYONECANPAY]);
    expect(bytesToHex(signed)).toBe(bytesToHex(reference.toPSBT(0)));
    expect(
      (parseTransaction(BTC, bytesToHex(unsigned)) as ParsedBitcoinTransaction).view.inputs,
    ).toMatchObject([{ finalized: true }, { finalized: false, sighash: 'SINGLE_ANYONECANPAY' }]);
  });
});

describe('the bitcoin.tx view', () => {
  it('has inputs, outputs, locktime and fee', () => {
    const unsigned = psbt(
      [
        ['p2wpkh', ourPub],
        ['p2pkh', otherPub],
      ],
      { lockTime: 840_000 },
    );
    const { view } = parseTransaction(BTC, bytesToHex(unsigned)) as ParsedBitcoinTransaction;
    expect(view.version).toBe('2');
    expect(view.locktime).toEqual({ amount: 840_000n, type: 'BLOCK_HEIGHT' });
    expect(view.inputs).toHaveLength(2);
    expect(view.inputs[0]).toMatchObject({
      vout: 0n,
      value: 100_000n,
      address_type: 'P2WPKH',
      finalized: false,
    });
    expect(view.inputs[1]).toMatchObject({ value: 100_000n, address_type: 'P2PKH' });
    expect(view.outputs).toEqual([
      {
        value: 120_000n,
        script_pubkey: bytesToHex(p2wpkh(otherPub).script),
        address_type: 'P2WPKH',
      },
      { value: 0n, script_pubkey: '6a0568656c6c6f', address_type: 'OP_RETURN' },
    ]);
    expect(view.fee).toBe(80_000n);
  });
});

describe('TRANSACTION_TYPE_BITCOIN: what is refused', () => {
  it('a PSBT whose inputs are all someone else’s → SIGNER_NOT_IN_TRANSACTION, nothing signed', async () => {
    const unsigned = psbt([
      ['p2wpkh', otherPub],
      ['p2tr', otherPub],
      ['p2pkh', otherPub],
    ]);
    const signer = ecdsaSigner(OURS);
    await expect(
      signTransaction({
        type: BTC,
        unsignedTransaction: bytesToHex(unsigned),
        curve: 'CURVE_SECP256K1',
        publicKey: ourPub,
        sign: signer.sign,
      }),
    ).rejects.toMatchObject({ key: 'SIGNER_NOT_IN_TRANSACTION' });
    expect(signer.calls()).toBe(0);
  });

  it('an owned Taproot input without a Schnorr-capable vault → TRANSACTION_INPUT_NOT_SIGNABLE, nothing signed', async () => {
    const unsigned = psbt([
      ['p2wpkh', ourPub],
      ['p2tr', ourPub],
    ]);
    const signer = ecdsaSigner(OURS);
    await expect(
      signTransaction({
        type: BTC,
        unsignedTransaction: bytesToHex(unsigned),
        curve: 'CURVE_SECP256K1',
        publicKey: ourPub,
        sign: signer.sign,
      }),
    ).rejects.toMatchObject({ key: 'TRANSACTION_INPUT_NOT_SIGNABLE', context: { input: 1 } });
    expect(signer.calls()).toBe(0);
  });

  it('an owned legacy input without its previous transaction → TRANSACTION_INPUT_NOT_SIGNABLE', async () => {
    const tx = new Transaction();
    tx.addInput({
      txid: fakeTxid(),
      index: 0,
      witnessUtxo: { script: p2pkh(ourPub).script, amount: 1000n },
    });
    tx.addOutput({ script: p2wpkh(otherPub).script, amount: 500n });
    await expect(sign(tx.toPSBT(0))).rejects.toMatchObject({
      key: 'TRANSACTION_INPUT_NOT_SIGNABLE',
      context: { input: 0, reason: expect.stringContaining('nonWitnessUtxo') },
    });
  });

  it('an Ed25519 key → INVALID_CURVE', async () => {
    await expect(
      signTransaction({
        type: BTC,
        unsignedTransaction: bytesToHex(psbt([['p2wpkh', ourPub]])),
        curve: 'CURVE_ED25519',
        publicKey: new Uint8Array(32),
        sign: ecdsaSigner(OURS).sign,
      }),
    ).rejects.toMatchObject({ key: 'INVALID_CURVE' });
  });

  const good = bytesToHex(psbt([['p2wpkh', ourPub]]));
  it.each([
    ['garbage', 'deadbeef'],
    ['the PSBT magic only', '70736274ff'],
    ['truncated', good.slice(0, -20)],
    [
      'a raw transaction instead of a PSBT',
      bytesToHex(Transaction.fromPSBT(hexToBytes(good), OPTS).unsignedTx),
    ],
    [
      'a PSBT without inputs',
      (() => {
        const tx = new Transaction();
        tx.addOutput({ script: p2wpkh(otherPub).script, amount: 1n });
        return bytesToHex(tx.toPSBT(2));
      })(),
    ],
  ])('%s → "failed to parse transaction"', (_name, hex) => {
    expect(() => parseTransaction(BTC, hex)).toThrow(
      expect.objectContaining({
        key: 'INVALID_TRANSACTION',
        message: 'failed to parse transaction',
      }),
    );
  });
});
