/**
 * SOL_SEND_TRANSACTION across a kill -9, as a user runs `keyhold serve --data DIR --solana-rpc
 * URL` (the LiteSVM-backed endpoint of `@keyhold/chain-solana`'s tests): the cluster accepts the
 * send and loses it (a leader dropping it, which Solana's clusters do), and the server dies
 * before anyone asks for the status. The signed transaction was stored with its activity before
 * it was sent, so the restarted server's status query sends the very same bytes — one
 * transaction on the chain, the lamports moved once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiKeyPair } from '@keyhold/server';
import { bytesToHex } from '@noble/hashes/utils.js';
import { generateKeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type LiteSvmRpc,
  startLiteSvmRpc,
} from '../../../adapters/chain-solana/src/testing/litesvm-rpc.js';
import { unsignedSystemTransfer } from '../../../adapters/chain-solana/src/testing/system-transfer.js';
import { sdkClient } from '../../server/src/__fixtures__/turnkey-server.js';
import {
  keyholdServe,
  killKeyholdProcesses,
  type ListeningLine,
  listeningLine,
} from './__fixtures__/keyhold-process.js';

let rpc: LiteSvmRpc;
const data = mkdtempSync(join(tmpdir(), 'keyhold-soltx-'));
const root = generateApiKeyPair();

beforeAll(async () => {
  rpc = await startLiteSvmRpc();
});

afterAll(async () => {
  killKeyholdProcesses();
  await rpc?.stop();
  rmSync(data, { recursive: true, force: true });
});

const serve = () => keyholdServe(root, ['--solana-rpc', rpc.url], { data });

const client = (line: ListeningLine) => sdkClient(line.url, line.organizationId, root);

/** An unsigned System transfer (kit), zero signature slot for `from`; hex. */
const transfer = (from: string, to: string, lamports: bigint): string =>
  bytesToHex(unsignedSystemTransfer({ from, to, lamports, blockhash: rpc.svm.latestBlockhash() }));

describe('keyhold serve --solana-rpc: SOL_SEND_TRANSACTION', () => {
  it('a kill -9 after a lost send loses no transaction and sends none twice', async () => {
    const first = serve();
    const sdk = client(await listeningLine(first));
    const { addresses } = await sdk.createWallet({
      walletName: 'hot',
      accounts: [
        {
          curve: 'CURVE_ED25519',
          pathFormat: 'PATH_FORMAT_BIP32',
          path: "m/44'/501'/0'/0'",
          addressFormat: 'ADDRESS_FORMAT_SOLANA',
        },
      ],
    });
    const sender = addresses[0]!;
    rpc.airdrop(sender, 1_000_000_000n);
    const payee = (await generateKeyPairSigner()).address as string;

    rpc.dropSends = 1;
    const { sendTransactionStatusId } = await sdk.solSendTransaction({
      unsignedTransaction: transfer(sender, payee, 2_000_000n),
      signWiths: [sender],
      caip2: 'solana:devnet',
    });
    expect(rpc.dropSends).toBe(0); // sent, and lost
    first.child.kill('SIGKILL');
    await first.exit();
    expect(rpc.executed).toEqual([]);
    expect(rpc.balance(payee)).toBe(0n);

    const second = serve();
    const restarted = client(await listeningLine(second));
    const resent = await restarted.getSendTransactionStatus({ sendTransactionStatusId });
    expect(resent.txStatus).toBe('BROADCASTED');
    const included = await restarted.getSendTransactionStatus({ sendTransactionStatusId });
    expect(included).toEqual({ txStatus: 'INCLUDED', solana: resent.solana });
    expect(rpc.executed).toEqual([resent.solana!.signature]);
    expect(rpc.balance(payee)).toBe(2_000_000n);
    second.child.kill('SIGTERM');
    expect(await second.exit()).toBe(0);
  }, 120_000);
});
