import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CryptoWorkPool,
  deriveAddress,
  deriveKeyFromSeed,
  inlineCryptoWorkPool,
  mnemonicToSeedSync,
  signWithPrivateKey,
} from '@keyhold/keys';
import { KeyholdError } from '@keyhold/protocol';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { afterAll, describe, expect, it } from 'vitest';
import { PiscinaCryptoWorkPool } from './index.js';

// BIP32 test vector 1 (seed 000102…0f) and SLIP-10 ed25519 / nist256p1 vector 1.
const VECTOR_SEED = hexToBytes('000102030405060708090a0b0c0d0e0f');
const VECTORS = [
  {
    curve: 'CURVE_SECP256K1',
    path: "m/0'/1/2'/2/1000000000",
    privateKey: '471b76e389e528d6de6d816857e012c5455051cad6660850e58372a6c3e6e7c8',
  },
  {
    curve: 'CURVE_ED25519',
    path: "m/0'/1'/2'/2'/1000000000'",
    privateKey: '8f94d394a8e8fd6b1bc2f3f49f5c47e385281d5c17e65324b0f62483e37e8793',
  },
  {
    curve: 'CURVE_P256',
    path: "m/0'/1/2'/2/1000000000",
    privateKey: '21c4f269ef0a5fd1badf47eeacebeeaa3de22eb8e5b0adcd0f27dd99d34d0119',
  },
] as const;
const ABANDON = mnemonicToSeedSync(
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
);

const piscina = new PiscinaCryptoWorkPool({ threads: 2 });
afterAll(() => piscina.close());

describe.each<[string, CryptoWorkPool]>([
  ['inline', inlineCryptoWorkPool()],
  ['piscina', piscina],
])('CryptoWorkPool %s', (_kind, pool) => {
  it('derives the BIP32 and SLIP-10 vectors', async () => {
    for (const v of VECTORS) {
      const { privateKey, publicKey } = await pool.run('deriveKey', {
        seed: VECTOR_SEED.slice(),
        curve: v.curve,
        path: v.path,
      });
      expect(bytesToHex(privateKey)).toBe(v.privateKey);
      expect(publicKey).toEqual(deriveKeyFromSeed(VECTOR_SEED, v.curve, v.path).publicKey);
    }
  });

  it('derives many keys of one seed in one job, as deriveKeyFromSeed gives each, and consumes the seed', async () => {
    const requests = VECTORS.map(({ curve, path }) => ({ curve, path }));
    const seed = VECTOR_SEED.slice();
    const keys = await pool.run('deriveKeys', { seed, requests });
    expect(keys.map((k) => bytesToHex(k.privateKey))).toEqual(VECTORS.map((v) => v.privateKey));
    expect(seed.every((b) => b === 0)).toBe(true);
  });

  it('computes the BIP86 Taproot and BIP44 Ethereum addresses of "abandon … about"', async () => {
    const taproot = deriveKeyFromSeed(ABANDON, 'CURVE_SECP256K1', "m/86'/0'/0'/0/0");
    const ethereum = deriveKeyFromSeed(ABANDON, 'CURVE_SECP256K1', "m/44'/60'/0'/0/0");
    expect(
      await pool.run('addresses', {
        items: [
          {
            curve: 'CURVE_SECP256K1',
            publicKey: taproot.publicKey,
            formats: ['ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR'],
          },
          {
            curve: 'CURVE_SECP256K1',
            publicKey: ethereum.publicKey,
            formats: ['ADDRESS_FORMAT_ETHEREUM', 'ADDRESS_FORMAT_COMPRESSED'],
          },
        ],
      }),
    ).toEqual([
      ['bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr'],
      [
        '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
        deriveAddress('ADDRESS_FORMAT_COMPRESSED', 'CURVE_SECP256K1', ethereum.publicKey),
      ],
    ]);
  });

  it('signs byte-identically to signWithPrivateKey, and consumes the key it was given', async () => {
    const key = deriveKeyFromSeed(ABANDON, 'CURVE_SECP256K1', "m/44'/60'/0'/0/0");
    const digest = new Uint8Array(32).fill(7);
    const expected = signWithPrivateKey('CURVE_SECP256K1', key.privateKey, key.publicKey, digest);
    const given = key.privateKey.slice();
    const signature = await pool.run('sign', {
      curve: 'CURVE_SECP256K1',
      privateKey: given,
      publicKey: key.publicKey,
      message: digest,
    });
    expect(signature).toEqual(expected);
    expect(given.every((b) => b === 0)).toBe(true);
  });

  it('zeroes the seed it was given', async () => {
    const seed = ABANDON.slice();
    await pool.run('deriveKey', { seed, curve: 'CURVE_ED25519', path: "m/44'/501'/0'/0'" });
    expect(seed.every((b) => b === 0)).toBe(true);
  });

  it('rejects with the job error: a KeyholdError stays one, with its context', async () => {
    const error = await pool
      .run('deriveKey', { seed: ABANDON.slice(), curve: 'CURVE_ED25519', path: 'm/0' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(KeyholdError);
    expect((error as KeyholdError).key).toBe('INVALID_PATH');
    const typeError = await pool.run('nope' as never, {} as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(typeError).toBeInstanceOf(TypeError);
    expect((typeError as Error).message).toBe('unknown crypto job "nope"');
  });
});

describe('PiscinaCryptoWorkPool', () => {
  it('runs jobs on `threads` worker threads, and close drains the queue', async () => {
    const pool = new PiscinaCryptoWorkPool({ threads: 2 });
    await pool.ready();
    expect(pool.liveThreads).toBe(2); // started with the pool, not on the first request
    const jobs = Array.from({ length: 12 }, (_, i) =>
      pool.run('deriveKey', {
        seed: ABANDON.slice(),
        curve: 'CURVE_SECP256K1',
        path: `m/86'/0'/${i}'/0/0`,
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(pool.liveThreads).toBe(2);
    expect(pool.queueSize).toBeGreaterThan(0); // 12 jobs, 2 threads: the rest wait
    await pool.close(); // queued jobs still finish
    const results = await Promise.all(jobs);
    results.forEach(({ publicKey }, i) => {
      expect(publicKey).toEqual(
        deriveKeyFromSeed(ABANDON, 'CURVE_SECP256K1', `m/86'/0'/${i}'/0/0`).publicKey,
      );
    });
    expect(pool.liveThreads).toBe(0);
    await expect(pool.run('addresses', { items: [] })).rejects.toThrow('worker pool is closed');
    await pool.close(); // idempotent
  });

  it('closes at once while its workers are still starting, when no job was given', async () => {
    const pool = new PiscinaCryptoWorkPool({ threads: 2 });
    const started = performance.now();
    await pool.close();
    // Waiting for the workers to load the key code takes seconds from sources.
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(pool.liveThreads).toBe(0);
  });

  it('refuses a pool without threads', () => {
    expect(() => new PiscinaCryptoWorkPool({ threads: 0 })).toThrow(RangeError);
  });
});

describe('PiscinaCryptoWorkPool whose workers cannot start', () => {
  it('rejects every job with the reason instead of queueing it forever, and closes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keyhold-worker-'));
    const filename = join(dir, 'broken-worker.mjs');
    writeFileSync(filename, "throw new Error('cannot load the key code');\n");
    const pool = new PiscinaCryptoWorkPool({ threads: 1, worker: { filename } });
    try {
      await expect(pool.ready()).rejects.toThrow(
        'crypto worker pool: a worker failed to start: cannot load the key code',
      );
      const seed = ABANDON.slice();
      await expect(
        pool.run('deriveKey', { seed, curve: 'CURVE_SECP256K1', path: "m/86'/0'/0'/0/0" }),
      ).rejects.toThrow('a worker failed to start');
      expect(seed.every((b) => b === 0)).toBe(true); // consumed even so
    } finally {
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
