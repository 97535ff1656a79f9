import { getAddress, hashMessage, recoverAddress, verifyMessage } from 'viem';
import { describe, expect, it } from 'vitest';
import { main } from './main.js';

describe('example: embedded', () => {
  it('creates a wallet in-process and its signature verifies', async () => {
    const run = await main('signed by the test');
    expect(run.message).toBe('signed by the test');
    expect(run.digest).toBe(hashMessage('signed by the test'));
    expect(run.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(run.address).toBe(getAddress(run.address));
    expect(run.signature.r).toMatch(/^[0-9a-f]{64}$/);
    expect(run.signature.s).toMatch(/^[0-9a-f]{64}$/);
    expect(['00', '01']).toContain(run.signature.v);
    expect(run.verified).toBe(true);
    expect(run.recoveredAddress).toBe(run.address);
    // Checked again here, not only by the example's own flag.
    expect(await recoverAddress({ hash: run.digest, signature: run.serializedSignature })).toBe(
      run.address,
    );
    expect(
      await verifyMessage({
        address: run.address as `0x${string}`,
        message: run.message,
        signature: run.serializedSignature,
      }),
    ).toBe(true);
    expect(
      await verifyMessage({
        address: run.address as `0x${string}`,
        message: 'another message',
        signature: run.serializedSignature,
      }),
    ).toBe(false);
  });

  it('each run is a fresh instance with its own organization and keys', async () => {
    const [a, b] = await Promise.all([main(), main()]);
    expect(a.organizationId).not.toBe(b.organizationId);
    expect(a.address).not.toBe(b.address);
    expect(a.verified && b.verified).toBe(true);
  });
});
