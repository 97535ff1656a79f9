import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import pkcs11js from 'pkcs11js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createSoftHsm,
  rawSession,
  type SoftHsm,
  softHsmAvailable,
} from './__fixtures__/softhsm.js';
import {
  DEFAULT_PKCS11_MODULE,
  openPkcs11KeyVault,
  type Pkcs11KeyVault,
  Pkcs11KeyVault as Pkcs11KeyVaultClass,
  resolvePkcs11Options,
} from './pkcs11-key-vault.js';

const ABANDON =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

describe('options', () => {
  it('reads the environment for what it is not given, with defaults', () => {
    expect(
      resolvePkcs11Options({}, { KEYHOLD_PKCS11_TOKEN_LABEL: 'kh', KEYHOLD_PKCS11_PIN: '1234' }),
    ).toEqual({
      modulePath: DEFAULT_PKCS11_MODULE,
      tokenLabel: 'kh',
      pin: '1234',
      wrappingKeyLabel: 'keyhold-wrap',
    });
    expect(
      resolvePkcs11Options(
        { tokenLabel: 'given', pin: 'p' },
        {
          KEYHOLD_PKCS11_MODULE: '/opt/hsm.so',
          KEYHOLD_PKCS11_TOKEN_LABEL: 'env',
          KEYHOLD_PKCS11_PIN: 'q',
          KEYHOLD_PKCS11_WRAPPING_KEY_LABEL: 'wrap2',
        },
      ),
    ).toEqual({
      modulePath: '/opt/hsm.so',
      tokenLabel: 'given',
      pin: 'p',
      wrappingKeyLabel: 'wrap2',
    });
  });

  it('refuses a missing token label or PIN, naming the variable', () => {
    expect(() => resolvePkcs11Options({}, { KEYHOLD_PKCS11_PIN: '1' })).toThrow(
      'PKCS#11 token label required: pass tokenLabel or set KEYHOLD_PKCS11_TOKEN_LABEL',
    );
    expect(() => resolvePkcs11Options({ tokenLabel: 'x' }, { KEYHOLD_PKCS11_PIN: '' })).toThrow(
      'PKCS#11 user PIN required: pass pin or set KEYHOLD_PKCS11_PIN',
    );
  });

  it('cannot be constructed directly', () => {
    const Ctor = Pkcs11KeyVaultClass as unknown as new (...args: unknown[]) => unknown;
    expect(() => new Ctor(Symbol('x'), {}, Buffer.alloc(0))).toThrow('openPkcs11KeyVault');
  });

  it('without SoftHSM the suites skip loudly, or fail when CI is set', () => {
    const ci = process.env.CI;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      delete process.env.CI;
      expect(softHsmAvailable('/nonexistent/libsofthsm2.so')).toBe(false);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('tests are SKIPPED'));
      process.env.CI = 'true';
      expect(() => softHsmAvailable('/nonexistent/libsofthsm2.so')).toThrow('CI is set: failing');
    } finally {
      warn.mockRestore();
      if (ci === undefined) delete process.env.CI;
      else process.env.CI = ci;
    }
  });

  it('says which module could not be loaded', async () => {
    await expect(
      openPkcs11KeyVault({ modulePath: '/nonexistent/libpkcs11.so', tokenLabel: 'x', pin: '1' }),
    ).rejects.toThrow('cannot load the PKCS#11 module /nonexistent/libpkcs11.so');
  });
});

/** True when the module is initialized in this process (someone has not finalized it). */
function moduleInitialized(modulePath: string): boolean {
  const probe = new pkcs11js.PKCS11();
  probe.load(modulePath);
  try {
    probe.C_Initialize();
  } catch (error) {
    return (error as Error).message.startsWith('CKR_CRYPTOKI_ALREADY_INITIALIZED');
  }
  probe.C_Finalize();
  return false;
}

describe.skipIf(!softHsmAvailable())('Pkcs11KeyVault lifecycle on SoftHSM2', () => {
  let hsm: SoftHsm;
  const opened: Pkcs11KeyVault[] = [];
  const open = async (label: string, extra: { pin?: string; wrappingKeyLabel?: string } = {}) => {
    const vault = await openPkcs11KeyVault({
      modulePath: hsm.modulePath,
      tokenLabel: label,
      pin: hsm.tokens[label]?.pin ?? 'none',
      ...extra,
    });
    opened.push(vault);
    return vault;
  };

  beforeAll(() => {
    hsm = createSoftHsm(['life-a', 'life-b']);
  });
  afterEach(async () => {
    for (const vault of opened.splice(0)) await vault.close();
  });
  afterAll(() => hsm?.cleanup());

  it('keys, seeds and wrapped keys survive close, C_Finalize and reopen', async () => {
    const first = await open('life-a');
    const created = await Promise.all(
      (['CURVE_SECP256K1', 'CURVE_P256', 'CURVE_ED25519'] as const).map(async (curve) => ({
        curve,
        ...(await first.createKey(curve)),
      })),
    );
    const seed = await first.importSeed(ABANDON);
    const account = await first.deriveKey(seed, 'CURVE_SECP256K1', "m/44'/60'/0'/0/0");
    await first.close();
    expect(moduleInitialized(hsm.modulePath)).toBe(false); // close() finalized

    const again = await open('life-a');
    const digest = sha256(utf8ToBytes('after reopen'));
    for (const { curve, key, publicKey } of created) {
      const signature = await again.sign(key, curve, digest);
      expect(signature.r).toHaveLength(32);
      // The reopened vault finds the same public key (the recovery check would fail otherwise).
      if (curve === 'CURVE_ED25519') {
        const { ed25519 } = await import('@noble/curves/ed25519.js');
        const sig = new Uint8Array([...signature.r, ...signature.s]);
        expect(ed25519.verify(sig, digest, publicKey)).toBe(true);
      }
    }
    await expect(again.revealMnemonic(seed)).resolves.toBe(ABANDON);
    expect(bytesToHex(await again.revealKey(account.key))).toBe(
      '1ab42cc412b618bdea3a599e3c9bae199ebf030895b039e9db1e30dafb12b727',
    );
  });

  it('creates the wrapping key once, non-extractable, and reuses it', async () => {
    const vault = await open('life-b');
    const raw = rawSession(hsm.modulePath, 'life-b');
    try {
      raw.pkcs11.C_FindObjectsInit(raw.session, [
        { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_SECRET_KEY },
        { type: pkcs11js.CKA_LABEL, value: 'keyhold-wrap' },
      ]);
      const keys = raw.pkcs11.C_FindObjects(raw.session, 5);
      raw.pkcs11.C_FindObjectsFinal(raw.session);
      expect(keys).toHaveLength(1);
      const [token, sensitive, extractable, neverExtractable] = raw.pkcs11
        .C_GetAttributeValue(raw.session, keys[0]!, [
          { type: pkcs11js.CKA_TOKEN },
          { type: pkcs11js.CKA_SENSITIVE },
          { type: pkcs11js.CKA_EXTRACTABLE },
          { type: pkcs11js.CKA_NEVER_EXTRACTABLE },
        ])
        .map((a) => (a.value as Buffer)[0]);
      expect([token, sensitive, extractable, neverExtractable]).toEqual([1, 1, 0, 1]);
      expect(() =>
        raw.pkcs11.C_GetAttributeValue(raw.session, keys[0]!, [{ type: pkcs11js.CKA_VALUE }]),
      ).toThrow('CKR_ATTRIBUTE_SENSITIVE');
    } finally {
      raw.close();
    }
    const seed = await vault.importSeed(ABANDON);
    await vault.close();
    const again = await open('life-b');
    await expect(again.revealMnemonic(seed)).resolves.toBe(ABANDON);
  });

  it('uses a configured wrapping-key label, and seeds do not open under another one', async () => {
    const plain = await open('life-a');
    const custom = await open('life-a', { wrappingKeyLabel: 'custom-wrap' });
    const seed = await custom.importSeed(ABANDON);
    await expect(custom.revealMnemonic(seed)).resolves.toBe(ABANDON);
    await expect(plain.revealMnemonic(seed)).rejects.toThrow('sealed secret could not be opened');
  });

  it('refuses a wrapping key that is extractable', async () => {
    const vault = await open('life-a');
    const raw = rawSession(hsm.modulePath, 'life-a');
    try {
      raw.pkcs11.C_GenerateKey(raw.session, { mechanism: pkcs11js.CKM_AES_KEY_GEN }, [
        { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_SECRET_KEY },
        { type: pkcs11js.CKA_KEY_TYPE, value: pkcs11js.CKK_AES },
        { type: pkcs11js.CKA_VALUE_LEN, value: 32 },
        { type: pkcs11js.CKA_TOKEN, value: true },
        { type: pkcs11js.CKA_PRIVATE, value: true },
        { type: pkcs11js.CKA_SENSITIVE, value: false },
        { type: pkcs11js.CKA_EXTRACTABLE, value: true },
        { type: pkcs11js.CKA_ENCRYPT, value: true },
        { type: pkcs11js.CKA_DECRYPT, value: true },
        { type: pkcs11js.CKA_LABEL, value: 'weak-wrap' },
      ]);
    } finally {
      raw.close();
    }
    await expect(open('life-a', { wrappingKeyLabel: 'weak-wrap' })).rejects.toThrow(
      'the wrapping key "weak-wrap" in token "life-a" must be a sensitive, non-extractable AES-256 key',
    );
    await expect(vault.importSeed(ABANDON)).resolves.toMatch(/^kp11\.seed\./); // unaffected
  });

  it('refuses an ambiguous wrapping-key label', async () => {
    const vault = await open('life-b', { wrappingKeyLabel: 'dup-wrap' }); // creates it
    const raw = rawSession(hsm.modulePath, 'life-b');
    try {
      raw.pkcs11.C_GenerateKey(raw.session, { mechanism: pkcs11js.CKM_AES_KEY_GEN }, [
        { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_SECRET_KEY },
        { type: pkcs11js.CKA_KEY_TYPE, value: pkcs11js.CKK_AES },
        { type: pkcs11js.CKA_VALUE_LEN, value: 32 },
        { type: pkcs11js.CKA_TOKEN, value: true },
        { type: pkcs11js.CKA_LABEL, value: 'dup-wrap' },
      ]);
    } finally {
      raw.close();
    }
    await vault.close();
    await expect(open('life-b', { wrappingKeyLabel: 'dup-wrap' })).rejects.toThrow(
      'more than one secret key is labelled "dup-wrap" in token "life-b"',
    );
  });

  it('a wrong PIN is a clear error that does not echo the PIN', async () => {
    const pin = 'wrong-pin-9876';
    const error = await open('life-a', { pin }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'PKCS#11 login to token "life-a" failed: incorrect PIN (CKR_PIN_INCORRECT)',
    );
    expect((error as Error).message).not.toContain(pin);
    expect(moduleInitialized(hsm.modulePath)).toBe(false); // nothing left open
  });

  it('a wrong PIN is refused even while the token is logged in by another vault', async () => {
    const first = await open('life-a');
    await expect(open('life-a', { pin: 'not-the-pin' })).rejects.toThrow(
      'PKCS#11 login to token "life-a" failed: incorrect PIN',
    );
    await expect(first.createKey('CURVE_P256')).resolves.toHaveProperty('publicKey');
  });

  it('vaults on one token share the login: closing one leaves the other working', async () => {
    const one = await open('life-a');
    const two = await open('life-a');
    const { key } = await one.createKey('CURVE_SECP256K1');
    await one.close();
    expect(moduleInitialized(hsm.modulePath)).toBe(true);
    await expect(
      two.sign(key, 'CURVE_SECP256K1', new Uint8Array(32).fill(3)),
    ).resolves.toHaveProperty('recovery');
    await two.close();
    expect(moduleInitialized(hsm.modulePath)).toBe(false);
  });

  it('names the token it cannot find, and the tokens it can', async () => {
    await expect(open('no-such-token')).rejects.toThrow(
      /^no initialized PKCS#11 token labelled "no-such-token" in .*libsofthsm2\.so \(tokens: "life-a", "life-b"\)$/,
    );
  });

  it('reads its configuration from the environment', async () => {
    const saved = { ...process.env };
    process.env.KEYHOLD_PKCS11_MODULE = hsm.modulePath;
    process.env.KEYHOLD_PKCS11_TOKEN_LABEL = 'life-b';
    process.env.KEYHOLD_PKCS11_PIN = hsm.tokens['life-b']!.pin;
    try {
      const vault = await openPkcs11KeyVault();
      opened.push(vault);
      expect(vault.tokenLabel).toBe('life-b');
    } finally {
      for (const name of Object.keys(process.env)) {
        if (name.startsWith('KEYHOLD_PKCS11_') && !(name in saved)) delete process.env[name];
      }
    }
  });

  it('close is idempotent; a closed vault refuses work', async () => {
    const vault = await open('life-a');
    const { key } = await vault.createKey('CURVE_ED25519');
    await vault.close();
    await vault.close();
    await expect(vault.sign(key, 'CURVE_ED25519', new Uint8Array(1))).rejects.toThrow(
      'the PKCS#11 vault is closed',
    );
    await expect(vault.createSeed(12)).rejects.toThrow('the PKCS#11 vault is closed');
  });
});
