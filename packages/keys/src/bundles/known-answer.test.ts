/**
 * Known answers from Turnkey itself, so the HPKE parameters (info, AAD, key forms) are checked
 * against bundles a Turnkey enclave made, not only against the client library:
 *
 * - EXPORT and IMPORT: a production `exportBundle` with the embedded key it was encrypted to and
 *   the exported key, and a production `importBundle`, both signed by
 *   PRODUCTION_SIGNER_SIGN_PUBLIC_KEY. From worldcoin/bedrock `bedrock/src/backup/turnkey.rs`
 *   (tests `test_decrypt_factor_secret`, `test_import_private_key`).
 * - CREDENTIAL: `mockCredentialBundle` / `mockPrivateKey` / `mockSenderPrivateKey` of tkhq/sdk
 *   `packages/crypto/src/__tests__/crypto-test.ts`. (The published @turnkey/crypto ships only
 *   the `.d.ts` of its tests, so the vectors are taken from the sources.)
 */
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { createBase58check } from '@scure/base';
import {
  decryptCredentialBundle,
  decryptExportBundle,
  encryptPrivateKeyToBundle,
  PRODUCTION_SIGNER_SIGN_PUBLIC_KEY,
} from '@turnkey/crypto';
import { describe, expect, it } from 'vitest';
import { hpkeOpen } from './hpke.js';
import { createExportBundle, createImportTarget } from './index.js';

const PRODUCTION_EXPORT = {
  embeddedKey: 'a528d4d2c23d25bef52192d421a4e2555c9a4a9c3e5ed7c7910fa563d8613b7a',
  organizationId: 'b0fe0618-60b0-4fd1-a28f-fa3ba5b7b97b',
  plaintext: 'e5a5b45eb81b64fd76322e54b2df5f6d5cea37ff631f27d58dd57119ac69a6d2',
  exportBundle:
    '{"version":"v1.0.0","data":"7b22656e6361707065645075626c6963223a2230346361636663376430666336613566356664383764373566333236306233646637346335333037336366666564386462393831633737613462316334623839646162666234326435663337653437633135393836326261333434356462653537336438353265656639336665303061386231393533633731353834333437313135222c2263697068657274657874223a22656437396463373566643865633134346538326261656338313962653661336463353531353233646265633136333731663963613931323134643466613961663336343865336164306561313761373761656236393065613238333931323266222c226f7267616e697a6174696f6e4964223a2262306665303631382d363062302d346664312d613238662d666133626135623762393762227d","dataSignature":"3045022100ba94be796eb38fb1824c96962deece559cae57d0a4889aa9d5bdb10f711f00ac02207b19d5d787312f1485f428e2ec5ef04343bf8eb3343d20765805aa9c987f59c4","enclaveQuorumPublic":"04cf288fe433cc4e1aa0ce1632feac4ea26bf2f5a09dcfe5a42c398e06898710330f0572882f4dbdf0f5304b8fc8703acd69adca9a4bbf7f5d00d20a5e364b2569"}',
};

const PRODUCTION_IMPORT = {
  organizationId: 'e9e7e466-f687-48a2-9e95-b9097a475f36',
  userId: '4de601ed-832e-4c9f-875d-fd79cd21f5a3',
  importBundle:
    '{"version":"v1.0.0","data":"7b227461726765745075626c6963223a2230343962386233366462353538653533356565316161663631303162396561623734383065396439383861636331663666323636613935393266393562643562626236616436613838383565303364346139353934636263646231323363306538623337326265666536666563643235346234666230353836343236306532646366222c226f7267616e697a6174696f6e4964223a2265396537653436362d663638372d343861322d396539352d623930393761343735663336222c22757365724964223a2234646536303165642d383332652d346339662d383735642d666437396364323166356133227d","dataSignature":"3046022100cfe48f3c7a91d4a56439866c8167f8b775873a4ef17c2eac4b42f7e999c9b0e5022100f680ec21a03b21a12182fd955bc2c2fa05d5065e198f7bff9e150e703b9ca0f9","enclaveQuorumPublic":"04cf288fe433cc4e1aa0ce1632feac4ea26bf2f5a09dcfe5a42c398e06898710330f0572882f4dbdf0f5304b8fc8703acd69adca9a4bbf7f5d00d20a5e364b2569"}',
};

const SDK_CREDENTIAL = {
  bundle:
    'w99a5xV6A75TfoAUkZn869fVyDYvgVsKrawMALZXmrauZd8hEv66EkPU1Z42CUaHESQjcA5bqd8dynTGBMLWB9ewtXWPEVbZvocB4Tw2K1vQVp7uwjf',
  embeddedKey: '20fa65df11f24833790ae283fc9a0c215eecbbc589549767977994dc69d05a56',
  plaintext: '67ee05fc3bdf4161bc70701c221d8d77180294cefcfcea64ba83c4d4c732fcb9',
};

const dataOf = (bundle: string) =>
  new TextDecoder().decode(hexToBytes(JSON.parse(bundle).data as string));

describe('a production Turnkey exportBundle', () => {
  it('is what the published client decrypts (the vector is sound)', async () => {
    const plaintext = await decryptExportBundle({
      exportBundle: PRODUCTION_EXPORT.exportBundle,
      embeddedKey: PRODUCTION_EXPORT.embeddedKey,
      organizationId: PRODUCTION_EXPORT.organizationId,
      returnMnemonic: false,
    });
    expect(plaintext).toBe(PRODUCTION_EXPORT.plaintext);
  });

  it('opens with Keyhold’s HPKE (suite, info turnkey_hpke, AAD enc ‖ pkR) to the same bytes', async () => {
    const data = JSON.parse(dataOf(PRODUCTION_EXPORT.exportBundle));
    const plaintext = await hpkeOpen(
      { encappedPublic: hexToBytes(data.encappedPublic), ciphertext: hexToBytes(data.ciphertext) },
      hexToBytes(PRODUCTION_EXPORT.embeddedKey),
    );
    expect(bytesToHex(plaintext)).toBe(PRODUCTION_EXPORT.plaintext);
  });

  it('has the shape of Keyhold’s: same fields in the same order, same lengths', async () => {
    const embeddedPublic = p256.getPublicKey(hexToBytes(PRODUCTION_EXPORT.embeddedKey), false);
    const ours = await createExportBundle({
      plaintext: hexToBytes(PRODUCTION_EXPORT.plaintext),
      targetPublicKey: bytesToHex(embeddedPublic),
      organizationId: PRODUCTION_EXPORT.organizationId,
      signer: { privateKey: p256.utils.randomSecretKey() },
    });
    const theirs = PRODUCTION_EXPORT.exportBundle;
    expect(Object.keys(JSON.parse(ours))).toEqual(Object.keys(JSON.parse(theirs)));
    const [ourData, theirData] = [JSON.parse(dataOf(ours)), JSON.parse(dataOf(theirs))];
    expect(Object.keys(ourData)).toEqual(Object.keys(theirData));
    expect(ourData.encappedPublic).toHaveLength(theirData.encappedPublic.length);
    expect(ourData.ciphertext).toHaveLength(theirData.ciphertext.length);
    expect(ourData.organizationId).toBe(theirData.organizationId);
    // Byte for byte the same data, but for the ephemeral key and the ciphertext.
    const blank = (text: string) => text.replace(/"[0-9a-f]{60,}"/g, '""');
    expect(blank(dataOf(ours))).toBe(blank(dataOf(theirs)));
  });
});

describe('a production Turnkey importBundle', () => {
  it('is accepted by the published client without an override (the vector is sound)', async () => {
    const encryptedBundle = await encryptPrivateKeyToBundle({
      privateKey: bytesToHex(p256.utils.randomSecretKey()),
      keyFormat: 'HEXADECIMAL',
      importBundle: PRODUCTION_IMPORT.importBundle,
      organizationId: PRODUCTION_IMPORT.organizationId,
      userId: PRODUCTION_IMPORT.userId,
    });
    expect(Object.keys(JSON.parse(encryptedBundle))).toEqual(['encappedPublic', 'ciphertext']);
    expect(JSON.parse(PRODUCTION_IMPORT.importBundle).enclaveQuorumPublic).toBe(
      PRODUCTION_SIGNER_SIGN_PUBLIC_KEY,
    );
  });

  it('has the shape of Keyhold’s: same fields in the same order, same serialization', () => {
    const ours = createImportTarget({
      organizationId: PRODUCTION_IMPORT.organizationId,
      userId: PRODUCTION_IMPORT.userId,
      signer: { privateKey: p256.utils.randomSecretKey() },
    }).importBundle;
    const theirs = PRODUCTION_IMPORT.importBundle;
    expect(Object.keys(JSON.parse(ours))).toEqual(Object.keys(JSON.parse(theirs)));
    const blank = (text: string) => text.replace(/"04[0-9a-f]{128}"/g, '""');
    expect(blank(dataOf(ours))).toBe(blank(dataOf(theirs)));
  });
});

describe('the @turnkey/crypto credential-bundle vector', () => {
  it('the published client decrypts it (the vector is sound)', () => {
    expect(decryptCredentialBundle(SDK_CREDENTIAL.bundle, SDK_CREDENTIAL.embeddedKey)).toBe(
      SDK_CREDENTIAL.plaintext,
    );
  });

  it('opens with Keyhold’s HPKE after base58check and decompression', async () => {
    const bytes = createBase58check(sha256).decode(SDK_CREDENTIAL.bundle);
    const encappedPublic = p256.Point.fromBytes(bytes.subarray(0, 33)).toBytes(false);
    const plaintext = await hpkeOpen(
      { encappedPublic, ciphertext: bytes.subarray(33) },
      hexToBytes(SDK_CREDENTIAL.embeddedKey),
    );
    expect(bytesToHex(plaintext)).toBe(SDK_CREDENTIAL.plaintext);
  });
});
