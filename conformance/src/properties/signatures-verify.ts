/**
 * signatures-verify: every signature the service returns verifies, independently, against
 * the address it returned for the signing key.
 *
 * Cases combine a key kind (curve × address format), where the key lives (an account of one
 * shared wallet at a generated index, or a standalone private key named by address or id),
 * a hash function the curve accepts, an encoding and one or more payloads (one per
 * SIGN_RAW_PAYLOAD_V2 or, for private keys, V1 by id; up to three per SIGN_RAW_PAYLOADS). Keys are created on first use and
 * reused, so a run creates a few accounts and keys rather than one per case.
 * @module
 */
import assert from 'node:assert/strict';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { ConformanceClient } from '../client.js';
import { type ConformanceProperty, fcParameters } from '../property.js';
import type { ConformanceTarget } from '../target.js';
import { type SigningCurve, verifyRawPayloadSignature } from '../verify-signature.js';

export interface KeyKind {
  curve: SigningCurve;
  addressFormat: string;
  /** The derivation path of wallet account `i`; every kind uses distinct paths. */
  path: string;
}

/** The (curve, address format) pairs the suite signs with. */
export const KEY_KINDS: readonly KeyKind[] = [
  { curve: 'CURVE_SECP256K1', addressFormat: 'ADDRESS_FORMAT_ETHEREUM', path: "m/44'/60'/i'/0/0" },
  { curve: 'CURVE_SECP256K1', addressFormat: 'ADDRESS_FORMAT_COMPRESSED', path: "m/44'/0'/i'/0/0" },
  {
    curve: 'CURVE_SECP256K1',
    addressFormat: 'ADDRESS_FORMAT_UNCOMPRESSED',
    path: "m/44'/1'/i'/0/0",
  },
  { curve: 'CURVE_P256', addressFormat: 'ADDRESS_FORMAT_COMPRESSED', path: "m/44'/256'/i'/0'/0'" },
  {
    curve: 'CURVE_P256',
    addressFormat: 'ADDRESS_FORMAT_UNCOMPRESSED',
    path: "m/44'/257'/i'/0'/0'",
  },
  { curve: 'CURVE_ED25519', addressFormat: 'ADDRESS_FORMAT_SOLANA', path: "m/44'/501'/i'/0'" },
  { curve: 'CURVE_ED25519', addressFormat: 'ADDRESS_FORMAT_COMPRESSED', path: "m/44'/502'/i'/0'" },
];

/** The path of account `index` of a key kind. */
export function pathOf(kind: KeyKind, index: number): string {
  return kind.path.replace('i', String(index));
}

const ECDSA_HASHES = [
  'HASH_FUNCTION_NO_OP',
  'HASH_FUNCTION_SHA256',
  'HASH_FUNCTION_KECCAK256',
] as const;
const HEX = 'PAYLOAD_ENCODING_HEXADECIMAL';
const TEXT = 'PAYLOAD_ENCODING_TEXT_UTF8';

interface Payload {
  /** As sent. */
  payload: string;
  /** The bytes it decodes to. */
  message: Uint8Array;
}

/** A payload of `encoding`; exactly 32 bytes for NO_OP (a digest), 1+ bytes otherwise. */
function payloadArb(encoding: string, hashFunction: string): fc.Arbitrary<Payload> {
  if (encoding === TEXT) {
    return fc
      .string({ unit: 'grapheme', minLength: 1, maxLength: 48 })
      .map((text) => ({ payload: text, message: utf8ToBytes(text) }));
  }
  const size =
    hashFunction === 'HASH_FUNCTION_NO_OP'
      ? { minLength: 32, maxLength: 32 }
      : { minLength: 1, maxLength: 96 };
  return fc.tuple(fc.uint8Array(size), fc.boolean()).map(([bytes, prefixed]) => ({
    payload: `${prefixed ? '0x' : ''}${bytesToHex(bytes)}`,
    message: bytes,
  }));
}

export interface SigningCase {
  kind: KeyKind;
  /** Where the key lives. */
  source: 'wallet-account' | 'private-key';
  /** Wallet account index, or which of a few private keys of that kind. */
  index: number;
  /** Private keys only: name the signer by private key id instead of address. */
  signWithId: boolean;
  /** SIGN_RAW_PAYLOADS (a batch) instead of SIGN_RAW_PAYLOAD_V2. */
  batch: boolean;
  /** Private keys, one payload: SIGN_RAW_PAYLOAD (V1, by `privateKeyId`) instead of V2. */
  v1: boolean;
  hashFunction: string;
  encoding: string;
  payloads: Payload[];
}

export const signingCaseArb: fc.Arbitrary<SigningCase> = fc
  .record({
    kind: fc.constantFrom(...KEY_KINDS),
    source: fc.constantFrom('wallet-account' as const, 'private-key' as const),
    index: fc.nat({ max: 3 }),
    signWithId: fc.boolean(),
    batch: fc.boolean(),
    v1: fc.boolean(),
  })
  .chain((base) =>
    fc
      .constantFrom<string>(
        ...(base.kind.curve === 'CURVE_ED25519' ? ['HASH_FUNCTION_NOT_APPLICABLE'] : ECDSA_HASHES),
      )
      .chain((hashFunction) =>
        fc
          .constantFrom(...(hashFunction === 'HASH_FUNCTION_NO_OP' ? [HEX] : [HEX, TEXT]))
          .chain((encoding) =>
            fc
              .array(payloadArb(encoding, hashFunction), {
                minLength: 1,
                maxLength: base.batch ? 3 : 1,
              })
              .map((payloads) => ({ ...base, hashFunction, encoding, payloads })),
          ),
      ),
  );

let nameCounter = 0;
/** A name no earlier run used (wallet and private key names are unique per organization). */
export function uniqueName(prefix: string): string {
  nameCounter += 1;
  return `${prefix}-${Date.now().toString(36)}-${nameCounter}-${Math.random().toString(36).slice(2, 8)}`;
}

interface Signer {
  address: string;
  privateKeyId?: string;
}

/** Creates keys on first use and remembers them for the rest of the run. */
export class SignerPool {
  private walletId: string | undefined;
  private readonly accounts = new Map<string, string>();
  private readonly keys = new Map<string, Signer>();

  constructor(private readonly client: ConformanceClient) {}

  async get(kind: KeyKind, source: SigningCase['source'], index: number): Promise<Signer> {
    return source === 'wallet-account'
      ? { address: await this.account(kind, index) }
      : this.privateKey(kind, index);
  }

  async account(kind: KeyKind, index: number): Promise<string> {
    const path = pathOf(kind, index);
    const known = this.accounts.get(path);
    if (known) return known;
    const account = {
      curve: kind.curve,
      pathFormat: 'PATH_FORMAT_BIP32',
      path,
      addressFormat: kind.addressFormat,
    };
    let addresses: unknown;
    if (this.walletId === undefined) {
      const result = await this.client.execute(
        'ACTIVITY_TYPE_CREATE_WALLET',
        'create_wallet',
        { walletName: uniqueName('conformance-wallet'), accounts: [account] },
        'createWalletResult',
      );
      assert.equal(typeof result.walletId, 'string', 'createWalletResult.walletId is not a string');
      this.walletId = result.walletId as string;
      addresses = result.addresses;
    } else {
      const result = await this.client.execute(
        'ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS',
        'create_wallet_accounts',
        { walletId: this.walletId, accounts: [account] },
        'createWalletAccountsResult',
      );
      addresses = result.addresses;
    }
    assert.ok(
      Array.isArray(addresses) && addresses.length === 1 && typeof addresses[0] === 'string',
      `expected one address for one account, got ${JSON.stringify(addresses)}`,
    );
    const address = addresses[0] as string;
    this.accounts.set(path, address);
    return address;
  }

  async privateKey(kind: KeyKind, index: number): Promise<Signer> {
    const key = `${kind.curve}|${kind.addressFormat}|${index}`;
    const known = this.keys.get(key);
    if (known) return known;
    const result = await this.client.execute(
      'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2',
      'create_private_keys',
      {
        privateKeys: [
          {
            privateKeyName: uniqueName('conformance-key'),
            curve: kind.curve,
            privateKeyTags: [],
            addressFormats: [kind.addressFormat],
          },
        ],
      },
      'createPrivateKeysResultV2',
    );
    const created = result.privateKeys?.[0];
    assert.equal(
      typeof created?.privateKeyId,
      'string',
      `no privateKeyId in ${JSON.stringify(result)}`,
    );
    const entry = (created.addresses ?? []).find(
      (a: { format?: string }) => a.format === kind.addressFormat,
    ) as { address?: unknown } | undefined;
    assert.equal(
      typeof entry?.address,
      'string',
      `no ${kind.addressFormat} address in ${JSON.stringify(created.addresses)}`,
    );
    const signer = {
      address: entry!.address as string,
      privateKeyId: created.privateKeyId as string,
    };
    this.keys.set(key, signer);
    return signer;
  }
}

async function signAndVerify(
  client: ConformanceClient,
  pool: SignerPool,
  c: SigningCase,
): Promise<void> {
  const signer = await pool.get(c.kind, c.source, c.index);
  const signWith = c.signWithId && signer.privateKeyId ? signer.privateKeyId : signer.address;
  const common = { signWith, encoding: c.encoding, hashFunction: c.hashFunction };
  let signatures: unknown;
  if (c.batch) {
    const result = await client.execute(
      'ACTIVITY_TYPE_SIGN_RAW_PAYLOADS',
      'sign_raw_payloads',
      { ...common, payloads: c.payloads.map((p) => p.payload) },
      'signRawPayloadsResult',
    );
    signatures = result.signatures;
  } else if (c.v1 && signer.privateKeyId) {
    const result = await client.execute(
      'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD',
      'sign_raw_payload',
      {
        privateKeyId: signer.privateKeyId,
        payload: c.payloads[0]!.payload,
        encoding: c.encoding,
        hashFunction: c.hashFunction,
      },
      'signRawPayloadResult',
    );
    signatures = [result];
  } else {
    const result = await client.execute(
      'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
      'sign_raw_payload',
      { ...common, payload: c.payloads[0]!.payload },
      'signRawPayloadResult',
    );
    signatures = [result];
  }
  assert.ok(
    Array.isArray(signatures) && signatures.length === c.payloads.length,
    `expected ${c.payloads.length} signature(s), got ${JSON.stringify(signatures)}`,
  );
  c.payloads.forEach((p, i) => {
    verifyRawPayloadSignature({
      curve: c.kind.curve,
      addressFormat: c.kind.addressFormat,
      address: signer.address,
      message: p.message,
      hashFunction: c.hashFunction,
      signature: (signatures as never[])[i]!,
    });
  });
}

export const signaturesVerify: ConformanceProperty = {
  name: 'signatures-verify',
  description:
    'every raw-payload signature (wallet accounts and private keys; secp256k1, P-256, Ed25519; every ' +
    'hash function and encoding) verifies independently against the address returned for its key',
  async run(target: ConformanceTarget, options) {
    const client = new ConformanceClient(target);
    const pool = new SignerPool(client);
    await fc.assert(
      fc.asyncProperty(signingCaseArb, (c) => signAndVerify(client, pool, c)),
      fcParameters(options),
    );
  },
};
