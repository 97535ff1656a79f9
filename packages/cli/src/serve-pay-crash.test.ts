/**
 * `keyhold serve --evm-rpc` as a user runs it, against one anvil (Base Sepolia's chain id, USDC
 * at its address): the listening line names `payUrl` and `paySignerAddress`, the gateway answers
 * under `<url>/pay` through the Koa adapter, and a kill -9 between the submission of a
 * settlement and its receipt loses no payment record and never pays twice — the restarted
 * server's reconciler settles the record from the chain, and the same request then answers the
 * stored outcome.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiKeyPair } from '@keyhold/server';
import { x402Client } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnvilUsdc,
  startAnvilUsdc,
} from '../../../adapters/chain-evm-viem/src/testing/anvil-usdc.js';
import {
  keyholdServe,
  killKeyholdProcesses,
  type ListeningLine,
  listeningLine,
} from './__fixtures__/keyhold-process.js';
import { parseEvmRpcFlags } from './evm-rpc-flags.js';
import { runServeCommand } from './serve-command.js';

let anvil: AnvilUsdc;
const data = mkdtempSync(join(tmpdir(), 'keyhold-pay-'));
const root = generateApiKeyPair();

beforeAll(async () => {
  anvil = await startAnvilUsdc();
}, 60_000);

afterAll(async () => {
  killKeyholdProcesses();
  await anvil?.stop();
  rmSync(data, { recursive: true, force: true });
});

/** The gateway's members of the listening line. */
type PayListening = ListeningLine & { readonly payUrl: string; readonly paySignerAddress: string };

const serve = () =>
  keyholdServe(root, ['--http', 'koa', '--evm-rpc', `base-sepolia=${anvil.rpcUrl}`], { data });

describe('keyhold serve --evm-rpc', () => {
  it('refuses --evm-rpc without an organization for the settlement key, and a malformed one', async () => {
    const stderr: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => stderr.push(String(chunk)) > 0) as never;
    try {
      expect(await runServeCommand(['--memory', '--evm-rpc', `base-sepolia=${anvil.rpcUrl}`])).toBe(
        2,
      );
      expect(await runServeCommand(['--memory', '--evm-rpc', 'base=http://x'])).toBe(2);
    } finally {
      process.stderr.write = write;
    }
    expect(stderr.join('')).toContain('--evm-rpc needs --bootstrap-api-public-key');
    expect(stderr.join('')).toContain('--evm-rpc must be NETWORK=URL');
    expect(parseEvmRpcFlags(['base-sepolia=http://a', 'base-mainnet=https://b'])).toEqual(
      new Map([
        ['base-sepolia', 'http://a'],
        ['base-mainnet', 'https://b'],
      ]),
    );
    expect(() => parseEvmRpcFlags(['base-sepolia=http://a', 'base-sepolia=http://b'])).toThrow(
      'given twice',
    );
  });

  it('serves the gateway at <url>/pay; a kill -9 between submission and receipt pays once', async () => {
    const first = serve();
    const line = await listeningLine<PayListening>(first);
    expect(line).toMatchObject({ event: 'listening', payUrl: `${line.url}/pay` });
    expect(line.paySignerAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const signer = line.paySignerAddress as Address;
    expect(await (await fetch(`${line.payUrl}/ready`)).json()).toEqual({ status: 'ready' });

    await anvil.fund(signer);
    const payer = privateKeyToAccount(generatePrivateKey());
    await anvil.mint(payer.address, 1_000_000n);
    const payee = privateKeyToAccount(generatePrivateKey()).address;
    const accepted = {
      scheme: 'exact',
      network: 'eip155:84532' as const,
      amount: '25000',
      asset: anvil.usdc,
      payTo: payee,
      maxTimeoutSeconds: 300,
      extra: { name: 'USDC', version: '2' },
    };
    const paymentPayload = await registerExactEvmScheme(new x402Client(), {
      signer: payer,
    }).createPaymentPayload({
      x402Version: 2,
      resource: { url: 'https://shop.example/crash', description: 'x', mimeType: 'text/plain' },
      accepts: [accepted],
    });
    const paymentId = `pay_${crypto.randomUUID()}`;
    const body = JSON.stringify({
      x402Version: 2,
      paymentPayload: {
        ...paymentPayload,
        extensions: { 'payment-identifier': { info: { id: paymentId } } },
      },
      paymentRequirements: accepted,
    });
    const settle = (payUrl: string) =>
      fetch(`${payUrl}/base-sepolia/settle`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });

    // No block is mined: the settlement is sent and waits for its receipt. Kill it then.
    await anvil.test.setAutomine(false);
    const pending = settle(line.payUrl).catch(() => undefined);
    await expect
      .poll(
        async () =>
          Number(
            (
              (await anvil.client.request({ method: 'txpool_status' as never })) as {
                pending: string;
              }
            ).pending,
          ),
        { timeout: 10_000, interval: 50 },
      )
      .toBe(1);
    first.child.kill('SIGKILL');
    await first.exit();
    await pending;
    await anvil.test.mine({ blocks: 1 });
    await anvil.test.setAutomine(true);
    expect(await anvil.balanceOf(payee)).toBe(25_000n);

    // The restarted server finds the record and settles it from the chain (its reconciler).
    const second = serve();
    const again = await listeningLine<PayListening>(second);
    expect(again.paySignerAddress).toBe(signer);
    await expect
      .poll(
        async () => {
          const response = await fetch(`${again.payUrl}/base-sepolia/v1/payments/${paymentId}`);
          return ((await response.json()) as { payment?: { status: string } }).payment?.status;
        },
        { timeout: 15_000, interval: 200 },
      )
      .toBe('settled');
    const answer = (await (await settle(again.payUrl)).json()) as Record<string, unknown>;
    expect(answer).toMatchObject({ success: true, paymentId });
    expect(await anvil.balanceOf(payee)).toBe(25_000n);
    expect(await anvil.balanceOf(payer.address)).toBe(975_000n);
    second.child.kill('SIGTERM');
    expect(await second.exit()).toBe(0);
  }, 90_000);
});
