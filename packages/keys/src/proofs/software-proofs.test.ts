/**
 * Keyhold's software proofs: the app proof's signature verifies over sha256 of its payload with
 * the signer key (the second half of `publicKey`), which is the signer key twice, and breaks
 * with any change to the payload; the boot proof carries no attestation document and signs
 * its statement.
 */
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { base64 } from '@scure/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSoftwareAppProof, createSoftwareBootProof } from './software-proofs.js';

const signer = { privateKey: p256.utils.randomSecretKey() };
const signerKey = bytesToHex(p256.getPublicKey(signer.privateKey, false));
const verifies = (signature: string, text: string) =>
  p256.verify(hexToBytes(signature), sha256(utf8ToBytes(text)), hexToBytes(signerKey), {
    prehash: false,
    lowS: false,
  });

describe('createSoftwareAppProof', () => {
  it('signs its payload with the signer key; a changed payload does not verify', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), (walletId, extra) => {
        const proof = createSoftwareAppProof(
          signer,
          {
            organizationId: 'o',
            activityId: 'a',
            activityType: 'ACTIVITY_TYPE_CREATE_WALLET',
            fingerprint: 'sha256:00',
            result: { createWalletResult: { walletId } },
          },
          1_700_000_000_000,
        );
        expect(proof.scheme).toBe('SIGNATURE_SCHEME_EPHEMERAL_KEY_P256');
        expect(proof.publicKey).toBe(`${signerKey}${signerKey}`);
        expect(verifies(proof.signature, proof.proofPayload)).toBe(true);
        expect(verifies(proof.signature, `${proof.proofPayload}${extra}`)).toBe(false);
        expect(JSON.parse(proof.proofPayload)).toMatchObject({
          timestampMs: '1700000000000',
          result: { createWalletResult: { walletId } },
        });
      }),
      { numRuns: 20 },
    );
  });
});

describe('createSoftwareBootProof', () => {
  it('states version and keys, signed, with no attestation document', () => {
    const proof = createSoftwareBootProof(
      signer,
      { software: 'keyhold', version: '1.2.3', publicKeys: { signerPublicKey: signerKey } },
      { seconds: '1', nanos: '0' },
    );
    expect(proof.awsAttestationDocB64).toBe('');
    const manifest = new TextDecoder().decode(base64.decode(proof.qosManifestB64));
    const envelope = JSON.parse(
      new TextDecoder().decode(base64.decode(proof.qosManifestEnvelopeB64)),
    );
    expect(JSON.parse(manifest)).toMatchObject({
      version: '1.2.3',
      publicKeys: { signerPublicKey: signerKey },
    });
    expect(envelope.publicKey).toBe(signerKey);
    expect(verifies(envelope.signature, manifest)).toBe(true);
  });
});
