/**
 * What is specific to the software vault: the master key, the `ksw1.` sealed format, and its
 * one plain Error for anything that does not open. Everything the KeyVault port promises
 * (seeds, derivation, keys, signatures and their vectors, refusals) is checked by the contract
 * in software-key-vault.contract.test.ts.
 */
import { CRYPTO_JOB_SECRETS, type CryptoWorkPool, inlineCryptoWorkPool } from '@keyhold/keys';
import { bytesToHex } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { generateMasterKey, masterKeyFromHex } from './master-key.js';
import { SoftwareKeyVault } from './software-key-vault.js';

const ABANDON =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const opened = 'sealed secret could not be opened';
const vault = new SoftwareKeyVault({ masterKey: generateMasterKey() });

describe('construction', () => {
  it.each([0, 16, 31, 33, 64])('refuses a %i-byte master key', (size) => {
    expect(() => new SoftwareKeyVault({ masterKey: new Uint8Array(size) })).toThrow(
      'master key must be 32 bytes',
    );
  });

  it('refuses a missing master key, and says it is a software vault', () => {
    expect(() => new SoftwareKeyVault({} as { masterKey: Uint8Array })).toThrow();
    expect(vault.kind).toBe('software');
  });

  it('keeps its own copy of the master key', async () => {
    const masterKey = generateMasterKey();
    const own = new SoftwareKeyVault({ masterKey });
    const { key } = await own.createKey('CURVE_P256');
    masterKey.fill(0);
    await expect(own.revealKey(key)).resolves.toHaveLength(32);
  });
});

describe('master keys', () => {
  it('are 32 random bytes', () => {
    expect(generateMasterKey()).toHaveLength(32);
    expect(bytesToHex(generateMasterKey())).not.toBe(bytesToHex(generateMasterKey()));
  });

  it('read from hex, with an optional 0x and whitespace', () => {
    const hex = 'ab'.repeat(32);
    expect(bytesToHex(masterKeyFromHex(hex))).toBe(hex);
    expect(bytesToHex(masterKeyFromHex(`0x${hex.toUpperCase()}\n`))).toBe(hex);
  });

  it.each([
    '',
    'ab'.repeat(31),
    'ab'.repeat(33),
    `${'ab'.repeat(31)}zz`,
    `${'ab'.repeat(16)} ${'ab'.repeat(16)}`,
  ])('refuses %j without echoing it', (bad) => {
    expect(() => masterKeyFromHex(bad)).toThrow('master key must be 64 hex characters (32 bytes)');
  });
});

describe('sealed secrets', () => {
  it('seals with a fresh nonce each time, and never in the clear', async () => {
    const [a, b] = await Promise.all([vault.importSeed(ABANDON), vault.importSeed(ABANDON)]);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^ksw1\.[A-Za-z0-9_-]+$/);
    const body = Buffer.from(a.slice(5), 'base64url').toString('hex');
    expect(body).not.toContain('5eb00bbddcf069084889a8ab9155568165f5c453'); // the BIP39 seed
    expect(body.length / 2).toBe(12 + 16 + 64 + 16); // nonce ‖ entropy ‖ seed ‖ tag
  });

  it('a seed used as a key, a key as a seed or as another curve: the one plain Error', async () => {
    // The contract checks that these are refused; this vault refuses them all the same way.
    const seed = await vault.importSeed(ABANDON);
    const { key } = await vault.createKey('CURVE_SECP256K1');
    const attempts = [
      () => vault.sign(seed, 'CURVE_SECP256K1', new Uint8Array(32)),
      () => vault.revealKey(seed),
      () => vault.deriveKey(key, 'CURVE_SECP256K1', 'm/0'),
      () => vault.revealMnemonic(key),
      () => vault.sign(key, 'CURVE_P256', new Uint8Array(32)),
      () => vault.sign(key, 'CURVE_ED25519', new Uint8Array(32)),
    ];
    for (const attempt of attempts) {
      const error = await attempt().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toBe(opened);
      expect(error).not.toHaveProperty('key');
    }
  });

  it('another master key opens nothing', async () => {
    const other = new SoftwareKeyVault({ masterKey: generateMasterKey() });
    const seed = await vault.importSeed(ABANDON);
    const { key } = await vault.createKey('CURVE_ED25519');
    await expect(other.revealMnemonic(seed)).rejects.toThrow(opened);
    await expect(other.revealKey(key)).rejects.toThrow(opened);
    await expect(other.sign(key, 'CURVE_ED25519', new Uint8Array(8))).rejects.toThrow(opened);
  });

  it.each([
    ['the empty string', ''],
    ['no prefix', 'AAAA'],
    ['another version', 'ksw2.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['too short', 'ksw1.AAAA'],
    ['not base64url', `ksw1.${'+/=='.repeat(20)}`],
    ['a number', 42 as unknown as string],
  ])('refuses %s with a plain Error', async (_name, sealed) => {
    const error = await vault.revealKey(sealed).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(opened);
    expect(error).not.toHaveProperty('key');
  });
});

/** The inline pool, recording each job's name and the secret inputs it was handed. */
function recordingPool() {
  const inline = inlineCryptoWorkPool();
  const jobs: { name: string; secrets: Uint8Array[] }[] = [];
  const pool: CryptoWorkPool = {
    kind: 'recording',
    run(name, input) {
      const fields = input as unknown as Record<string, unknown>;
      const secrets = CRYPTO_JOB_SECRETS[name].map((field) => fields[field] as Uint8Array);
      jobs.push({ name, secrets });
      return inline.run(name, input);
    },
    close: () => inline.close(),
  };
  return { pool, jobs };
}

describe('the work pool', () => {
  it('derives and signs in the pool it was given: one BIP39 seed or one key per job, consumed, never the master key', async () => {
    const masterKey = generateMasterKey();
    const { pool, jobs } = recordingPool();
    const pooled = new SoftwareKeyVault({ masterKey, workPool: pool });
    const seed = await pooled.importSeed(ABANDON);
    const account = await pooled.deriveKey(seed, 'CURVE_SECP256K1', "m/86'/0'/0'/0/0");
    await pooled.sign(account.key, 'CURVE_SECP256K1', new Uint8Array(32).fill(1));
    await pooled.signTaproot(account.key, new Uint8Array(32).fill(2), new Uint8Array());
    expect(jobs.map((j) => j.name)).toEqual(['deriveKey', 'sign', 'signTaproot']);
    const [seedJob, signJob] = jobs;
    expect(seedJob?.secrets[0]).toHaveLength(64); // the BIP39 seed, not entropy ‖ seed
    expect(signJob?.secrets[0]).toHaveLength(32);
    for (const { secrets } of jobs) {
      for (const secret of secrets) {
        expect(secret.every((b) => b === 0)).toBe(true); // consumed by the job
        expect(bytesToHex(secret)).not.toContain(bytesToHex(masterKey));
      }
    }
  });

  it('deriveKeys gives what deriveKey gives for each path, in one job', async () => {
    const { pool, jobs } = recordingPool();
    const pooled = new SoftwareKeyVault({ masterKey: generateMasterKey(), workPool: pool });
    const seed = await pooled.importSeed(ABANDON);
    const requests = [
      { curve: 'CURVE_SECP256K1', path: "m/86'/0'/0'/0/0" },
      { curve: 'CURVE_SECP256K1', path: "m/86'/0'/0'/0/1" },
      { curve: 'CURVE_ED25519', path: "m/44'/501'/0'/0'" },
      { curve: 'CURVE_P256', path: "m/44'/60'/0'/0/0" },
    ] as const;
    const keys = await pooled.deriveKeys(seed, requests);
    expect(jobs.map((j) => j.name)).toEqual(['deriveKeys']);
    for (const [i, { curve, path }] of requests.entries()) {
      const one = await pooled.deriveKey(seed, curve, path);
      expect(keys[i]?.publicKey).toEqual(one.publicKey);
      expect(await pooled.revealKey(keys[i]?.key as string)).toEqual(
        await pooled.revealKey(one.key),
      );
    }
    await expect(
      pooled.deriveKeys(seed, [{ curve: 'CURVE_ED25519', path: 'm/0' }]),
    ).rejects.toMatchObject({ key: 'INVALID_PATH' });
    expect(await pooled.deriveKeys(seed, [])).toEqual([]);
  });
});
