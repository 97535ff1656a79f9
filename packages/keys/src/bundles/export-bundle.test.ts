import { isKeyholdError, KeyholdError } from '@keyhold/protocol';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';
import {
  decryptExportBundle,
  generateP256KeyPair,
  PRODUCTION_SIGNER_SIGN_PUBLIC_KEY,
} from '@turnkey/crypto';
import { describe, expect, it } from 'vitest';
import wallets from '../__fixtures__/known-wallets.json' with { type: 'json' };
import { deriveAddress } from '../address.js';
import { deriveKeyFromSeed } from '../hd-derivation.js';
import { mnemonicToSeedSync } from '../mnemonic.js';
import { bundleSignerPublicKey, createExportBundle } from './index.js';
import { signEnvelope } from './signed-envelope.js';

const ORG = '6f4c3f1e-5a63-4c4e-9a57-0d7d3c1b2a10';
const OTHER_ORG = 'c0ffee00-1111-4222-8333-444455556666';
const signer = { privateKey: p256.utils.randomSecretKey() };
const signerPublicKey = bundleSignerPublicKey(signer);
const utf8 = (text: string) => utf8ToBytes(text);

/** What a client does: a fresh P-256 key pair, the uncompressed public half sent as targetPublicKey. */
function clientKey() {
  return generateP256KeyPair();
}

function decrypt(
  exportBundle: string,
  embeddedKey: string,
  options: {
    returnMnemonic?: boolean;
    keyFormat?: 'HEXADECIMAL' | 'SOLANA';
    organizationId?: string;
    signerKey?: string | undefined;
  } = {},
) {
  return decryptExportBundle({
    exportBundle,
    embeddedKey,
    organizationId: options.organizationId ?? ORG,
    returnMnemonic: options.returnMnemonic ?? false,
    ...(options.keyFormat ? { keyFormat: options.keyFormat } : {}),
    ...('signerKey' in options
      ? options.signerKey === undefined
        ? {}
        : { dangerouslyOverrideSignerPublicKey: options.signerKey }
      : { dangerouslyOverrideSignerPublicKey: signerPublicKey }),
  });
}

describe('createExportBundle → @turnkey/crypto decryptExportBundle', () => {
  it('a wallet: the client gets the mnemonic back, and it derives the known addresses', async () => {
    const client = clientKey();
    const exportBundle = await createExportBundle({
      plaintext: utf8(wallets.mnemonic),
      targetPublicKey: client.publicKeyUncompressed,
      organizationId: ORG,
      signer,
    });
    const mnemonic = await decrypt(exportBundle, client.privateKey, { returnMnemonic: true });
    expect(mnemonic).toBe(wallets.mnemonic);

    const seed = mnemonicToSeedSync(mnemonic);
    for (const account of wallets.accounts) {
      const curve = account.curve as 'CURVE_SECP256K1' | 'CURVE_ED25519';
      const key = deriveKeyFromSeed(seed, curve, account.path);
      const format = account.addressFormat as 'ADDRESS_FORMAT_ETHEREUM' | 'ADDRESS_FORMAT_SOLANA';
      expect(deriveAddress(format, curve, key.publicKey)).toBe(account.address);
    }
  });

  it('a 24-word wallet round-trips too', async () => {
    const client = clientKey();
    const mnemonic =
      'void come effort suffer camp survey warrior heavy shoot primary clutch crush open amazing screen patrol group space point ten exist slush involve unfold';
    const exportBundle = await createExportBundle({
      plaintext: utf8(mnemonic),
      targetPublicKey: client.publicKeyUncompressed,
      organizationId: ORG,
      signer,
    });
    expect(await decrypt(exportBundle, client.privateKey, { returnMnemonic: true })).toBe(mnemonic);
  });

  it('a 32-byte secp256k1 private key comes back as hex (no keyFormat, and HEXADECIMAL)', async () => {
    const client = clientKey();
    const privateKey = hexToBytes(wallets.accounts[0]!.privateKey!);
    const exportBundle = await createExportBundle({
      plaintext: privateKey,
      targetPublicKey: client.publicKeyUncompressed,
      organizationId: ORG,
      signer,
    });
    expect(await decrypt(exportBundle, client.privateKey)).toBe(bytesToHex(privateKey));
    expect(await decrypt(exportBundle, client.privateKey, { keyFormat: 'HEXADECIMAL' })).toBe(
      bytesToHex(privateKey),
    );
  });

  it('an Ed25519 key with keyFormat SOLANA: base58(seed ‖ public key), the Solana keypair', async () => {
    const client = clientKey();
    const seed = mnemonicToSeedSync(wallets.mnemonic);
    const solana = wallets.accounts[1]!;
    const key = deriveKeyFromSeed(seed, 'CURVE_ED25519', solana.path);
    const exportBundle = await createExportBundle({
      plaintext: key.privateKey,
      targetPublicKey: client.publicKeyUncompressed,
      organizationId: ORG,
      signer,
    });
    const exported = await decrypt(exportBundle, client.privateKey, { keyFormat: 'SOLANA' });
    const keypair = base58.decode(exported);
    expect(keypair).toHaveLength(64);
    expect(bytesToHex(keypair.subarray(0, 32))).toBe(bytesToHex(key.privateKey));
    expect(base58.encode(keypair.subarray(32))).toBe(solana.address);
    expect(bytesToHex(ed25519.getPublicKey(keypair.subarray(0, 32)))).toBe(
      bytesToHex(keypair.subarray(32)),
    );
    // Without keyFormat the same bundle is the 32-byte seed as hex.
    expect(await decrypt(exportBundle, client.privateKey)).toBe(bytesToHex(key.privateKey));
  });

  it.each([
    ['uncompressed', (k: ReturnType<typeof clientKey>) => k.publicKeyUncompressed],
    ['compressed', (k: ReturnType<typeof clientKey>) => k.publicKey],
    [
      'upper-case uncompressed',
      (k: ReturnType<typeof clientKey>) => k.publicKeyUncompressed.toUpperCase(),
    ],
    ['0x-prefixed compressed', (k: ReturnType<typeof clientKey>) => `0x${k.publicKey}`],
  ])(
    'a %s targetPublicKey works (the key schedule uses the uncompressed form)',
    async (_, pick) => {
      const client = clientKey();
      const exportBundle = await createExportBundle({
        plaintext: utf8(wallets.mnemonic),
        targetPublicKey: pick(client),
        organizationId: ORG,
        signer,
      });
      expect(await decrypt(exportBundle, client.privateKey, { returnMnemonic: true })).toBe(
        wallets.mnemonic,
      );
    },
  );
});

describe('the exportBundle wire shape', () => {
  it('is {version, data, dataSignature, enclaveQuorumPublic} with data = hex of {encappedPublic, ciphertext, organizationId}', async () => {
    const client = clientKey();
    const plaintext = p256.utils.randomSecretKey();
    const exportBundle = await createExportBundle({
      plaintext,
      targetPublicKey: client.publicKey,
      organizationId: ORG,
      signer,
    });
    const envelope = JSON.parse(exportBundle);
    expect(Object.keys(envelope)).toEqual([
      'version',
      'data',
      'dataSignature',
      'enclaveQuorumPublic',
    ]);
    expect(envelope.version).toBe('v1.0.0');
    expect(envelope.enclaveQuorumPublic).toBe(signerPublicKey);
    expect(envelope.enclaveQuorumPublic).toMatch(/^04[0-9a-f]{128}$/);
    expect(envelope.data).toMatch(/^[0-9a-f]+$/);
    expect(envelope.dataSignature).toMatch(/^30[0-9a-f]+$/);

    const dataText = new TextDecoder().decode(hexToBytes(envelope.data));
    expect(dataText).not.toMatch(/\s/); // compact, as serde_json writes it
    const data = JSON.parse(dataText);
    expect(Object.keys(data)).toEqual(['encappedPublic', 'ciphertext', 'organizationId']);
    expect(data.organizationId).toBe(ORG);
    expect(data.encappedPublic).toMatch(/^04[0-9a-f]{128}$/);
    expect(data.ciphertext).toMatch(/^[0-9a-f]+$/);
    expect(hexToBytes(data.ciphertext)).toHaveLength(plaintext.length + 16); // GCM tag included
    expect(dataText).not.toContain(bytesToHex(plaintext));

    // ECDSA P-256 over sha256(data bytes), DER, by the signer key.
    const signature = hexToBytes(envelope.dataSignature);
    expect(
      p256.verify(signature, sha256(hexToBytes(envelope.data)), hexToBytes(signerPublicKey), {
        prehash: false,
        format: 'der',
      }),
    ).toBe(true);
  });

  it('concurrent exports to different clients do not interfere', async () => {
    const clients = Array.from({ length: 12 }, () => clientKey());
    const bundles = await Promise.all(
      clients.map((client, i) =>
        createExportBundle({
          plaintext: utf8(`secret ${i}`),
          targetPublicKey: client.publicKey,
          organizationId: ORG,
          signer,
        }),
      ),
    );
    const opened = await Promise.all(
      bundles.map((bundle, i) => decrypt(bundle, clients[i]!.privateKey, { returnMnemonic: true })),
    );
    expect(opened).toEqual(clients.map((_, i) => `secret ${i}`));
  });

  it('every export uses a fresh ephemeral key', async () => {
    const client = clientKey();
    const input = {
      plaintext: utf8(wallets.mnemonic),
      targetPublicKey: client.publicKeyUncompressed,
      organizationId: ORG,
      signer,
    };
    const encapped = (bundle: string) =>
      JSON.parse(new TextDecoder().decode(hexToBytes(JSON.parse(bundle).data))).encappedPublic;
    const a = await createExportBundle(input);
    const b = await createExportBundle(input);
    expect(encapped(a)).not.toBe(encapped(b));
  });
});

describe('what the client refuses', () => {
  async function bundleFor(client: ReturnType<typeof clientKey>, bundleSigner = signer) {
    return createExportBundle({
      plaintext: utf8(wallets.mnemonic),
      targetPublicKey: client.publicKeyUncompressed,
      organizationId: ORG,
      signer: bundleSigner,
    });
  }

  it('a bundle for another organization', async () => {
    const client = clientKey();
    const exportBundle = await bundleFor(client);
    await expect(
      decrypt(exportBundle, client.privateKey, { organizationId: OTHER_ORG, returnMnemonic: true }),
    ).rejects.toThrow(/organization id does not match/);
  });

  it('a bundle signed by another key than the one the client pins', async () => {
    const client = clientKey();
    const otherSigner = { privateKey: p256.utils.randomSecretKey() };
    const exportBundle = await bundleFor(client, otherSigner);
    await expect(decrypt(exportBundle, client.privateKey)).rejects.toThrow(
      /expected signer key .* does not match signer key from bundle/,
    );
  });

  it('any Keyhold bundle when the client pins the production signer (no override)', async () => {
    const client = clientKey();
    const exportBundle = await bundleFor(client);
    expect(signerPublicKey).not.toBe(PRODUCTION_SIGNER_SIGN_PUBLIC_KEY);
    await expect(
      decrypt(exportBundle, client.privateKey, { signerKey: undefined }),
    ).rejects.toThrow(/does not match signer key from bundle/);
  });

  it('a bundle that claims our signer key but carries another key’s signature', async () => {
    const client = clientKey();
    const forger = { privateKey: p256.utils.randomSecretKey() };
    const genuine = JSON.parse(await bundleFor(client));
    const forged = JSON.parse(
      signEnvelope(JSON.parse(new TextDecoder().decode(hexToBytes(genuine.data))), forger),
    );
    const exportBundle = JSON.stringify({ ...forged, enclaveQuorumPublic: signerPublicKey });
    await expect(decrypt(exportBundle, client.privateKey)).rejects.toThrow(
      /failed to verify enclave signature/,
    );
  });

  it('data altered after signing (organization id rewritten)', async () => {
    const client = clientKey();
    const envelope = JSON.parse(await bundleFor(client));
    const data = JSON.parse(new TextDecoder().decode(hexToBytes(envelope.data)));
    const altered = bytesToHex(utf8(JSON.stringify({ ...data, organizationId: OTHER_ORG })));
    const exportBundle = JSON.stringify({ ...envelope, data: altered });
    await expect(
      decrypt(exportBundle, client.privateKey, { organizationId: OTHER_ORG }),
    ).rejects.toThrow(/failed to verify enclave signature/);
  });

  it('decryption with another embedded key', async () => {
    const client = clientKey();
    const exportBundle = await bundleFor(client);
    await expect(decrypt(exportBundle, clientKey().privateKey)).rejects.toThrow(
      /Unable to perform hpkeDecrypt/,
    );
  });
});

describe('what createExportBundle refuses', () => {
  const plaintext = utf8(wallets.mnemonic);

  it.each([
    ['not hex', 'zz'.repeat(65)],
    ['an odd number of digits', '04abc'],
    ['empty', ''],
    ['the wrong length', `04${'11'.repeat(40)}`],
    ['not a point of P-256', `04${'11'.repeat(64)}`],
    ['a compressed x with no point', `02${'ff'.repeat(32)}`],
  ])('a targetPublicKey that is %s: INVALID_PUBLIC_KEY', async (_, targetPublicKey) => {
    const error = await createExportBundle({
      plaintext,
      targetPublicKey,
      organizationId: ORG,
      signer,
    }).catch((e: unknown) => e);
    expect(isKeyholdError(error)).toBe(true);
    const keyholdError = error as KeyholdError;
    expect(keyholdError.key).toBe('INVALID_PUBLIC_KEY');
    expect(keyholdError.message).toBe('invalid public key');
    expect(keyholdError.context.field).toBe('targetPublicKey');
    expect(JSON.stringify(keyholdError.toStatus())).not.toContain(bytesToHex(plaintext));
  });

  it('a target key given as a number is INVALID_PUBLIC_KEY too', async () => {
    await expect(
      createExportBundle({
        plaintext,
        targetPublicKey: 42 as unknown as string,
        organizationId: ORG,
        signer,
      }),
    ).rejects.toBeInstanceOf(KeyholdError);
  });

  it('a signer that is not a P-256 key is a fault, and the message does not carry the key', async () => {
    const bad = new Uint8Array(32).fill(0xff); // ≥ n
    const error = await createExportBundle({
      plaintext,
      targetPublicKey: clientKey().publicKey,
      organizationId: ORG,
      signer: { privateKey: bad },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(String(error)).not.toContain('ffff');
  });

  it('an empty organizationId is a fault of the caller (the client would refuse the bundle)', async () => {
    await expect(
      createExportBundle({
        plaintext,
        targetPublicKey: clientKey().publicKey,
        organizationId: '',
        signer,
      }),
    ).rejects.toBeInstanceOf(TypeError);
  });
});
