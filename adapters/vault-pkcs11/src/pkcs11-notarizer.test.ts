/**
 * The session notarizer held in the token: found or generated once, the same key for every
 * open of the token, sensitive and never extractable, and its signatures over session JWTs are
 * what `@turnkey/crypto`'s `verifySessionJwtSignature` accepts.
 */
import { createSessionJwt } from '@keyhold/keys';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { verifySessionJwtSignature } from '@turnkey/crypto';
import pkcs11js from 'pkcs11js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSoftHsm,
  type RawSession,
  rawSession,
  type SoftHsm,
  softHsmAvailable,
} from './__fixtures__/softhsm.js';
import {
  NOTARIZER_KEY_LABEL,
  openPkcs11KeyVault,
  type Pkcs11KeyVault,
} from './pkcs11-key-vault.js';

describe.skipIf(!softHsmAvailable())('Pkcs11KeyVault.notarizer on SoftHSM2', () => {
  let hsm: SoftHsm;
  let vault: Pkcs11KeyVault;
  let raw: RawSession;
  const open = () =>
    openPkcs11KeyVault({
      modulePath: hsm.modulePath,
      tokenLabel: 'keyhold-sessions',
      pin: hsm.tokens['keyhold-sessions']!.pin,
    });

  beforeAll(async () => {
    hsm = createSoftHsm(['keyhold-sessions']);
    vault = await open();
    raw = rawSession(hsm.modulePath, 'keyhold-sessions');
  });
  afterAll(async () => {
    raw?.close();
    await vault?.close();
    hsm?.cleanup();
  });

  /** The CKA_IDs of the token's private keys labelled as the notarizer. */
  const notarizerIds = () => {
    raw.pkcs11.C_FindObjectsInit(raw.session, [
      { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY },
      { type: pkcs11js.CKA_LABEL, value: NOTARIZER_KEY_LABEL },
    ]);
    const handles = raw.pkcs11.C_FindObjects(raw.session, 8);
    raw.pkcs11.C_FindObjectsFinal(raw.session);
    return handles.map(
      (h) =>
        raw.pkcs11.C_GetAttributeValue(raw.session, h, [{ type: pkcs11js.CKA_ID }])[0]!
          .value as Buffer,
    );
  };

  it('signs session JWTs that @turnkey/crypto verifies with its public key', async () => {
    const notarizer = await vault.notarizer();
    expect(notarizer.publicKey).toMatch(/^04[0-9a-f]{128}$/);
    const jwt = await createSessionJwt(
      {
        exp: Math.floor(Date.now() / 1000) + 900,
        publicKey: bytesToHex(p256.getPublicKey(p256.utils.randomSecretKey(), true)),
        sessionType: 'SESSION_TYPE_READ_WRITE',
        userId: crypto.randomUUID(),
        organizationId: crypto.randomUUID(),
      },
      notarizer,
    );
    expect(await verifySessionJwtSignature(jwt, notarizer.publicKey)).toBe(true);
  });

  it('is one key in the token, the same on every open, and never leaves it', async () => {
    const first = await vault.notarizer();
    const again = await vault.notarizer();
    const reopened = await open();
    try {
      expect((await reopened.notarizer()).publicKey).toBe(first.publicKey);
    } finally {
      await reopened.close();
    }
    expect(again.publicKey).toBe(first.publicKey);
    const ids = notarizerIds();
    expect(ids).toHaveLength(1);
    expect(raw.privateKeyFlags(ids[0]!)).toMatchObject({
      CKA_TOKEN: true,
      CKA_SENSITIVE: true,
      CKA_EXTRACTABLE: false,
      CKA_NEVER_EXTRACTABLE: true,
    });
    expect(raw.readPrivateValue(ids[0]!)).toBe('CKR_ATTRIBUTE_SENSITIVE');
  });
});
