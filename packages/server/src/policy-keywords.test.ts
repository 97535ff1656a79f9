/**
 * Every condition keyword the policy checker knows is filled by the activities that carry it.
 * The keywords are enumerated from the checker's own table (`TURNKEY_SCHEMA`) down to scalar
 * leaves; each one needs a case below: a real activity, run through the server, whose recorded
 * policy evaluations show a condition on the keyword evaluating to true (OUTCOME_ALLOW) and one
 * evaluating to false (OUTCOME_DENY_IMPLICIT) — an OUTCOME_ERROR means the context does not
 * fill it. A keyword added to the schema without a case fails the first test.
 *
 * Then the EIP-712 defect of issue #9 end to end: a non-root user signing typed data through
 * `@turnkey/viem` with a viem wallet client is stopped by an EIP-712 DENY and granted by an
 * EIP-712 ALLOW; batches of distinct payloads fail closed.
 */
import { createRequire } from 'node:module';
import { keywordsOfActivityType } from '@keyhold/activities';
import { TURNKEY_SCHEMA, type Type } from '@keyhold/policy-engine';
import type { Activity } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { createAccount } from '@turnkey/viem';
import {
  createWalletClient,
  getTypesForEIP712Domain,
  http,
  serializeTransaction,
  serializeTypedData,
  verifyTypedData,
} from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  rejection,
  type SdkClient,
  sdkClient,
  startTurnkeyServer,
  type TurnkeyServer,
} from './__fixtures__/turnkey-server.js';
import { generateApiKeyPair } from './api-key-signer.js';
import type { KeyholdClient } from './keyhold-client.js';

// ---------------------------------------------------------------------------------------------
// The keyword table, walked.

interface Keyword {
  /** e.g. `tron.tx.contract[].owner.keys[].weight` (`[]`: every element of a list). */
  readonly path: string;
  readonly type: Type;
}

function keywordsOf(roots: Readonly<Record<string, Type>>): Keyword[] {
  const out: Keyword[] = [];
  const walk = (type: Type, path: string): void => {
    if (type.t === 'namespace') {
      for (const [name, member] of Object.entries(type.members)) walk(member, `${path}.${name}`);
    } else if (type.t === 'struct') {
      for (const [name, field] of Object.entries(type.fields)) walk(field, `${path}.${name}`);
    } else if (type.t === 'list' && type.of.t === 'struct') {
      walk(type.of, `${path}[]`);
    } else {
      out.push({ path, type }); // a scalar, a list or map of scalars, or dynamic (`any`) data
    }
  };
  for (const [name, type] of Object.entries(roots)) walk(type, name);
  return out;
}

/**
 * Keywords no activity Keyhold serves can carry, by path prefix, with the reason. Kept minimal:
 * an entry that matches no keyword fails the test.
 */
const EXCLUDED: Readonly<Record<string, string>> = {
  tempo: 'SIGN_TRANSACTION refuses TRANSACTION_TYPE_TEMPO (no Tempo transaction is served)',
  'bitcoin.tx.outputs[].address':
    'a PSBT does not say its network, so an output script has no one address',
};

// ---------------------------------------------------------------------------------------------
// Probes: a keyword, the scenario whose activity carries it, and the value it must have there.

type Scalar = string | bigint | boolean;

interface Probe {
  readonly scenario: string;
  readonly value: Scalar;
  /** For dynamic data and maps: how to reach a scalar, e.g. `['hash_function']`. */
  readonly access?: string;
  /** The index in each list on the path (default 0). */
  readonly at?: readonly number[];
}

const literal = (v: Scalar): string => (typeof v === 'string' ? `'${v}'` : String(v));
/** A value of the same type that differs from `v`. */
const other = (v: Scalar): Scalar =>
  typeof v === 'string' ? `${v}-not` : typeof v === 'bigint' ? v + 1n : !v;

/**
 * Two conditions on `keyword` at the element `probe.at` names (indexes, not loops: they stay
 * within the engine's cost budget however deep the lists nest): one comparing it with
 * `probe.value` (true), one with a different value (false). A list of scalars is asked whether
 * it contains the value.
 */
function conditionsOf(keyword: Keyword, probe: Probe): { truthy: string; falsy: string } {
  const segments = keyword.path.split('[]');
  const target =
    segments
      .map((segment, i) =>
        i < segments.length - 1 ? `${segment}[${probe.at?.[i] ?? 0}]` : segment,
      )
      .join('') + (probe.access ?? '');
  const test = (value: Scalar) =>
    keyword.type.t === 'list'
      ? `${target}.contains(${literal(value)})`
      : `${target} == ${literal(value)}`;
  return { truthy: test(probe.value), falsy: test(other(probe.value)) };
}

// ---------------------------------------------------------------------------------------------
// Fixtures.

const ETH_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;
const account = (curve: string, path: string, addressFormat: string) => ({
  curve,
  pathFormat: 'PATH_FORMAT_BIP32',
  path,
  addressFormat,
});
const RECIPIENT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const CONTRACT = '0xcccccccccccccccccccccccccccccccccccccccc';

const MAIL_TYPES = {
  Person: [
    { name: 'name', type: 'string' },
    { name: 'wallet', type: 'address' },
  ],
  Mail: [
    { name: 'from', type: 'Person' },
    { name: 'to', type: 'Person' },
    { name: 'contents', type: 'string' },
    { name: 'amount', type: 'uint256' },
  ],
} as const;
const MAIL = {
  domain: {
    name: 'Ether Mail',
    version: '1',
    chainId: 1n,
    verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC',
  },
  types: MAIL_TYPES,
  primaryType: 'Mail',
  message: {
    from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
    to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
    contents: 'Hello, Bob!',
    amount: 10n ** 24n,
  },
} as const;
const PERMIT = {
  domain: { name: 'Token', version: '2', chainId: 10n, verifyingContract: CONTRACT },
  types: {
    Permit: [
      { name: 'spender', type: 'address' },
      { name: 'value', type: 'uint256' },
    ],
  },
  primaryType: 'Permit',
  message: { spender: RECIPIENT, value: 5n },
} as const;

const PERMIT_ELSEWHERE = { ...PERMIT, domain: { ...PERMIT.domain, chainId: 11n } } as const;

/** The JSON `@turnkey/viem` sends from a wallet client: EIP712Domain declared, then serialized. */
const eip712Payload = (data: { domain: Record<string, unknown>; types: object }) =>
  serializeTypedData({
    ...data,
    types: { EIP712Domain: getTypesForEIP712Domain({ domain: data.domain }), ...data.types },
  } as never);

/** @scure/btc-signer and @scure/base are dependencies of @keyhold/keys, loaded from there. */
const fromKeys = createRequire(new URL('../../keys/package.json', import.meta.url));
const { base58, createBase58check } = (await import(fromKeys.resolve('@scure/base'))) as {
  base58: { encode(bytes: Uint8Array): string; decode(text: string): Uint8Array };
  createBase58check(sha: (bytes: Uint8Array) => Uint8Array): {
    encode(bytes: Uint8Array): string;
    decode(text: string): Uint8Array;
  };
};
const base58check = createBase58check(sha256);
const { p2wpkh, Transaction } = (await import(fromKeys.resolve('@scure/btc-signer'))) as {
  p2wpkh(publicKey: Uint8Array): { script: Uint8Array };
  Transaction: new (
    options?: object,
  ) => {
    addInput(input: object): number;
    addOutput(output: object): number;
    toPSBT(version?: number): Uint8Array;
  };
};

const u64le = (n: bigint) =>
  Array.from({ length: 8 }, (_, i) => Number((n >> BigInt(8 * i)) & 0xffn));
const bytes32 = (fill: number) => new Uint8Array(32).fill(fill);

/** The keys of the Solana v0 transaction below, by role. */
const SOLANA = {
  recipient: bytes32(5),
  source: bytes32(6),
  destination: bytes32(7),
  mint: bytes32(8),
  table: bytes32(0x22),
  blockhash: bytes32(9),
};
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

/**
 * A v0 Solana transaction from `payer` (one zeroed signature slot): a System transfer of
 * 1_000_000 lamports to `recipient`, an SPL TransferChecked of 777 (one extra signer), and a
 * System transfer whose accounts come from an address lookup table (writable entry 3, read-only
 * entry 9).
 */
function solanaTransaction(payer: Uint8Array): string {
  // Static keys: 0 payer (signer), 1 recipient, 2 source, 3 destination (writable), 4 mint,
  // 5 System Program, 6 Token Program (read-only); 7 and 8 are loaded from the lookup table.
  const keys = [
    payer,
    SOLANA.recipient,
    SOLANA.source,
    SOLANA.destination,
    SOLANA.mint,
    new Uint8Array(32),
    base58.decode(TOKEN_PROGRAM),
  ];
  const instruction = (program: number, accounts: number[], data: number[]) => [
    program,
    accounts.length,
    ...accounts,
    data.length,
    ...data,
  ];
  const message = [
    0x80, // v0
    ...[1, 0, 3],
    keys.length,
    ...keys.flatMap((k) => [...k]),
    ...SOLANA.blockhash,
    3,
    ...instruction(5, [0, 1], [2, 0, 0, 0, ...u64le(1_000_000n)]),
    ...instruction(6, [2, 4, 3, 0, 1], [12, ...u64le(777n), 6]),
    ...instruction(5, [0, 7, 8], [2, 0, 0, 0, ...u64le(5n)]),
    1, // one lookup table: writable [3], read-only [9]
    ...SOLANA.table,
    ...[1, 3],
    ...[1, 9],
  ];
  return bytesToHex(Uint8Array.from([1, ...new Uint8Array(64), ...message]));
}

/** Protocol-buffer encoding, enough for Tron's raw_data. */
const varint = (value: bigint | number): number[] => {
  let v = BigInt(value);
  const out: number[] = [];
  do {
    const low = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v === 0n ? low : low | 0x80);
  } while (v !== 0n);
  return out;
};
const pbInt = (field: number, value: bigint | number) => [...varint(field << 3), ...varint(value)];
const pbBytes = (field: number, bytes: ArrayLike<number>) => [
  ...varint((field << 3) | 2),
  ...varint(bytes.length),
  ...Array.from(bytes),
];
const tronAddress = (fill: number) => Uint8Array.from([0x41, ...new Uint8Array(20).fill(fill)]);
const utf8 = (text: string) => new TextEncoder().encode(text);

/** The Tron addresses of the transaction below, by role. */
const TRON = {
  to: tronAddress(7),
  contract: tronAddress(0x0c),
  receiver: tronAddress(0x0d),
  key: tronAddress(0x0e),
};

/**
 * A Tron raw_data from `owner` with one contract of each kind policies read: a transfer, a
 * smart-contract call, a freeze, an unfreeze, a resource delegation and a permission update.
 */
function tronTransaction(owner: Uint8Array): string {
  const contract = (code: number, name: string, value: number[], permissionId = 0) =>
    pbBytes(11, [
      ...pbInt(1, code),
      ...pbBytes(2, [
        ...pbBytes(1, utf8(`type.googleapis.com/protocol.${name}`)),
        ...pbBytes(2, value),
      ]),
      ...(permissionId ? pbInt(5, permissionId) : []),
    ]);
  const permission = (
    type: number,
    id: number,
    name: string,
    threshold: number,
    weight: number,
  ) => [
    ...pbInt(1, type),
    ...pbInt(2, id),
    ...pbBytes(3, utf8(name)),
    ...pbInt(4, threshold),
    ...pbInt(5, 0),
    ...pbBytes(6, [0x7f, 0xff, id]),
    ...pbBytes(7, [...pbBytes(1, TRON.key), ...pbInt(2, weight)]),
  ];
  return bytesToHex(
    Uint8Array.from([
      ...pbBytes(1, [0x51, 0x23]), // ref_block_bytes
      ...pbBytes(4, new Uint8Array(8).fill(1)), // ref_block_hash
      ...pbInt(8, 1_700_000_060_000), // expiration
      ...pbBytes(10, utf8('memo')), // data
      ...contract(1, 'TransferContract', [
        ...pbBytes(1, owner),
        ...pbBytes(2, TRON.to),
        ...pbInt(3, 100),
      ]),
      ...contract(
        31,
        'TriggerSmartContract',
        [
          ...pbBytes(1, owner),
          ...pbBytes(2, TRON.contract),
          ...pbInt(3, 5),
          ...pbBytes(4, [0xa9, 0x05, 0x9c, 0xbb]),
          ...pbInt(5, 6),
          ...pbInt(6, 1_000_001),
        ],
        2,
      ),
      ...contract(54, 'FreezeBalanceV2Contract', [
        ...pbBytes(1, owner),
        ...pbInt(2, 1000),
        ...pbInt(3, 1),
      ]),
      ...contract(55, 'UnfreezeBalanceV2Contract', [...pbBytes(1, owner), ...pbInt(2, 500)]),
      ...contract(57, 'DelegateResourceContract', [
        ...pbBytes(1, owner),
        ...pbInt(2, 1),
        ...pbInt(3, 2000),
        ...pbBytes(4, TRON.receiver),
        ...pbInt(5, 1),
        ...pbInt(6, 86_400),
      ]),
      ...contract(46, 'AccountPermissionUpdateContract', [
        ...pbBytes(1, owner),
        ...pbBytes(2, permission(0, 0, 'owner', 1, 1)),
        ...pbBytes(3, permission(1, 1, 'witness', 1, 1)),
        ...pbBytes(4, permission(2, 2, 'active', 2, 2)),
      ]),
      ...pbInt(14, 1_700_000_000_000), // timestamp
      ...pbInt(18, 10_000_000), // fee_limit
    ]),
  );
}

const policyEvaluations = async (client: KeyholdClient, activity: Activity) => {
  const { policyEvaluations } = await client.query<{
    policyEvaluations: { policyEvaluations: { policyId: string; outcome: string }[] }[];
  }>('get_policy_evaluations', { activityId: activity.id });
  return new Map(policyEvaluations[0]!.policyEvaluations.map((e) => [e.policyId, e.outcome]));
};

// ---------------------------------------------------------------------------------------------

let t: TurnkeyServer;

beforeAll(async () => {
  t = await startTurnkeyServer();
});
afterAll(async () => {
  await t?.server.close();
});

describe('every condition keyword is filled by the activities that carry it', () => {
  const keywords = keywordsOf(TURNKEY_SCHEMA.condition);
  /** Whether keyword `path` is `prefix` or lies under it. */
  const under = (prefix: string, path: string) =>
    path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[]`);
  const excluded = (path: string) => Object.keys(EXCLUDED).some((p) => under(p, path));

  /** The scenarios: each runs one activity as the root user (so it runs whatever the outcomes). */
  let scenarios: Record<string, () => Promise<Activity>>;
  let cases: Record<string, Probe[]>;

  beforeAll(async () => {
    const root = t.embedded;
    const { walletId, addresses } = await root.createWallet({
      walletName: 'keywords',
      accounts: [
        ETH_ACCOUNT,
        account('CURVE_ED25519', "m/44'/501'/0'/0'", 'ADDRESS_FORMAT_SOLANA'),
        account('CURVE_SECP256K1', "m/44'/195'/0'", 'ADDRESS_FORMAT_TRON'),
        account('CURVE_SECP256K1', "m/84'/0'/0'/0/0", 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH'),
      ],
    });
    const [eth, sol, tron, btc] = addresses as [string, string, string, string];
    const { accounts: walletAccounts } = await root.query<{
      accounts: { address: string; publicKey: string; walletAccountId: string }[];
    }>('list_wallet_accounts', { walletId });
    const publicKeyOf = (address: string) =>
      hexToBytes(walletAccounts.find((a) => a.address === address)!.publicKey);
    const { privateKeyTagId } = await root.run<{ privateKeyTagId: string }>(
      'ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG',
      { privateKeyTagName: 'hot', privateKeyIds: [] },
    );
    const createKey = async (privateKeyName: string) => {
      const { privateKeys } = await root.run<{ privateKeys: { privateKeyId: string }[] }>(
        'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2',
        {
          privateKeys: [
            {
              privateKeyName,
              curve: 'CURVE_SECP256K1',
              privateKeyTags: [privateKeyTagId],
              addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
            },
          ],
        },
      );
      return privateKeys[0]!.privateKeyId;
    };
    const signingKey = await createKey('signer');
    const doomedKey = await createKey('doomed');
    const disabledKey = await createKey('disabled');
    const doomed = await root.createWallet({
      walletName: 'doomed',
      accounts: [ETH_ACCOUNT, { ...ETH_ACCOUNT, path: "m/44'/60'/0'/0/1" }],
    });
    const { accounts: doomedAccounts } = await root.query<{
      accounts: { walletAccountId: string; address: string }[];
    }>('list_wallet_accounts', { walletId: doomed.walletId });
    const solanaPayer = publicKeyOf(sol);
    const tronOwner = base58check.decode(tron);
    const btcKey = publicKeyOf(btc);
    const psbt = new Transaction();
    psbt.addInput({
      txid: new Uint8Array(32).fill(3),
      index: 1,
      sequence: 0xfffffffd,
      witnessUtxo: { script: p2wpkh(btcKey).script, amount: 50_000n },
    });
    psbt.addOutput({ script: p2wpkh(btcKey).script, amount: 40_000n });
    const targetPublicKey = bytesToHex(p256.getPublicKey(p256.utils.randomSecretKey(), false));
    const signTransaction = (signWith: string, type: string, unsignedTransaction: string) =>
      root.submit('ACTIVITY_TYPE_SIGN_TRANSACTION_V2', { signWith, type, unsignedTransaction });
    // The ABI of CONTRACT, so that calls to it are decoded (eth.tx.function_name …).
    await root.run('ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', {
      smartContractAddress: CONTRACT,
      smartContractInterface: JSON.stringify([
        {
          type: 'function',
          name: 'transfer',
          inputs: [
            { name: 'to', type: 'address' },
            { name: 'value', type: 'uint256' },
          ],
        },
      ]),
      type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
      label: 'token',
    });
    // An IDL of the Token Program's TransferChecked, so its instructions are decoded.
    await root.run('ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', {
      smartContractAddress: TOKEN_PROGRAM,
      smartContractInterface: JSON.stringify({
        instructions: [
          {
            name: 'transferChecked',
            discriminator: [12],
            accounts: [
              { name: 'source', writable: true },
              { name: 'mint' },
              { name: 'destination', writable: true },
              { name: 'authority', signer: true },
            ],
            args: [
              { name: 'amount', type: 'u64' },
              { name: 'decimals', type: 'u8' },
            ],
          },
        ],
      }),
      type: 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA',
      label: 'token program',
    });

    scenarios = {
      'EIP-712 raw payload, by wallet account address': () =>
        root.submit('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', {
          signWith: eth,
          payload: eip712Payload(MAIL),
          encoding: 'PAYLOAD_ENCODING_EIP712',
          hashFunction: 'HASH_FUNCTION_NO_OP',
        }),
      'EIP-7702 authorization, by private key id': () =>
        root.submit('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', {
          signWith: signingKey,
          payload: JSON.stringify({ address: CONTRACT, chainId: 10, nonce: 3 }),
          encoding: 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION',
          hashFunction: 'HASH_FUNCTION_NO_OP',
        }),
      'legacy Ethereum transaction': () =>
        signTransaction(
          eth,
          'TRANSACTION_TYPE_ETHEREUM',
          serializeTransaction({
            type: 'legacy',
            chainId: 1,
            nonce: 7,
            gasPrice: 20n,
            gas: 50_000n,
            to: RECIPIENT,
            value: 99n,
            data: '0xa9059cbb',
          }).slice(2),
        ),
      'EIP-4844 Ethereum transaction': () =>
        signTransaction(
          eth,
          'TRANSACTION_TYPE_ETHEREUM',
          serializeTransaction({
            type: 'eip4844',
            chainId: 1,
            nonce: 1,
            gas: 21_000n,
            maxFeePerGas: 30n,
            maxPriorityFeePerGas: 2n,
            maxFeePerBlobGas: 5n,
            to: RECIPIENT,
            blobVersionedHashes: [`0x01${'11'.repeat(31)}`],
          }).slice(2),
        ),
      'Ethereum contract call, ABI uploaded': () =>
        signTransaction(
          eth,
          'TRANSACTION_TYPE_ETHEREUM',
          serializeTransaction({
            type: 'eip1559',
            chainId: 1,
            nonce: 2,
            gas: 60_000n,
            maxFeePerGas: 30n,
            maxPriorityFeePerGas: 2n,
            to: CONTRACT,
            data: `0xa9059cbb${RECIPIENT.slice(2).padStart(64, '0')}${5n.toString(16).padStart(64, '0')}`,
          }).slice(2),
        ),
      'Solana v0 transaction': () =>
        signTransaction(sol, 'TRANSACTION_TYPE_SOLANA', solanaTransaction(solanaPayer)),
      'Tron transaction': () =>
        signTransaction(tron, 'TRANSACTION_TYPE_TRON', tronTransaction(tronOwner)),
      'Bitcoin PSBT': () =>
        signTransaction(btc, 'TRANSACTION_TYPE_BITCOIN', bytesToHex(psbt.toPSBT(0))),
      CREATE_WALLET_ACCOUNTS: () =>
        root.submit('ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS', {
          walletId,
          accounts: [{ ...ETH_ACCOUNT, path: "m/44'/60'/0'/0/1" }],
        }),
      EXPORT_WALLET_ACCOUNT: () =>
        root.submit('ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT', { address: eth, targetPublicKey }),
      DISABLE_PRIVATE_KEY: () =>
        root.submit('ACTIVITY_TYPE_DISABLE_PRIVATE_KEY', { privateKeyId: disabledKey }),
      DELETE_PRIVATE_KEYS: () =>
        root.submit('ACTIVITY_TYPE_DELETE_PRIVATE_KEYS', {
          privateKeyIds: [doomedKey],
          deleteWithoutExport: true,
        }),
      DELETE_WALLET_ACCOUNTS: () =>
        root.submit('ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS', {
          walletAccountIds: [doomedAccounts[0]!.walletAccountId],
          deleteWithoutExport: true,
        }),
      DELETE_WALLETS: () =>
        root.submit('ACTIVITY_TYPE_DELETE_WALLETS', {
          walletIds: [doomed.walletId],
          deleteWithoutExport: true,
        }),
    };

    const E712 = 'EIP-712 raw payload, by wallet account address';
    const E7702 = 'EIP-7702 authorization, by private key id';
    const LEGACY = 'legacy Ethereum transaction';
    const BLOB = 'EIP-4844 Ethereum transaction';
    const SOL = 'Solana v0 transaction';
    const CALL = 'Ethereum contract call, ABI uploaded';
    const TRX = 'Tron transaction';
    const BTC = 'Bitcoin PSBT';
    const p = (
      scenario: string,
      value: Scalar,
      where: { access?: string; at?: number[] } = {},
    ): Probe[] => [{ scenario, value, ...where }];
    const table = base58.encode(SOLANA.table);
    /** The keywords of one Tron permission of the AccountPermissionUpdateContract. */
    /** The keywords of one Tron permission of the AccountPermissionUpdateContract (the 6th). */
    const permissionCases = (
      field: 'owner' | 'witness' | 'actives[]',
      type: string,
      id: bigint,
      threshold: bigint,
      weight: bigint,
    ): Record<string, Probe[]> => {
      const at = `tron.tx.contract[].${field}`;
      const where = { at: [5, 0, 0] };
      return {
        [`${at}.type`]: p(TRX, type, where),
        [`${at}.id`]: p(TRX, id, where),
        [`${at}.permission_name`]: p(TRX, type.toLowerCase(), where),
        [`${at}.threshold`]: p(TRX, threshold, where),
        [`${at}.parent_id`]: p(TRX, 0n, where),
        [`${at}.operations`]: p(TRX, `7fff0${id}`, where),
        [`${at}.keys[].address`]: p(TRX, base58check.encode(TRON.key), where),
        [`${at}.keys[].weight`]: p(TRX, weight, where),
      };
    };
    cases = {
      'activity.type': p(E712, 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'),
      'activity.kind': p(E712, 'SIGN_RAW_PAYLOAD'),
      'activity.resource': p(E712, 'PRIVATE_KEY'),
      'activity.action': p(E712, 'SIGN'),
      'activity.params': p(E712, 'PAYLOAD_ENCODING_EIP712', { access: "['encoding']" }),
      'wallet.id': [
        ...p(E712, walletId),
        ...p('CREATE_WALLET_ACCOUNTS', walletId),
        ...p('DELETE_WALLETS', doomed.walletId),
      ],
      'wallet.imported': p(E712, false),
      'wallet.exported': p(E712, false),
      'wallet.label': p(E712, 'keywords'),
      'wallets[].id': [...p(E712, walletId), ...p('DELETE_WALLETS', doomed.walletId)],
      'wallets[].imported': p(E712, false),
      'wallets[].exported': p(E712, false),
      'wallets[].label': p(E712, 'keywords'),
      'wallet_account.address': [
        ...p(E712, eth),
        ...p('EXPORT_WALLET_ACCOUNT', eth),
        ...p('DELETE_WALLET_ACCOUNTS', doomedAccounts[0]!.address),
      ],
      'private_key.id': [
        ...p(E7702, signingKey),
        ...p('DISABLE_PRIVATE_KEY', disabledKey),
        ...p('DELETE_PRIVATE_KEYS', doomedKey),
      ],
      'private_key.tags': p(E7702, privateKeyTagId),
      'private_key.imported': p(E7702, false),
      'private_key.exported': p(E7702, false),
      'private_key.label': p(E7702, 'signer'),
      'eth.tx.from': p(LEGACY, eth.toLowerCase()),
      'eth.tx.to': p(LEGACY, RECIPIENT),
      'eth.tx.data': p(LEGACY, '0xa9059cbb'),
      'eth.tx.value': p(LEGACY, 99n),
      'eth.tx.gas': p(LEGACY, 50_000n),
      'eth.tx.gas_price': p(LEGACY, 20n),
      'eth.tx.chain_id': p(LEGACY, 1n),
      'eth.tx.nonce': p(LEGACY, 7n),
      'eth.tx.max_fee_per_gas': p(BLOB, 30n),
      'eth.tx.max_priority_fee_per_gas': p(BLOB, 2n),
      'eth.tx.max_fee_per_blob_gas': p(BLOB, 5n),
      'eth.tx.type': p(BLOB, 'eip4844'),
      'eth.tx.function_name': p(CALL, 'transfer'),
      'eth.tx.function_signature': p(CALL, '0xa9059cbb'),
      'eth.tx.contract_call_args': [
        ...p(CALL, 5n, { access: "['value']" }),
        ...p(CALL, RECIPIENT, { access: "['to']" }),
      ],
      'eth.eip_712.primary_type': p(E712, 'Mail'),
      'eth.eip_712.domain.name': p(E712, 'Ether Mail'),
      'eth.eip_712.domain.version': p(E712, '1'),
      'eth.eip_712.domain.chain_id': p(E712, 1n),
      'eth.eip_712.domain.verifying_contract': p(E712, CONTRACT),
      'eth.eip_712.message': [
        ...p(E712, '0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', { access: "['to']['wallet']" }),
        ...p(E712, 10n ** 24n, { access: "['amount']" }),
      ],
      'eth.eip_7702_authorization.address': p(E7702, CONTRACT),
      'eth.eip_7702_authorization.chain_id': p(E7702, 10n),
      'eth.eip_7702_authorization.nonce': p(E7702, 3n),
      'solana.tx.account_keys': p(SOL, sol),
      'solana.tx.program_keys': p(SOL, TOKEN_PROGRAM),
      'solana.tx.instructions[].program_key': p(SOL, TOKEN_PROGRAM, { at: [1] }),
      'solana.tx.instructions[].accounts[].account_key': p(SOL, base58.encode(SOLANA.mint), {
        at: [1, 1],
      }),
      'solana.tx.instructions[].accounts[].signer': p(SOL, true),
      'solana.tx.instructions[].accounts[].writable': p(SOL, false, { at: [1, 1] }),
      'solana.tx.instructions[].instruction_data_hex': p(SOL, '0200000040420f0000000000'),
      'solana.tx.instructions[].parsed_instruction_data.instruction_name': p(
        SOL,
        'transferChecked',
        { at: [1] },
      ),
      'solana.tx.instructions[].parsed_instruction_data.discriminator': p(SOL, '0c', { at: [1] }),
      'solana.tx.instructions[].parsed_instruction_data.named_account': p(
        SOL,
        base58.encode(SOLANA.mint),
        { at: [1], access: "['mint']" },
      ),
      'solana.tx.instructions[].parsed_instruction_data.named_accounts': p(
        SOL,
        base58.encode(SOLANA.destination),
        { at: [1], access: "['destination']" },
      ),
      'solana.tx.instructions[].parsed_instruction_data.program_call_args': [
        ...p(SOL, 777n, { at: [1], access: "['amount']" }),
        ...p(SOL, 6n, { at: [1], access: "['decimals']" }),
      ],
      'solana.tx.instructions[].address_table_lookups[].address_table_key': p(SOL, table, {
        at: [2, 0],
      }),
      'solana.tx.instructions[].address_table_lookups[].writable_indexes': p(SOL, 3n, {
        at: [2, 0],
      }),
      'solana.tx.instructions[].address_table_lookups[].readonly_indexes': p(SOL, 9n, {
        at: [2, 0],
      }),
      'solana.tx.transfers[].from': p(SOL, sol),
      'solana.tx.transfers[].to': p(SOL, base58.encode(SOLANA.recipient)),
      'solana.tx.transfers[].amount': p(SOL, 1_000_000n),
      'solana.tx.spl_transfers[].from': p(SOL, base58.encode(SOLANA.source)),
      'solana.tx.spl_transfers[].to': p(SOL, base58.encode(SOLANA.destination)),
      'solana.tx.spl_transfers[].amount': p(SOL, 777n),
      'solana.tx.spl_transfers[].owner': p(SOL, sol),
      'solana.tx.spl_transfers[].signers': p(SOL, base58.encode(SOLANA.recipient)),
      'solana.tx.spl_transfers[].token_mint': p(SOL, base58.encode(SOLANA.mint)),
      'solana.tx.recent_blockhash': p(SOL, base58.encode(SOLANA.blockhash)),
      'solana.tx.address_table_lookups[].address_table_key': p(SOL, table),
      'solana.tx.address_table_lookups[].writable_indexes': p(SOL, 3n),
      'solana.tx.address_table_lookups[].readonly_indexes': p(SOL, 9n),
      'tron.tx.ref_block_bytes': p(TRX, '5123'),
      'tron.tx.ref_block_hash': p(TRX, '0101010101010101'),
      'tron.tx.expiration': p(TRX, 1_700_000_060_000n),
      'tron.tx.timestamp': p(TRX, 1_700_000_000_000n),
      'tron.tx.data': p(TRX, bytesToHex(utf8('memo'))),
      'tron.tx.fee_limit': p(TRX, 10_000_000n),
      'tron.tx.contract[].type': p(TRX, 'TriggerSmartContract', { at: [1] }),
      'tron.tx.contract[].permission_id': p(TRX, 2n, { at: [1] }),
      'tron.tx.contract[].owner_address': p(TRX, tron),
      'tron.tx.contract[].to_address': p(TRX, base58check.encode(TRON.to)),
      'tron.tx.contract[].amount': p(TRX, 100n),
      'tron.tx.contract[].contract_address': p(TRX, base58check.encode(TRON.contract), {
        at: [1],
      }),
      'tron.tx.contract[].call_value': p(TRX, 5n, { at: [1] }),
      'tron.tx.contract[].data': p(TRX, 'a9059cbb', { at: [1] }),
      'tron.tx.contract[].call_token_value': p(TRX, 6n, { at: [1] }),
      'tron.tx.contract[].token_id': p(TRX, 1_000_001n, { at: [1] }),
      'tron.tx.contract[].resource': p(TRX, 'ENERGY', { at: [2] }),
      'tron.tx.contract[].balance': p(TRX, 2000n, { at: [4] }),
      'tron.tx.contract[].receiver_address': p(TRX, base58check.encode(TRON.receiver), {
        at: [4],
      }),
      'tron.tx.contract[].lock': p(TRX, true, { at: [4] }),
      'tron.tx.contract[].lock_period': p(TRX, 86_400n, { at: [4] }),
      'tron.tx.contract[].frozen_balance': p(TRX, 1000n, { at: [2] }),
      'tron.tx.contract[].unfreeze_balance': p(TRX, 500n, { at: [3] }),
      ...permissionCases('owner', 'Owner', 0n, 1n, 1n),
      ...permissionCases('witness', 'Witness', 1n, 1n, 1n),
      ...permissionCases('actives[]', 'Active', 2n, 2n, 2n),
      'bitcoin.tx.version': p(BTC, '2'),
      'bitcoin.tx.inputs[].tx_id': p(BTC, '03'.repeat(32)),
      'bitcoin.tx.inputs[].vout': p(BTC, 1n),
      'bitcoin.tx.inputs[].sequence': p(BTC, 0xfffffffdn),
      'bitcoin.tx.outputs[].value': p(BTC, 40_000n),
      'bitcoin.tx.outputs[].script_pubkey': p(BTC, bytesToHex(p2wpkh(btcKey).script)),
      'bitcoin.tx.outputs[].address_type': p(BTC, 'P2WPKH'),
      'bitcoin.tx.locktime.amount': p(BTC, 0n),
      'bitcoin.tx.locktime.type': p(BTC, 'BLOCK_HEIGHT'),
      'bitcoin.tx.fee': p(BTC, 10_000n),
    };
  });

  it('enumerates the schema: every keyword has a case or a documented exclusion, and no case or exclusion is stale', () => {
    expect(keywords.length).toBeGreaterThan(100);
    const paths = new Set(keywords.map((k) => k.path));
    expect(keywords.filter((k) => !excluded(k.path) && !cases[k.path]).map((k) => k.path)).toEqual(
      [],
    );
    expect(Object.keys(cases).filter((path) => !paths.has(path) || excluded(path))).toEqual([]);
    expect(
      Object.keys(EXCLUDED).filter((prefix) => !keywords.some((k) => under(prefix, k.path))),
    ).toEqual([]);
  });

  it('each case: a condition on the keyword evaluates to true and one to false, never OUTCOME_ERROR', async () => {
    const byScenario = new Map<string, { keyword: Keyword; probe: Probe }[]>();
    for (const keyword of keywords) {
      for (const probe of cases[keyword.path] ?? []) {
        byScenario.set(probe.scenario, [
          ...(byScenario.get(probe.scenario) ?? []),
          { keyword, probe },
        ]);
      }
    }
    expect([...byScenario.keys()].filter((s) => !scenarios[s])).toEqual([]);
    const failures: string[] = [];
    // In the order of `scenarios` (the deletions come last).
    for (const scenario of Object.keys(scenarios).filter((s) => byScenario.has(s))) {
      const probes = byScenario.get(scenario)!;
      // ALLOW policies only: they record an outcome and never stand in the root user's way.
      const policies = probes.flatMap(({ keyword, probe }) => {
        const { truthy, falsy } = conditionsOf(keyword, probe);
        return [
          { expected: 'OUTCOME_ALLOW', condition: truthy, keyword: keyword.path },
          { expected: 'OUTCOME_DENY_IMPLICIT', condition: falsy, keyword: keyword.path },
        ];
      });
      const { policyIds } = await t.embedded.run<{ policyIds: string[] }>(
        'ACTIVITY_TYPE_CREATE_POLICIES',
        {
          policies: policies.map((q, i) => ({
            policyName: `${scenario} ${i}`,
            effect: 'EFFECT_ALLOW',
            condition: q.condition,
            notes: '',
          })),
        },
      );
      const activity = await scenarios[scenario]!();
      expect(activity.status, scenario).toBe('ACTIVITY_STATUS_COMPLETED');
      // The write-time table of what each activity type carries agrees with what it filled.
      const carried = keywordsOfActivityType(activity.type) as readonly string[];
      for (const { keyword } of probes) {
        const [first, second] = keyword.path.split(/[.[]/);
        const root = ['eth', 'solana', 'tron', 'bitcoin', 'tempo'].includes(first!)
          ? `${first}.${second}`
          : first!;
        if (root !== 'activity' && !carried.includes(root)) {
          failures.push(
            `${keyword.path} is filled by ${activity.type}: KEYWORDS_BY_KIND misses ${root}`,
          );
        }
      }
      const outcomes = await policyEvaluations(t.embedded, activity);
      policies.forEach((q, i) => {
        const outcome = outcomes.get(policyIds[i]!);
        if (outcome !== q.expected) {
          failures.push(
            `${q.keyword} (${scenario}): ${q.condition} → ${outcome}, not ${q.expected}`,
          );
        }
      });
      await t.embedded.run('ACTIVITY_TYPE_DELETE_POLICIES', { policyIds });
    }
    expect(failures).toEqual([]);
  });
});

describe('EIP-712 policies decide a non-root signature (issue #9)', () => {
  const DENY_MAIL = "eth.eip_712.primary_type == 'Mail'";
  /** A refusal by policy, as @turnkey/viem ("Turnkey error 7: …") and the embedded client
   *  ("Keyhold error 7: …") report it: gRPC PERMISSION_DENIED, whatever the wording. */
  const PERMISSION_DENIED = /\berror 7: /;
  let address: `0x${string}`;
  let bob: { client: SdkClient; embedded: KeyholdClient };
  const policyIds: string[] = [];

  const policy = async (effect: 'EFFECT_ALLOW' | 'EFFECT_DENY', condition: string) => {
    const { policyId } = await t.embedded.run<{ policyId: string }>(
      'ACTIVITY_TYPE_CREATE_POLICY_V3',
      { policyName: `${effect} ${condition}`, effect, condition, notes: '' },
    );
    policyIds.push(policyId);
  };

  beforeAll(async () => {
    const { addresses } = await t.client.createWallet({
      walletName: 'eip712',
      accounts: [ETH_ACCOUNT],
    });
    address = addresses[0] as `0x${string}`;
    // Bob is not in the root quorum (the bootstrap user alone is): policies decide for him.
    const key = generateApiKeyPair();
    await t.embedded.run('ACTIVITY_TYPE_CREATE_USERS_V3', {
      users: [
        {
          userName: 'bob',
          apiKeys: [
            { apiKeyName: 'bob', publicKey: key.publicKey, curveType: 'API_KEY_CURVE_P256' },
          ],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    bob = {
      client: sdkClient(t.server.url, t.organizationId, key),
      embedded: t.server.keyhold.client({
        organizationId: t.organizationId,
        apiPrivateKey: key.privateKey,
      }),
    };
  });

  afterEach(async () => {
    if (policyIds.length > 0) {
      await t.embedded.run('ACTIVITY_TYPE_DELETE_POLICIES', { policyIds: policyIds.splice(0) });
    }
  });

  /** A viem wallet client on the @turnkey/viem account of Bob: it declares EIP712Domain. */
  const bobsWallet = async () =>
    createWalletClient({
      account: await createAccount({
        client: bob.client as Parameters<typeof createAccount>[0]['client'],
        organizationId: t.organizationId,
        signWith: address,
      }),
      transport: http('http://127.0.0.1:9'), // never called: the account signs through Keyhold
    });

  it('an EIP-712 DENY stops the signature; other typed data still signs', async () => {
    await policy('EFFECT_ALLOW', "activity.action == 'SIGN'");
    await policy('EFFECT_DENY', DENY_MAIL);
    const wallet = await bobsWallet();
    const error = await rejection(wallet.signTypedData(MAIL));
    expect(error.message).toMatch(PERMISSION_DENIED);
    const signature = await wallet.signTypedData(PERMIT);
    expect(await verifyTypedData({ address, ...PERMIT, signature })).toBe(true);
  });

  it('an EIP-712 ALLOW on the message grants the signature, and only what it names', async () => {
    const wallet = await bobsWallet();
    // No policy: implicitly denied.
    expect((await rejection(wallet.signTypedData(MAIL))).message).toMatch(PERMISSION_DENIED);
    await policy(
      'EFFECT_ALLOW',
      "eth.eip_712.primary_type == 'Mail' && eth.eip_712.domain.chain_id == 1 && " +
        "eth.eip_712.message['to']['wallet'] == '0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'",
    );
    const signature = await wallet.signTypedData(MAIL);
    expect(await verifyTypedData({ address, ...MAIL, signature })).toBe(true);
    const elsewhere = { ...MAIL, domain: { ...MAIL.domain, chainId: 5n } };
    expect((await rejection(wallet.signTypedData(elsewhere))).message).toMatch(PERMISSION_DENIED);
    const toCarol = {
      ...MAIL,
      message: { ...MAIL.message, to: { name: 'Carol', wallet: RECIPIENT } },
    } as const;
    expect((await rejection(wallet.signTypedData(toCarol))).message).toMatch(PERMISSION_DENIED);
  });

  it('SIGN_RAW_PAYLOADS: distinct payloads fail closed, identical ones are one payload', async () => {
    const batch = (payloads: string[]) =>
      bob.embedded.submit('ACTIVITY_TYPE_SIGN_RAW_PAYLOADS', {
        signWith: address,
        payloads,
        encoding: 'PAYLOAD_ENCODING_EIP712',
        hashFunction: 'HASH_FUNCTION_NO_OP',
      });
    const mail = eip712Payload(MAIL);
    const permit = eip712Payload(PERMIT);
    await policy('EFFECT_ALLOW', "activity.action == 'SIGN'");
    await policy('EFFECT_DENY', DENY_MAIL);
    // The Mail hidden behind a Permit is denied; a batch of Permits signs.
    expect((await rejection(batch([permit, mail]))).message).toMatch(PERMISSION_DENIED);
    expect((await rejection(batch([permit, eip712Payload(PERMIT_ELSEWHERE)]))).message).toMatch(
      PERMISSION_DENIED,
    );
    expect((await batch([permit, permit])).status).toBe('ACTIVITY_STATUS_COMPLETED');
    await t.embedded.run('ACTIVITY_TYPE_DELETE_POLICIES', { policyIds: policyIds.splice(0) });
    // An ALLOW on the Permit grants it alone, never a batch it cannot judge.
    await policy('EFFECT_ALLOW', "eth.eip_712.primary_type == 'Permit'");
    expect((await batch([permit])).status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect((await rejection(batch([permit, eip712Payload(PERMIT_ELSEWHERE)]))).message).toMatch(
      PERMISSION_DENIED,
    );
  });
});

describe('a singular keyword over several targets fails closed', () => {
  it('DELETE_WALLETS of two wallets: `wallet` is an error, `wallets` reads both', async () => {
    const ids: string[] = [];
    for (const walletName of ['one', 'two']) {
      ids.push((await t.embedded.createWallet({ walletName, accounts: [ETH_ACCOUNT] })).walletId);
    }
    const conditions = [
      `wallet.id == '${ids[0]}'`,
      `wallets.any(w, w.id == '${ids[1]}')`,
      `wallets.all(w, w.label == 'one')`,
    ];
    const { policyIds } = await t.embedded.run<{ policyIds: string[] }>(
      'ACTIVITY_TYPE_CREATE_POLICIES',
      {
        policies: conditions.map((condition) => ({
          policyName: condition,
          effect: 'EFFECT_ALLOW',
          condition,
          notes: '',
        })),
      },
    );
    // The root user's deletion runs (root quorum); the evaluations show what policies saw.
    const deleted = await t.embedded.submit('ACTIVITY_TYPE_DELETE_WALLETS', {
      walletIds: ids,
      deleteWithoutExport: true,
    });
    expect(deleted.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const outcomes = await policyEvaluations(t.embedded, deleted);
    expect(policyIds.map((id) => outcomes.get(id))).toEqual([
      'OUTCOME_ERROR',
      'OUTCOME_ALLOW',
      'OUTCOME_DENY_IMPLICIT',
    ]);
    await t.embedded.run('ACTIVITY_TYPE_DELETE_POLICIES', { policyIds });
  });
});
