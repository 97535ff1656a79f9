import { createRequire } from 'node:module';
import type { KeyVault } from '@keyhold/keys';
import { openPkcs11KeyVault } from '@keyhold/vault-pkcs11';
import { ed25519 } from '@noble/curves/ed25519.js';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import {
  getTypesForEIP712Domain,
  parseTransaction,
  recoverTransactionAddress,
  serializeTransaction,
  serializeTypedData,
  type TransactionSerializableEIP1559,
  verifyTypedData,
} from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import { recoverAuthorizationAddress } from 'viem/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSoftHsm,
  softHsmAvailable,
} from '../../../adapters/vault-pkcs11/src/__fixtures__/softhsm.js';
import { generateApiKeyPair } from './api-key-signer.js';
import { createKeyhold } from './keyhold.js';
import { type KeyholdClient, KeyholdRequestError } from './keyhold-client.js';
import { silentLogger } from './logger.js';

/**
 * @scure/btc-signer is a dependency of @keyhold/keys, not of the server: the test loads the copy
 * keys uses, to build the PSBT and to finalize what the server returns.
 */
interface BtcSigner {
  p2wpkh(publicKey: Uint8Array): { script: Uint8Array };
  p2tr(internalKey: Uint8Array): { script: Uint8Array; tweakedPubkey: Uint8Array };
  Transaction: {
    new (): BtcTransaction;
    fromPSBT(psbt: Uint8Array): BtcTransaction;
  };
}
interface BtcTransaction {
  addInput(input: object): number;
  addOutput(output: object): number;
  toPSBT(version?: number): Uint8Array;
  getInput(index: number): { partialSig?: [Uint8Array, Uint8Array][]; tapKeySig?: Uint8Array };
  preimageWitnessV1(
    index: number,
    prevOutScripts: Uint8Array[],
    hashType: number,
    amounts: bigint[],
  ): Uint8Array;
  readonly isFinal: boolean;
  finalize(): void;
  extract(): Uint8Array;
}
const { p2wpkh, p2tr, Transaction } = (await import(
  createRequire(new URL('../../keys/package.json', import.meta.url)).resolve('@scure/btc-signer')
)) as BtcSigner;

const account = (curve: string, path: string, addressFormat: string) => ({
  curve,
  pathFormat: 'PATH_FORMAT_BIP32',
  path,
  addressFormat,
});
const ACCOUNTS = [
  account('CURVE_SECP256K1', "m/44'/60'/0'/0/0", 'ADDRESS_FORMAT_ETHEREUM'),
  account('CURVE_ED25519', "m/44'/501'/0'/0'", 'ADDRESS_FORMAT_SOLANA'),
  account('CURVE_SECP256K1', "m/44'/195'/0'", 'ADDRESS_FORMAT_TRON'),
  account('CURVE_SECP256K1', "m/84'/0'/0'/0/0", 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH'),
  account('CURVE_SECP256K1', "m/86'/0'/0'/0/0", 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR'),
];

const TX: TransactionSerializableEIP1559 = {
  type: 'eip1559',
  chainId: 1,
  nonce: 5,
  maxFeePerGas: 30_000_000_000n,
  maxPriorityFeePerGas: 1_000_000_000n,
  gas: 21_000n,
  to: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  value: 10n ** 17n,
};

/** A legacy Solana transfer from `payer` with one zeroed signature slot. */
function solanaTransfer(payer: Uint8Array, to: Uint8Array): string {
  const message = [
    1,
    0,
    1, // header: 1 signer, the System Program read-only
    3,
    ...payer,
    ...to,
    ...new Uint8Array(32), // account keys (the System Program is 32 zero bytes)
    ...new Uint8Array(32).fill(9), // recent blockhash
    1, // one instruction
    2, // program: the System Program
    2,
    0,
    1, // accounts: payer, recipient
    12,
    2,
    0,
    0,
    0, // Transfer
    ...[0x40, 0x42, 0x0f, 0, 0, 0, 0, 0], // 1_000_000 lamports
  ];
  return bytesToHex(Uint8Array.from([1, ...new Uint8Array(64), ...message]));
}

function tronTransfer(owner: Uint8Array): string {
  const param = [0x0a, 21, ...owner, 0x12, 21, 0x41, ...new Uint8Array(20).fill(7), 0x18, 100];
  const typeUrl = new TextEncoder().encode('type.googleapis.com/protocol.TransferContract');
  const any = [0x0a, typeUrl.length, ...typeUrl, 0x12, param.length, ...param];
  const contract = [0x08, 1, 0x12, any.length, ...any];
  return bytesToHex(
    Uint8Array.from([
      0x0a,
      2,
      0x51,
      0x23,
      0x22,
      8,
      ...new Uint8Array(8).fill(1),
      0x40,
      0xc0,
      0xfb,
      0xb6,
      0xda,
      0xd6,
      0x2d,
      0x5a,
      contract.length,
      ...contract,
    ]),
  );
}

/** Closes the HSM sessions and removes the token directories after the file. */
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

/** The vaults every transaction test runs on: a wallet made on either must sign the same way. */
const VAULTS: [string, () => Promise<KeyVault | undefined>][] = [
  ['the software vault', async () => undefined],
];
if (softHsmAvailable()) {
  VAULTS.push([
    'the PKCS#11 vault (SoftHSM2)',
    async () => {
      const hsm = createSoftHsm(['keyhold-tx']);
      const vault = await openPkcs11KeyVault({
        modulePath: hsm.modulePath,
        tokenLabel: 'keyhold-tx',
        pin: hsm.tokens['keyhold-tx']!.pin,
      });
      closers.push(async () => {
        await vault.close();
        hsm.cleanup();
      });
      return vault;
    },
  ]);
}

describe.each(VAULTS)('SIGN_TRANSACTION through the embedded server, on %s', (_, openVault) => {
  let client: KeyholdClient;
  let addresses: string[];
  let publicKeys: Record<string, string>;

  beforeAll(async () => {
    const vault = await openVault();
    const keyhold = createKeyhold({ logger: silentLogger, ...(vault ? { vault } : {}) });
    const key = generateApiKeyPair();
    const { organizationId } = await keyhold.bootstrap({
      organizationName: 'Tx',
      apiPublicKey: key.publicKey,
    });
    client = keyhold.client({ organizationId, apiPrivateKey: key.privateKey });
    ({ addresses } = await client.createWallet({ walletName: 'w', accounts: ACCOUNTS }));
    const { accounts } = await client.query<{
      accounts: { address: string; publicKey: string }[];
    }>('list_wallet_accounts');
    publicKeys = Object.fromEntries(accounts.map((a) => [a.address, a.publicKey]));
  });

  const [ETH, SOL, TRX, BTC, TAPROOT] = [0, 1, 2, 3, 4];
  const sign = (parameters: object, type = 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' as const) =>
    client.run<{ signedTransaction: string }>(type, parameters);
  const count = async () =>
    (await client.query<{ activities: unknown[] }>('list_activities')).activities.length;

  it('Ethereum (V2, signWith = address): viem recovers the account', async () => {
    const { signedTransaction, activity } = await sign({
      signWith: addresses[ETH],
      type: 'TRANSACTION_TYPE_ETHEREUM',
      unsignedTransaction: serializeTransaction(TX).slice(2),
    });
    expect(activity.type).toBe('ACTIVITY_TYPE_SIGN_TRANSACTION_V2');
    expect(Object.keys(activity.result)).toEqual(['signTransactionResult']);
    expect(signedTransaction).toMatch(/^02[0-9a-f]+$/);
    expect(parseTransaction(`0x${signedTransaction}`)).toMatchObject({
      nonce: 5,
      value: 10n ** 17n,
    });
    expect(
      await recoverTransactionAddress({ serializedTransaction: `0x${signedTransaction}` as never }),
    ).toBe(addresses[ETH]);
  });

  it('Ethereum (V1, privateKeyId): the same result key', async () => {
    const created = await client.run<{
      privateKeys: { privateKeyId: string; addresses: { address: string }[] }[];
    }>('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', {
      privateKeys: [
        {
          privateKeyName: 'k',
          curve: 'CURVE_SECP256K1',
          privateKeyTags: [],
          addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
        },
      ],
    });
    const { privateKeyId, addresses: keyAddresses } = created.privateKeys[0]!;
    const { signedTransaction, activity } = await sign(
      {
        privateKeyId,
        type: 'TRANSACTION_TYPE_ETHEREUM',
        unsignedTransaction: serializeTransaction(TX),
      },
      'ACTIVITY_TYPE_SIGN_TRANSACTION' as never,
    );
    expect(activity.intent).toHaveProperty('signTransactionIntent');
    expect(Object.keys(activity.result)).toEqual(['signTransactionResult']);
    expect(
      await recoverTransactionAddress({ serializedTransaction: `0x${signedTransaction}` as never }),
    ).toBe(keyAddresses[0]!.address);
  });

  it('Solana: the signer slot verifies with noble ed25519', async () => {
    const payer = hexToBytes(publicKeys[addresses[SOL]!]!);
    const unsigned = solanaTransfer(payer, new Uint8Array(32).fill(5));
    const { signedTransaction } = await sign({
      signWith: addresses[SOL],
      type: 'TRANSACTION_TYPE_SOLANA',
      unsignedTransaction: unsigned,
    });
    const bytes = hexToBytes(signedTransaction);
    expect(bytesToHex(bytes.subarray(65))).toBe(unsigned.slice(130));
    expect(ed25519.verify(bytes.subarray(1, 65), bytes.subarray(65), payer)).toBe(true);
  });

  it('Tron: the signature recovers to the account address', async () => {
    const owner = hexToBytes(
      `41${publicKeyToAddress(`0x${bytesToHex(secp256k1.Point.fromHex(publicKeys[addresses[TRX]!]!).toBytes(false))}`).slice(2)}`,
    );
    const rawData = tronTransfer(owner);
    const { signedTransaction } = await sign({
      signWith: addresses[TRX],
      type: 'TRANSACTION_TYPE_TRON',
      unsignedTransaction: rawData,
    });
    const bytes = hexToBytes(signedTransaction);
    const signature = bytes.subarray(-65);
    expect([27, 28]).toContain(signature[64]);
    const recovered = secp256k1.Signature.fromBytes(signature.subarray(0, 64), 'compact')
      .addRecoveryBit(signature[64]! - 27)
      .recoverPublicKey(sha256(hexToBytes(rawData)))
      .toBytes(true);
    expect(bytesToHex(recovered)).toBe(publicKeys[addresses[TRX]!]);
  });

  it('Bitcoin: the PSBT comes back signed, not finalized; the client finalizes it', async () => {
    const publicKey = hexToBytes(publicKeys[addresses[BTC]!]!);
    const tx = new Transaction();
    tx.addInput({
      txid: new Uint8Array(32).fill(3),
      index: 1,
      witnessUtxo: { script: p2wpkh(publicKey).script, amount: 50_000n },
    });
    tx.addOutput({ script: p2wpkh(publicKey).script, amount: 40_000n });
    const { signedTransaction } = await sign({
      signWith: addresses[BTC],
      type: 'TRANSACTION_TYPE_BITCOIN',
      unsignedTransaction: bytesToHex(tx.toPSBT(0)),
    });
    const signed = Transaction.fromPSBT(hexToBytes(signedTransaction));
    expect(signed.getInput(0).partialSig?.[0]?.[0]).toEqual(publicKey);
    expect(signed.isFinal).toBe(false);
    signed.finalize();
    expect(signed.extract().length).toBeGreaterThan(100);
  });

  it('Bitcoin Taproot (BIP86 key path): tapKeySig verifies under the P2TR output key', async () => {
    const internalKey = hexToBytes(publicKeys[addresses[TAPROOT]!]!).subarray(1);
    const output = p2tr(internalKey);
    expect(addresses[TAPROOT]).toMatch(/^bc1p/);
    const tx = new Transaction();
    tx.addInput({
      txid: new Uint8Array(32).fill(4),
      index: 0,
      witnessUtxo: { script: output.script, amount: 70_000n },
      tapInternalKey: internalKey,
    });
    tx.addOutput({ script: output.script, amount: 60_000n });
    const { signedTransaction } = await sign({
      signWith: addresses[TAPROOT],
      type: 'TRANSACTION_TYPE_BITCOIN',
      unsignedTransaction: bytesToHex(tx.toPSBT(0)),
    });
    const signed = Transaction.fromPSBT(hexToBytes(signedTransaction));
    const signature = signed.getInput(0).tapKeySig;
    expect(signature?.length).toBe(64);
    const sighash = signed.preimageWitnessV1(0, [output.script], 0, [70_000n]); // SIGHASH_DEFAULT
    expect(schnorr.verify(signature!, sighash, output.tweakedPubkey)).toBe(true);
    expect(schnorr.verify(signature!, sighash, internalKey)).toBe(false); // the tweak is applied
    signed.finalize();
    expect(signed.extract().length).toBeGreaterThan(60);
  });

  it('EIP712 and EIP7702_AUTHORIZATION raw payloads, as @turnkey/viem sends them', async () => {
    const typedData = {
      domain: { name: 'Keyhold', version: '1', chainId: 1 },
      types: { Hello: [{ name: 'who', type: 'string' }] },
      primaryType: 'Hello',
      message: { who: 'world' },
    } as const;
    const payload = serializeTypedData({
      ...typedData,
      types: {
        EIP712Domain: getTypesForEIP712Domain({ domain: typedData.domain }),
        ...typedData.types,
      },
    } as never);
    const sig = await client.signRawPayload({
      signWith: addresses[ETH]!,
      payload,
      encoding: 'PAYLOAD_ENCODING_EIP712',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    });
    const signature = `0x${sig.r}${sig.s}${sig.v === '00' ? '1b' : '1c'}` as const;
    expect(
      await verifyTypedData({ address: addresses[ETH] as `0x${string}`, ...typedData, signature }),
    ).toBe(true);

    const authorization = {
      address: '0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B',
      chainId: 1,
      nonce: 0,
    } as const;
    const auth = await client.signRawPayload({
      signWith: addresses[ETH]!,
      payload: JSON.stringify(authorization),
      encoding: 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    });
    expect(
      await recoverAuthorizationAddress({
        authorization: {
          ...authorization,
          r: `0x${auth.r}`,
          s: `0x${auth.s}`,
          yParity: Number(auth.v),
        },
      }),
    ).toBe(addresses[ETH]);
  });

  const signed1559 = serializeTransaction(TX, {
    r: `0x${'11'.repeat(32)}`,
    s: `0x${'22'.repeat(32)}`,
    yParity: 0,
  });

  it.each([
    [
      'garbage hex',
      { type: 'TRANSACTION_TYPE_ETHEREUM', unsignedTransaction: 'deadbeef' },
      'failed to parse transaction',
    ],
    [
      'an EIP-1559 payload with r, s, v',
      { type: 'TRANSACTION_TYPE_ETHEREUM', unsignedTransaction: signed1559 },
      'failed to parse transaction',
    ],
    [
      'a PSBT that is not one',
      { type: 'TRANSACTION_TYPE_BITCOIN', unsignedTransaction: '70736274ff00' },
      'failed to parse transaction',
    ],
    [
      'TEMPO',
      { type: 'TRANSACTION_TYPE_TEMPO', unsignedTransaction: '76c0' },
      'unsupported transaction type',
    ],
    [
      'an unknown type',
      { type: 'TRANSACTION_TYPE_DOGE', unsignedTransaction: '00' },
      'unsupported transaction type',
    ],
    [
      'an empty transaction',
      { type: 'TRANSACTION_TYPE_SOLANA', unsignedTransaction: '' },
      'failed to parse transaction',
    ],
    ['no type', { unsignedTransaction: '00' }, 'bad request body'],
  ])('refuses %s with HTTP 400 and stores nothing', async (_name, parameters, message) => {
    const before = await count();
    const error = await client
      .submit('ACTIVITY_TYPE_SIGN_TRANSACTION_V2', { signWith: addresses[ETH], ...parameters })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeyholdRequestError);
    expect((error as KeyholdRequestError).httpStatus).toBe(400);
    expect((error as KeyholdRequestError).status.message).toBe(message);
    expect(await count()).toBe(before);
  });

  it.each([
    [
      'a Solana transaction the key does not sign',
      () => ({
        signWith: addresses[SOL],
        type: 'TRANSACTION_TYPE_SOLANA',
        unsignedTransaction: solanaTransfer(
          new Uint8Array(32).fill(8),
          hexToBytes(publicKeys[addresses[SOL]!]!),
        ),
      }),
      'signing key is not a signer of the transaction',
    ],
    [
      'a PSBT with no input of the key',
      () => {
        const tx = new Transaction();
        tx.addInput({
          txid: new Uint8Array(32).fill(4),
          index: 0,
          witnessUtxo: {
            script: p2wpkh(secp256k1.getPublicKey(new Uint8Array(32).fill(1))).script,
            amount: 1000n,
          },
        });
        tx.addOutput({
          script: p2wpkh(hexToBytes(publicKeys[addresses[BTC]!]!)).script,
          amount: 500n,
        });
        return {
          signWith: addresses[BTC],
          type: 'TRANSACTION_TYPE_BITCOIN',
          unsignedTransaction: bytesToHex(tx.toPSBT(0)),
        };
      },
      'signing key is not a signer of the transaction',
    ],
    [
      'an Ethereum transaction with an Ed25519 key',
      () => ({
        signWith: addresses[SOL],
        type: 'TRANSACTION_TYPE_ETHEREUM',
        unsignedTransaction: serializeTransaction(TX),
      }),
      'invalid curve',
    ],
    [
      'an unknown signWith',
      () => ({
        signWith: '0x0000000000000000000000000000000000000001',
        type: 'TRANSACTION_TYPE_ETHEREUM',
        unsignedTransaction: serializeTransaction(TX),
      }),
      'could not find a wallet account or private key for signWith in organization',
    ],
  ])('%s makes the activity FAILED', async (_name, parameters, message) => {
    const activity = await client.submit('ACTIVITY_TYPE_SIGN_TRANSACTION_V2', parameters());
    expect(activity.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(activity.failure?.message).toBe(message);
  });
});
