/**
 * `pnpm bench:payments` (also run by `pnpm bench`): the payment gateway's facilitator on one
 * loopback anvil (Base Sepolia's chain id, Circle's FiatTokenV2_2 at the USDC address,
 * Multicall3), with the bare cost underneath measured in the same run.
 *
 * Rows, in this order:
 * - bare: viem `recoverTypedDataAddress` of one EIP-3009 TransferWithAuthorization (the one
 *   signature recovery a verification cannot avoid), measured first and again last; the ratios
 *   are to the mean of the two;
 * - verify, offline checks: `verifyExactEvmPayment` without the simulation (read, EIP-712
 *   recovery, recipient, window, amount);
 * - verify: `PayFacilitator.verify` as `POST /verify` runs it (the body read, the checks, and the
 *   `eth_call` simulation of `transferWithAuthorization` on anvil);
 * - settle: `PayFacilitator.settle` as `POST /settle` runs it (verify again, claim the record,
 *   sign through the software KeyVault, record, broadcast, wait for the receipt; anvil mines each
 *   transaction at once), on the memory store.
 *
 * Each row: a warm-up, then a fixed window of sequential calls (each awaited). Every verify must
 * say `isValid`, every settle `success`, and at the end the payee holds exactly the settled
 * amount; the exit code is 1 otherwise. Knob: BENCH_PAY_SECONDS (2: each row's window).
 * @module
 */
import { createPayGateway } from '@keyhold/cli';
import { createKeyhold, generateApiKeyPair, silentLogger } from '@keyhold/server';
import { type Address, type Hex, recoverTypedDataAddress, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
// Test-only helper of the adapter (not a package export), imported by path.
import { startAnvilUsdc } from '../adapters/chain-evm-viem/src/testing/anvil-usdc.js';
import {
  PAY_NETWORKS,
  readExactEvmPayment,
  TRANSFER_WITH_AUTHORIZATION_TYPES,
  verifyExactEvmPayment,
} from '../packages/payments/src/index.js';

const SECONDS = Number(process.env.BENCH_PAY_SECONDS ?? 2);
if (!Number.isFinite(SECONDS) || SECONDS <= 0)
  throw new Error('BENCH_PAY_SECONDS must be positive');
const network = PAY_NETWORKS['base-sepolia'];
const payer = privateKeyToAccount(generatePrivateKey());
const payee = privateKeyToAccount(generatePrivateKey()).address;
const AMOUNT = 10n;

const TYPES = TRANSFER_WITH_AUTHORIZATION_TYPES;
const domain = {
  name: 'USDC',
  version: '2',
  chainId: network.chainId,
  verifyingContract: network.usdc.address,
} as const;

/** A signed facilitator request for one fresh authorization, and what was signed. */
async function request(validBefore: bigint) {
  const accepted = {
    scheme: 'exact',
    network: network.caip2,
    amount: AMOUNT.toString(),
    asset: network.usdc.address,
    payTo: payee,
    maxTimeoutSeconds: 600,
    extra: { name: 'USDC', version: '2' },
  };
  const message = {
    from: payer.address,
    to: payee as Address,
    value: AMOUNT,
    validAfter: 0n,
    validBefore,
    nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
  };
  const signature: Hex = await payer.signTypedData({
    domain,
    types: TYPES,
    primaryType: 'TransferWithAuthorization',
    message,
  });
  const authorization = Object.fromEntries(
    Object.entries(message).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v]),
  );
  return {
    message,
    signature,
    body: {
      x402Version: 2,
      paymentPayload: { x402Version: 2, accepted, payload: { signature, authorization } },
      paymentRequirements: accepted,
    },
  };
}

async function measure(name: string, run: (i: number) => Promise<void>): Promise<number> {
  const warmUntil = performance.now() + Math.min(1_000, (SECONDS * 1_000) / 4);
  let i = 0;
  while (performance.now() < warmUntil) await run(i++);
  const started = performance.now();
  const until = started + SECONDS * 1_000;
  let n = 0;
  while (performance.now() < until) {
    await run(i++);
    n++;
  }
  const perSecond = n / ((performance.now() - started) / 1_000);
  rows.push({ name, perSecond, n });
  return perSecond;
}

const rows: { name: string; perSecond: number; n: number }[] = [];
let failed = false;

const anvil = await startAnvilUsdc();
const keyhold = createKeyhold({ logger: silentLogger });
try {
  const { organizationId } = await keyhold.bootstrap({
    organizationName: 'bench',
    apiPublicKey: generateApiKeyPair().publicKey,
  });
  const pay = await createPayGateway(keyhold, {
    chains: new Map([['base-sepolia', anvil.rpcUrl]]),
    organizationId,
    reconcileIntervalMs: 0,
  });
  await anvil.fund(pay.signerAddress as Address, 10n ** 20n);
  await anvil.mint(payer.address, 10n ** 12n);
  const validBefore = BigInt(Math.floor(Date.now() / 1000) + 3_600);
  const samples = await Promise.all(Array.from({ length: 64 }, () => request(validBefore)));

  const recoverOne = async (i: number) => {
    const { message, signature } = samples[i % samples.length]!;
    const address = await recoverTypedDataAddress({
      domain,
      types: TYPES,
      primaryType: 'TransferWithAuthorization',
      message,
      signature,
    });
    if (address !== payer.address) failed = true;
  };
  // The bare row first and last: the ratio is taken to their mean, so a machine whose load
  // changes during the run skews it less.
  const bareFirst = await measure('bare: recoverTypedDataAddress (EIP-712)', recoverOne);
  const chain = pay.facilitator.chainOf('base-sepolia');
  await measure('verify, offline checks (no simulation)', async (i) => {
    const payment = readExactEvmPayment(samples[i % samples.length]!.body, network);
    const result = await verifyExactEvmPayment(chain, payment, payer.address, Date.now(), {
      simulate: false,
    });
    if (!result.isValid) failed = true;
  });
  await measure('verify (POST /verify: checks + eth_call simulation)', async (i) => {
    const result = await pay.facilitator.verify('base-sepolia', samples[i % samples.length]!.body);
    if (!result.isValid) failed = true;
  });
  // Settlements consume their authorization: a fresh one each time (signing it is not timed
  // apart; it is a small part of a settlement).
  let settled = 0n;
  await measure('settle (POST /settle: verify, record, sign, send, receipt)', async () => {
    const { body } = await request(validBefore);
    const result = await pay.facilitator.settle('base-sepolia', body, {
      organizationId,
      source: 'settle',
    });
    if (result.success) settled += AMOUNT;
    else failed = true;
  });
  const bareLast = await measure('bare again: recoverTypedDataAddress (EIP-712)', recoverOne);
  const bare = (bareFirst + bareLast) / 2;
  if ((await anvil.balanceOf(payee)) !== settled) {
    console.error('payee balance is not the settled amount');
    failed = true;
  }
  await pay.close();

  console.log(
    `payment gateway on anvil (chain 84532), ${SECONDS} s per row, sequential calls; × bare = against the mean of the two bare rows`,
  );
  const width = Math.max(...rows.map((r) => r.name.length));
  for (const row of rows) {
    console.log(
      `${row.name.padEnd(width)}  ${row.perSecond.toFixed(1).padStart(9)} /s  × bare ${(row.perSecond / bare).toFixed(3)}  (n=${row.n})`,
    );
  }
} catch (error) {
  console.error(error);
  failed = true;
} finally {
  await keyhold.close();
  await anvil.stop();
}
process.exit(failed ? 1 : 0);
