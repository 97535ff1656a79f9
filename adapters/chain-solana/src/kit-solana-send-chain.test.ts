/**
 * The adapter against a real SVM (LiteSVM) behind a JSON-RPC endpoint on 127.0.0.1: what it asks
 * and how it reads the answers, refusals and an endpoint that does not answer.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isSolanaChainUnavailable, SolanaTransactionRefusedError } from '@keyhold/activities';
import {
  AccountRole,
  address,
  appendTransactionMessageInstruction,
  type Blockhash,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  type KeyPairSigner,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKitSolanaSendChain } from './kit-solana-send-chain.js';
import { DEVNET_GENESIS_HASH, type LiteSvmRpc, startLiteSvmRpc } from './testing/litesvm-rpc.js';

let rpc: LiteSvmRpc;
let payer: KeyPairSigner;

/** A signed System transfer of `lamports` from `from`; its wire base64 and signature. */
async function transfer(from: KeyPairSigner, to: string, lamports: bigint) {
  const data = new Uint8Array(12);
  new DataView(data.buffer).setUint32(0, 2, true);
  new DataView(data.buffer).setBigUint64(4, lamports, true);
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(from, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: rpc.svm.latestBlockhash() as Blockhash, lastValidBlockHeight: 0n },
        m,
      ),
    (m) =>
      appendTransactionMessageInstruction(
        {
          programAddress: address('11111111111111111111111111111111'),
          accounts: [
            { address: from.address, role: AccountRole.WRITABLE_SIGNER, signer: from },
            { address: address(to), role: AccountRole.WRITABLE },
          ],
          data,
        },
        m,
      ),
  );
  const signed = await signTransactionMessageWithSigners(message);
  return {
    wire: getBase64EncodedWireTransaction(signed) as string,
    signature: getSignatureFromTransaction(signed) as string,
  };
}

beforeAll(async () => {
  rpc = await startLiteSvmRpc();
  payer = await generateKeyPairSigner();
  rpc.airdrop(payer.address, 5_000_000_000n);
});

afterAll(async () => {
  await rpc?.stop();
});

describe('createKitSolanaSendChain', () => {
  it('reads the genesis hash once and the latest blockhash each time', async () => {
    const chain = createKitSolanaSendChain(rpc.url);
    expect(await chain.getGenesisHash()).toBe(DEVNET_GENESIS_HASH);
    expect(await chain.getGenesisHash()).toBe(DEVNET_GENESIS_HASH);
    expect(rpc.calls.get('getGenesisHash')).toBe(1);
    const { blockhash, lastValidBlockHeight } = await chain.getLatestBlockhash();
    expect(blockhash).toBe(rpc.svm.latestBlockhash());
    expect(typeof lastValidBlockHeight).toBe('bigint');
  });

  it('simulates without executing, sends once, reads the status; a second send is "already processed"', async () => {
    const chain = createKitSolanaSendChain(rpc.url);
    const payee = (await generateKeyPairSigner()).address;
    const { wire, signature } = await transfer(payer, payee, 1_000_000n);
    expect(await chain.simulateTransaction(wire)).toMatchObject({ logs: expect.any(Array) });
    expect((await chain.simulateTransaction(wire)).err).toBeUndefined();
    expect(rpc.balance(payee)).toBe(0n);
    expect(await chain.getSignatureStatus(signature)).toBeUndefined();
    expect(await chain.sendTransaction(wire)).toBe(signature);
    expect(rpc.balance(payee)).toBe(1_000_000n);
    expect(await chain.getSignatureStatus(signature)).toEqual({ confirmationStatus: 'finalized' });
    const again = await chain.sendTransaction(wire).catch((error: unknown) => error);
    expect(SolanaTransactionRefusedError.is(again)).toBe(true);
    expect((again as SolanaTransactionRefusedError).alreadyProcessed).toBe(true);
    expect(rpc.balance(payee)).toBe(1_000_000n);
  });

  it('reports what the runtime refuses: a simulation error, and a refused send with the node words', async () => {
    const chain = createKitSolanaSendChain(rpc.url);
    const broke = await generateKeyPairSigner();
    const payee = (await generateKeyPairSigner()).address;
    const { wire } = await transfer(broke, payee, 1_000_000n);
    const simulated = await chain.simulateTransaction(wire);
    expect(simulated.err).toBe('"AccountNotFound"');
    const refused = await chain.sendTransaction(wire).catch((error: unknown) => error);
    expect(SolanaTransactionRefusedError.is(refused)).toBe(true);
    expect((refused as SolanaTransactionRefusedError).alreadyProcessed).toBe(false);
    expect((refused as SolanaTransactionRefusedError).detail).toContain(
      'no record of a prior credit',
    );
    // An expired blockhash too.
    const stale = await transfer(payer, payee, 1_000_000n);
    rpc.svm.expireBlockhash();
    expect((await chain.simulateTransaction(stale.wire)).err).toBe('"BlockhashNotFound"');
  });

  it('an endpoint that is gone, or answers what is not JSON-RPC, is SOLANA_CHAIN_UNAVAILABLE on every method', async () => {
    const gone = await startLiteSvmRpc();
    await gone.stop();
    const broken = createServer((_request, response) => {
      response.statusCode = 502;
      response.end('<html>bad gateway</html>');
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    const brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
    try {
      const { wire, signature } = await transfer(payer, payer.address, 1n);
      for (const url of [gone.url, brokenUrl]) {
        const chain = createKitSolanaSendChain(url, { timeoutMs: 2_000 });
        const failures = await Promise.all(
          [
            chain.getGenesisHash(),
            chain.getLatestBlockhash(),
            chain.simulateTransaction(wire),
            chain.sendTransaction(wire),
            chain.getSignatureStatus(signature),
          ].map((request) =>
            request.then(
              () => undefined,
              (error: unknown) => error,
            ),
          ),
        );
        expect(failures.map(isSolanaChainUnavailable)).toEqual([true, true, true, true, true]);
      }
    } finally {
      broken.close();
    }
  });
});
