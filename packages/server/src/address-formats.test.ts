/**
 * Every address format of the wire protocol, through the published client: a wallet gets one
 * account per format (on the format's curve and default path), each account's address names it
 * as `signWith`, and the signature verifies under the account's public key. Run on memory and
 * on the embedded SQL store (PGlite), where addresses are looked up by the store.
 */

import type { RunningServer } from '@keyhold/cli';
import {
  curvesForAddressFormat,
  defaultPathFor,
  deriveAddress,
  SUPPORTED_ADDRESS_FORMATS,
} from '@keyhold/keys';
import type { AddressFormat, Curve } from '@keyhold/protocol';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeStoreTargets, STORE_TARGETS } from './__fixtures__/store-targets.js';
import { type SdkClient, startTurnkeyServer } from './__fixtures__/turnkey-server.js';

const ABANDON =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/** Account `index` of a format: its default path, or a path of our own where it has none. */
function accountFor(addressFormat: AddressFormat, index: number) {
  const curve = curvesForAddressFormat(addressFormat)[0]!;
  const path =
    defaultPathFor(addressFormat, index) ??
    (curve === 'CURVE_ED25519' ? `m/44'/1'/${index}'/0'` : `m/44'/1'/${index}'/0/0`);
  return {
    curve,
    pathFormat: 'PATH_FORMAT_BIP32',
    path,
    // UNSPECIFIED is no SUPPORTED_ADDRESS_FORMAT; the client's type leaves it out too.
    addressFormat: addressFormat as Exclude<AddressFormat, 'ADDRESS_FORMAT_UNSPECIFIED'>,
  } as const;
}

/** Verifies a signRawPayload result over `digest` (ECDSA) or `message` (Ed25519). */
function verifies(curve: Curve, publicKey: string, signed: { r: string; s: string }, data: string) {
  const signature = hexToBytes(signed.r + signed.s);
  const key = hexToBytes(publicKey);
  const bytes = hexToBytes(data);
  switch (curve) {
    case 'CURVE_ED25519':
      return ed25519.verify(signature, bytes, key);
    case 'CURVE_P256':
      return p256.verify(signature, bytes, key, { prehash: false });
    default:
      return secp256k1.verify(signature, bytes, key, { prehash: false });
  }
}

afterAll(closeStoreTargets);

describe.each(STORE_TARGETS)('every address format on %s', (_, openStore) => {
  let server: RunningServer;
  let client: SdkClient;
  let walletId: string;
  const formats = SUPPORTED_ADDRESS_FORMATS;

  beforeAll(async () => {
    ({ server, client } = await startTurnkeyServer(await openStore()));
    const created = await client.createWallet({
      walletName: 'all formats',
      mnemonicLength: 12,
      accounts: formats.map((format, index) => accountFor(format, index)),
    });
    walletId = created.walletId;
  });
  afterAll(() => server?.close());

  it('creates one account per format, with the address its public key encodes to', async () => {
    const { accounts } = await client.getWalletAccounts({ walletId });
    expect(accounts.map((a) => a.addressFormat)).toEqual([...formats]);
    for (const account of accounts) {
      expect(account.address).toBe(
        deriveAddress(
          account.addressFormat as AddressFormat,
          account.curve as Curve,
          hexToBytes(account.publicKey!),
        ),
      );
    }
    // Addresses are distinct across formats (the same key never collides into one string).
    expect(new Set(accounts.map((a) => a.address)).size).toBe(accounts.length);
  });

  it('signs with each account named by its address', async () => {
    const { accounts } = await client.getWalletAccounts({ walletId });
    const data = bytesToHex(new Uint8Array(32).fill(0x5a));
    for (const account of accounts) {
      const signed = await client.signRawPayload({
        signWith: account.address,
        payload: data,
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction:
          account.curve === 'CURVE_ED25519'
            ? 'HASH_FUNCTION_NOT_APPLICABLE'
            : 'HASH_FUNCTION_NO_OP',
      });
      expect({ format: account.addressFormat, status: signed.activity.status }).toEqual({
        format: account.addressFormat,
        status: 'ACTIVITY_STATUS_COMPLETED',
      });
      expect(verifies(account.curve as Curve, account.publicKey!, signed, data)).toBe(true);
    }
  });

  it('an imported "abandon … about" wallet gives the published addresses', async () => {
    const { importBundle } = await client.initImportWallet({ userId: server.userId! });
    const { encryptWalletToBundle } = await import('@turnkey/crypto');
    const encryptedBundle = await encryptWalletToBundle({
      mnemonic: ABANDON,
      importBundle,
      userId: server.userId!,
      organizationId: server.organizationId!,
      dangerouslyOverrideSignerPublicKey: server.keyhold.signerPublicKey,
    });
    const { addresses } = await client.importWallet({
      userId: server.userId!,
      walletName: 'abandon',
      encryptedBundle,
      accounts: [
        accountFor('ADDRESS_FORMAT_ETHEREUM', 0),
        accountFor('ADDRESS_FORMAT_SOLANA', 0),
        accountFor('ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH', 0),
        accountFor('ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR', 0),
      ],
    });
    expect(addresses).toEqual([
      '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', // BIP44 test vector, MetaMask's first account
      'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk', // Phantom / Solana CLI, m/44'/501'/0'/0'
      'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', // BIP84 test vector
      'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr', // BIP86 test vector
    ]);
  });
});
