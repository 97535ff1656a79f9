/**
 * ETH_SEND_TRANSACTION across a kill -9, as a user runs `keyhold serve --data DIR --evm-rpc`:
 * the signed transaction is stored with its activity before it is broadcast, so when the
 * server dies and the broadcast is lost with it (anvil is told to forget the pending
 * transaction), the restarted server's status query broadcasts the very same bytes — one
 * transaction on the chain, the value moved once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiKeyPair } from '@keyhold/server';
import { DEFAULT_ETHEREUM_ACCOUNTS } from '@turnkey/sdk-server';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnvilUsdc,
  startAnvilUsdc,
} from '../../../adapters/chain-evm-viem/src/testing/anvil-usdc.js';
import { sdkClient } from '../../server/src/__fixtures__/turnkey-server.js';
import {
  keyholdServe,
  killKeyholdProcesses,
  type ListeningLine,
  listeningLine,
} from './__fixtures__/keyhold-process.js';

let anvil: AnvilUsdc;
const data = mkdtempSync(join(tmpdir(), 'keyhold-sendtx-'));
const root = generateApiKeyPair();

beforeAll(async () => {
  anvil = await startAnvilUsdc();
}, 60_000);

afterAll(async () => {
  killKeyholdProcesses();
  await anvil?.stop();
  rmSync(data, { recursive: true, force: true });
});

const serve = () => keyholdServe(root, ['--evm-rpc', `base-sepolia=${anvil.rpcUrl}`], { data });

const client = (line: ListeningLine) => sdkClient(line.url, line.organizationId, root);

describe('keyhold serve --evm-rpc: ETH_SEND_TRANSACTION', () => {
  it('a kill -9 that loses the broadcast loses no transaction and sends none twice', async () => {
    const first = serve();
    const sdk = client(await listeningLine(first));
    const { addresses } = await sdk.createWallet({
      walletName: 'hot',
      accounts: DEFAULT_ETHEREUM_ACCOUNTS,
    });
    const sender = addresses[0] as Address;
    await anvil.fund(sender);
    const payee = privateKeyToAccount(generatePrivateKey()).address;

    await anvil.test.setAutomine(false);
    const { sendTransactionStatusId } = await sdk.ethSendTransaction({
      from: sender,
      caip2: 'eip155:84532',
      calls: [{ to: payee, value: '4242' }],
    });
    const pending = await sdk.getSendTransactionStatus({ sendTransactionStatusId });
    expect(pending.txStatus).toBe('BROADCASTED');
    const hash = pending.eth!.txHash as Hex;
    first.child.kill('SIGKILL');
    await first.exit();
    // The broadcast is lost with the process: the node forgets the pending transaction.
    await anvil.test.dropTransaction({ hash });
    expect(await anvil.client.getTransactionCount({ address: sender, blockTag: 'pending' })).toBe(
      0,
    );

    const second = serve();
    const restarted = client(await listeningLine(second));
    const resent = await restarted.getSendTransactionStatus({ sendTransactionStatusId });
    expect(resent).toEqual({ txStatus: 'BROADCASTED', eth: { txHash: hash } });
    await anvil.test.mine({ blocks: 1 });
    await anvil.test.setAutomine(true);
    expect(await restarted.getSendTransactionStatus({ sendTransactionStatusId })).toEqual({
      txStatus: 'INCLUDED',
      eth: { txHash: hash },
    });
    expect(await anvil.client.getTransactionCount({ address: sender })).toBe(1);
    expect(await anvil.client.getBalance({ address: payee })).toBe(4242n);
    second.child.kill('SIGTERM');
    expect(await second.exit()).toBe(0);
  }, 120_000);
});
