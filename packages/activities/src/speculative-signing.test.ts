/**
 * The parts of speculative signing that need no store: which started signature a handler may
 * take, what happens when one failed, and how many signers are remembered. The flow through a
 * server (started before the transaction, dropped when refused) is tested in
 * `packages/server/src/speculative-signing.test.ts`.
 */
import type { KeyVault, RawSignature } from '@keyhold/keys';
import type { Curve } from '@keyhold/protocol';
import { describe, expect, it } from 'vitest';
import { RecentSigners, StartedSignatures, signWithStarted } from './speculative-signing.js';

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
const A = bytes('aa'.repeat(32));
const B = bytes('bb'.repeat(32));
const signer = {
  key: 'sealed-1',
  curve: 'CURVE_SECP256K1' as Curve,
  organizationId: 'org',
  userId: 'user',
};

/** A vault that answers r = the message's first byte and records each call. */
function recordingVault(fail = false) {
  const calls: { key: string; curve: Curve; first: number }[] = [];
  const vault = {
    sign: async (key: string, curve: Curve, message: Uint8Array): Promise<RawSignature> => {
      calls.push({ key, curve, first: message[0]! });
      if (fail) throw new Error('vault down');
      return { r: Uint8Array.of(message[0]!), s: Uint8Array.of(2), recovery: 0 };
    },
  } as unknown as KeyVault;
  return { vault, calls };
}

describe('StartedSignatures', () => {
  it('starts every message at once and hands each out once, for the same key and curve only', async () => {
    const { vault, calls } = recordingVault();
    const started = new StartedSignatures(vault, signer, [A, B]);
    expect(calls).toHaveLength(2);
    expect(started.take('sealed-2', 'CURVE_SECP256K1', A)).toBeUndefined();
    expect(started.take('sealed-1', 'CURVE_P256', A)).toBeUndefined();
    expect(started.take('sealed-1', 'CURVE_SECP256K1', bytes('cc'.repeat(32)))).toBeUndefined();
    expect((await started.take('sealed-1', 'CURVE_SECP256K1', B))?.r).toEqual(Uint8Array.of(0xbb));
    expect(started.take('sealed-1', 'CURVE_SECP256K1', B)).toBeUndefined();
    await expect(started.finished()).resolves.toBeUndefined();
  });

  it('signWithStarted takes the started signature, else asks the vault', async () => {
    const { vault, calls } = recordingVault();
    const started = new StartedSignatures(vault, signer, [A]);
    await signWithStarted(vault, started, 'sealed-1', 'CURVE_SECP256K1', A);
    expect(calls).toHaveLength(1); // the started one
    // Another key behind signWith now: signed again, with that key.
    await signWithStarted(vault, started, 'sealed-2', 'CURVE_SECP256K1', A);
    expect(calls.map((c) => c.key)).toEqual(['sealed-1', 'sealed-2']);
    await signWithStarted(vault, undefined, 'sealed-1', 'CURVE_SECP256K1', B);
    expect(calls).toHaveLength(3);
  });

  it('a started signature that failed is signed again, so the vault’s own error is met', async () => {
    const { vault, calls } = recordingVault(true);
    const started = new StartedSignatures(vault, signer, [A]);
    await expect(started.finished()).resolves.toBeUndefined(); // no unhandled rejection
    await expect(signWithStarted(vault, started, 'sealed-1', 'CURVE_SECP256K1', A)).rejects.toThrow(
      'vault down',
    );
    expect(calls).toHaveLength(2);
  });
});

describe('RecentSigners', () => {
  it('recalls by organization, API key and signWith; forgets; keeps the most recently used', () => {
    const recent = new RecentSigners(2);
    recent.remember('org', 'api-1', '0xabc', signer);
    expect(recent.recall('org', 'api-1', '0xabc')).toEqual(signer);
    expect(recent.recall('org', 'api-2', '0xabc')).toBeUndefined();
    expect(recent.recall('other', 'api-1', '0xabc')).toBeUndefined();
    expect(recent.recall('org', 'api-1', '0xabd')).toBeUndefined();

    recent.remember('org', 'api-2', '0xabc', signer);
    recent.recall('org', 'api-1', '0xabc'); // api-1 is now the most recent
    recent.remember('org', 'api-3', '0xabc', signer); // over capacity: api-2 goes
    expect(recent.size).toBe(2);
    expect(recent.recall('org', 'api-2', '0xabc')).toBeUndefined();
    expect(recent.recall('org', 'api-1', '0xabc')).toBeDefined();

    recent.forget('org', 'api-1', '0xabc');
    expect(recent.recall('org', 'api-1', '0xabc')).toBeUndefined();
  });
});
