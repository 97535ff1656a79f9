/**
 * The send-transaction activities end to end, offline: anvil as Base Sepolia (the payment
 * gateway's fixture: USDC at its real address), Keyhold serving `--evm-rpc base-sepolia=…`,
 * and the published clients — `@turnkey/sdk-server` (ethSendTransaction V2, getNonces,
 * getSendTransactionStatus, getWalletAddressBalances, getGasUsage) and `@turnkey/http`
 * (ethSendRawTransaction) — first, raw stamped bodies where they have no method
 * (UPSERT_GAS_USAGE_CONFIG) or to read a refusal's exact Status. Every transfer is checked on
 * the chain: it moved once.
 */
import { type EvmSendChain, sendTransactionChainsOf } from '@keyhold/activities';
import { createViemEvmSendChain } from '@keyhold/chain-evm-viem';
import { generateApiKeyPair } from '@keyhold/server';
import { MemoryStore } from '@keyhold/store-memory';
import { DEFAULT_ETHEREUM_ACCOUNTS } from '@turnkey/sdk-server';
import { type Address, encodeFunctionData, type Hex, parseAbi } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { baseSepolia } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnvilUsdc,
  startAnvilUsdc,
} from '../../../adapters/chain-evm-viem/src/testing/anvil-usdc.js';
import {
  createApiKeyUser,
  errorCodeOf,
  httpClient,
  sdkClient,
  stampedPost,
} from '../../server/src/__fixtures__/turnkey-server.js';
import { type RunningServer, startServer } from './start-server.js';

const CAIP2 = 'eip155:84532';
const USDC_ABI = parseAbi(['function transfer(address to, uint256 amount) returns (bool)']);

let anvil: AnvilUsdc;
let server: RunningServer;
const root = generateApiKeyPair();
/** Drops the next broadcast, as a crash between the commit and the broadcast would. */
const faults = { dropNextBroadcast: false };

const sdk = (key = root) => sdkClient(server.url, server.organizationId!, key);

const http = (key = root) => httpClient(server.url, key);

/** A stamped POST; the status and the JSON body. */
const post = (path: string, body: unknown, key = root) => stampedPost(server.url, path, body, key);

/** Submits an activity body; `timestampMs` fixed when given (the same body twice). */
function submit(
  kind: string,
  type: string,
  parameters: Record<string, unknown>,
  options: { key?: typeof root; timestampMs?: string } = {},
) {
  return post(
    `/public/v1/submit/${kind}`,
    {
      type,
      timestampMs: options.timestampMs ?? String(Date.now()),
      organizationId: server.organizationId,
      parameters,
    },
    options.key,
  );
}

/**
 * The status once the node has mined the transaction, as a client polls for it: anvil's automine
 * mines just after `eth_sendRawTransaction` answers, so a status read straight after a broadcast
 * (the first status query's own, here) can still find it pending on a loaded machine.
 */
async function statusOnceMined(sendTransactionStatusId: string) {
  for (let i = 0; ; i++) {
    const status = await sdk().getSendTransactionStatus({ sendTransactionStatusId });
    if (status.txStatus !== 'BROADCASTED' || i === 100) return status;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function activityCount(): Promise<number> {
  const { activities } = await sdk().getActivities({});
  return activities.length;
}

/** A new Ethereum wallet account of the organization; its address. */
async function newAccount(name: string): Promise<Address> {
  const { addresses } = await sdk().createWallet({
    walletName: name,
    accounts: DEFAULT_ETHEREUM_ACCOUNTS,
  });
  return addresses[0] as Address;
}

const transactionCount = (address: Address) =>
  anvil.client.getTransactionCount({ address, blockTag: 'pending' });

let sender: Address;

beforeAll(async () => {
  anvil = await startAnvilUsdc();
  const real = createViemEvmSendChain(anvil.rpcUrl);
  const chain: EvmSendChain = {
    ...real,
    async sendRawTransaction(serialized) {
      if (faults.dropNextBroadcast) {
        faults.dropNextBroadcast = false;
        throw new Error('the process died before the broadcast');
      }
      return real.sendRawTransaction(serialized);
    },
  };
  let settlement: { organizationId: string; address: string } | undefined;
  server = await startServer({
    port: 0,
    store: new MemoryStore(),
    bootstrapApiPublicKey: root.publicKey,
    webhookIntervalMs: 0,
    pay: { chains: new Map([['base-sepolia', anvil.rpcUrl]]), reconcileIntervalMs: 0 },
    sendTransaction: {
      chains: sendTransactionChainsOf(new Map([[CAIP2, chain]])),
      gasSponsor: () => settlement && { ...settlement, usdPerNative: '2000' },
    },
  });
  settlement = { organizationId: server.organizationId!, address: server.paySignerAddress! };
  await anvil.fund(server.paySignerAddress as Address);
  sender = await newAccount('sender');
  await anvil.fund(sender);
}, 90_000);

afterAll(async () => {
  await server?.close();
  await anvil?.stop();
});

describe('ETH_SEND_TRANSACTION', () => {
  it('sdk-server ethSendTransaction (V2) signs with the wallet account and broadcasts once; the status reads INCLUDED', async () => {
    const payee = privateKeyToAccount(generatePrivateKey()).address;
    const before = await transactionCount(sender);
    const { nonce } = await sdk().getNonces({ address: sender, caip2: CAIP2, nonce: true });
    expect(nonce).toBe(String(before));
    const { sendTransactionStatusId } = await sdk().ethSendTransaction({
      from: sender,
      caip2: CAIP2,
      calls: [{ to: payee, value: '12345' }],
    });
    const status = await statusOnceMined(sendTransactionStatusId);
    expect(status.txStatus).toBe('INCLUDED');
    const mined = await anvil.client.getTransaction({ hash: status.eth!.txHash as Hex });
    expect(mined.from.toLowerCase()).toBe(sender.toLowerCase());
    expect(mined.to?.toLowerCase()).toBe(payee.toLowerCase());
    expect(await anvil.client.getBalance({ address: payee })).toBe(12345n);
    expect(await transactionCount(sender)).toBe(before + 1);
  });

  it('the same body twice is one activity and one transaction (the V1 intent, raw)', async () => {
    const payee = privateKeyToAccount(generatePrivateKey()).address;
    const before = await transactionCount(sender);
    const timestampMs = String(Date.now());
    const parameters = { from: sender, caip2: CAIP2, to: payee, value: '7' };
    const first = await submit(
      'eth_send_transaction',
      'ACTIVITY_TYPE_ETH_SEND_TRANSACTION',
      parameters,
      { timestampMs },
    );
    const second = await submit(
      'eth_send_transaction',
      'ACTIVITY_TYPE_ETH_SEND_TRANSACTION',
      parameters,
      { timestampMs },
    );
    expect(first.status).toBe(200);
    expect(first.json.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(second.json.activity.id).toBe(first.json.activity.id);
    expect(second.json.activity.result).toEqual(first.json.activity.result);
    expect(first.json.activity.result.ethSendTransactionResult.sendTransactionStatusId).toMatch(
      /^[0-9a-f-]{36}$/,
    );
    expect(await transactionCount(sender)).toBe(before + 1);
    expect(await anvil.client.getBalance({ address: payee })).toBe(7n);
  });

  it('a broadcast cut short after the commit is repeated by the status query with the same bytes', async () => {
    const payee = privateKeyToAccount(generatePrivateKey()).address;
    const before = await transactionCount(sender);
    faults.dropNextBroadcast = true;
    const { sendTransactionStatusId } = await sdk().ethSendTransaction({
      from: sender,
      caip2: CAIP2,
      calls: [{ to: payee, value: '99' }],
    });
    expect(faults.dropNextBroadcast).toBe(false);
    expect(await transactionCount(sender)).toBe(before); // nothing left the server
    const first = await sdk().getSendTransactionStatus({ sendTransactionStatusId });
    expect(['BROADCASTED', 'INCLUDED']).toContain(first.txStatus);
    const again = await statusOnceMined(sendTransactionStatusId);
    expect(again).toEqual({ txStatus: 'INCLUDED', eth: first.eth });
    expect(await transactionCount(sender)).toBe(before + 1);
    expect(await anvil.client.getBalance({ address: payee })).toBe(99n);
  });

  it('a transaction that reverts when mined: FAILED with the revert reason decoded', async () => {
    await anvil.mint(sender, 1_000n);
    const payee = privateKeyToAccount(generatePrivateKey()).address;
    const data = encodeFunctionData({
      abi: USDC_ABI,
      functionName: 'transfer',
      args: [payee, 1_000n],
    });
    await anvil.test.setAutomine(false);
    try {
      // Both simulate against the last block, where the balance is there; the second is mined
      // after the first has spent it.
      const ok = await sdk().ethSendTransaction({
        from: sender,
        caip2: CAIP2,
        calls: [{ to: anvil.usdc, data }],
      });
      const doomed = await sdk().ethSendTransaction({
        from: sender,
        caip2: CAIP2,
        calls: [{ to: anvil.usdc, data }],
        gasLimit: '100000',
      });
      expect(
        (
          await sdk().getSendTransactionStatus({
            sendTransactionStatusId: doomed.sendTransactionStatusId,
          })
        ).txStatus,
      ).toBe('BROADCASTED');
      await anvil.test.mine({ blocks: 1 });
      const mined = await sdk().getSendTransactionStatus({
        sendTransactionStatusId: ok.sendTransactionStatusId,
      });
      expect(mined.txStatus).toBe('INCLUDED');
      const failed = await sdk().getSendTransactionStatus({
        sendTransactionStatusId: doomed.sendTransactionStatusId,
      });
      expect(failed.txStatus).toBe('FAILED');
      expect(failed.txError).toContain('transfer amount exceeds balance');
      expect(failed.error?.revertChain).toEqual([
        {
          address: anvil.usdc.toLowerCase(),
          errorType: 'native',
          displayMessage: 'execution reverted: ERC20: transfer amount exceeds balance',
          native: { nativeType: 'error_string', message: 'ERC20: transfer amount exceeds balance' },
        },
      ]);
      expect(await anvil.balanceOf(payee)).toBe(1_000n);
    } finally {
      await anvil.test.setAutomine(true);
    }
  });

  it('refusals store nothing and broadcast nothing: unknown network, no RPC, used nonce, no funds, a revert', async () => {
    const payee = privateKeyToAccount(generatePrivateKey()).address;
    const activities = await activityCount();
    const before = await transactionCount(sender);
    const send = (parameters: Record<string, unknown>) =>
      submit('eth_send_transaction', 'ACTIVITY_TYPE_ETH_SEND_TRANSACTION', {
        from: sender,
        caip2: CAIP2,
        to: payee,
        ...parameters,
      });

    const unknown = await send({ caip2: 'eip155:999999' });
    expect([unknown.status, errorCodeOf(unknown.json)]).toEqual([400, 'EVM_NETWORK_UNSUPPORTED']);
    expect(unknown.json.message).toBe(
      'unsupported caip2: not an EVM network Keyhold sends transactions on',
    );

    const unconfigured = await send({ caip2: 'eip155:8453' });
    expect(errorCodeOf(unconfigured.json)).toBe('EVM_RPC_NOT_CONFIGURED');
    expect(unconfigured.status).toBe(400);
    expect(unconfigured.json.message).toBe(
      'no RPC endpoint configured for this network: start the server with --evm-rpc NETWORK=URL',
    );

    const used = await send({ nonce: '0' });
    expect([used.status, errorCodeOf(used.json)]).toEqual([400, 'NONCE_TOO_LOW']);

    const poor = await send({ value: String(10n ** 24n) });
    expect([poor.status, errorCodeOf(poor.json)]).toEqual([400, 'INSUFFICIENT_FUNDS']);
    expect(poor.json.message).toBe('insufficient funds for gas * price + value');

    const data = encodeFunctionData({
      abi: USDC_ABI,
      functionName: 'transfer',
      args: [payee, 10n ** 12n],
    });
    const reverts = await send({ to: anvil.usdc, data });
    expect([reverts.status, errorCodeOf(reverts.json)]).toEqual([400, 'TRANSACTION_REVERTED']);
    expect(reverts.json.message).toBe('execution reverted');
    expect(reverts.json.details[0].revertChain[0].native).toEqual({
      nativeType: 'error_string',
      message: 'ERC20: transfer amount exceeds balance',
    });

    const batch = await submit('eth_send_transaction', 'ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2', {
      from: sender,
      caip2: CAIP2,
      calls: [{ to: payee }, { to: payee }],
    });
    expect([batch.status, errorCodeOf(batch.json)]).toEqual([400, 'BATCH_CALLS_UNSUPPORTED']);

    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    const notOurs = await send({ from: stranger });
    expect(errorCodeOf(notOurs.json)).toBe('SIGNER_NOT_FOUND');

    expect(await activityCount()).toBe(activities);
    expect(await transactionCount(sender)).toBe(before);
  });

  it('is decided by the policies: eth.tx.to and the wallet account as SIGN_TRANSACTION sees them', async () => {
    const allowed = privateKeyToAccount(generatePrivateKey()).address;
    const other = privateKeyToAccount(generatePrivateKey()).address;
    const bobKey = generateApiKeyPair();
    await createApiKeyUser(sdk(), 'bob', bobKey);
    await sdk().createPolicy({
      policyName: 'bob pays one address from the sender',
      effect: 'EFFECT_ALLOW',
      condition: `activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN' && eth.tx.to == '${allowed.toLowerCase()}' && wallet_account.address == '${sender}' && eth.tx.chain_id == 84532`,
      notes: '',
    });
    const bob = sdk(bobKey);
    await bob.ethSendTransaction({
      from: sender,
      caip2: CAIP2,
      calls: [{ to: allowed, value: '1' }],
    });
    expect(await anvil.client.getBalance({ address: allowed })).toBe(1n);
    await expect(
      bob.ethSendTransaction({ from: sender, caip2: CAIP2, calls: [{ to: other, value: '1' }] }),
    ).rejects.toThrow(/request not authorized/);
    expect(await anvil.client.getBalance({ address: other })).toBe(0n);
  });

  it('waits for consensus like any activity: broadcast only once the root user approves', async () => {
    const payee = privateKeyToAccount(generatePrivateKey()).address;
    const carolKey = generateApiKeyPair();
    await createApiKeyUser(sdk(), 'carol', carolKey);
    await sdk().createPolicy({
      policyName: 'carol pays with root approval',
      effect: 'EFFECT_ALLOW',
      condition: `eth.tx.to == '${payee.toLowerCase()}'`,
      consensus: `approvers.any(user, user.id == '${server.userId}')`,
      notes: '',
    });
    const before = await transactionCount(sender);
    const parked = await submit(
      'eth_send_transaction',
      'ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2',
      { from: sender, caip2: CAIP2, calls: [{ to: payee, value: '3' }] },
      { key: carolKey },
    );
    expect(parked.json.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    expect(await transactionCount(sender)).toBe(before);
    const approved = await sdk().approveActivity({ fingerprint: parked.json.activity.fingerprint });
    expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(await transactionCount(sender)).toBe(before + 1);
    expect(await anvil.client.getBalance({ address: payee })).toBe(3n);
  });
});

describe('ETH_SEND_RAW_TRANSACTION', () => {
  it('@turnkey/http ethSendRawTransaction broadcasts the signed bytes; sending them again answers the same hash', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    await anvil.fund(wallet.address);
    const payee = privateKeyToAccount(generatePrivateKey()).address;
    const signed = await wallet.signTransaction({
      chainId: baseSepolia.id,
      type: 'eip1559',
      to: payee,
      value: 5n,
      nonce: 0,
      gas: 21_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
    });
    const send = () =>
      http().ethSendRawTransaction({
        type: 'ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION',
        timestampMs: String(Date.now()),
        organizationId: server.organizationId!,
        parameters: { signedTransaction: signed, caip2: CAIP2 },
      });
    const first = await send();
    const hash = first.activity.result.ethSendRawTransactionResult?.transactionHash;
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await anvil.client.getTransactionReceipt({ hash: hash as Hex })).status).toBe(
      'success',
    );
    const second = await send();
    expect(second.activity.id).not.toBe(first.activity.id);
    expect(second.activity.result.ethSendRawTransactionResult?.transactionHash).toBe(hash);
    expect(await anvil.client.getBalance({ address: payee })).toBe(5n);
    // Other bytes with the nonce the chain has used: refused, nothing stored.
    const reused = await wallet.signTransaction({
      chainId: baseSepolia.id,
      type: 'eip1559',
      to: payee,
      value: 6n,
      nonce: 0,
      gas: 21_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
    });
    const activities = await activityCount();
    const refused = await submit(
      'eth_send_raw_transaction',
      'ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION',
      {
        signedTransaction: reused,
        caip2: CAIP2,
      },
    );
    expect([refused.status, errorCodeOf(refused.json)]).toEqual([400, 'NONCE_TOO_LOW']);
    expect(refused.json.message).toBe(
      'nonce too low: the account has sent a transaction with this nonce already',
    );
    expect(await activityCount()).toBe(activities);
  });

  it('refuses another chain than caip2, bytes that are not a signed transaction, and a sender who cannot pay', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const activities = await activityCount();
    const mainnet = await wallet.signTransaction({
      chainId: 8453,
      type: 'eip1559',
      to: wallet.address,
      nonce: 0,
      gas: 21_000n,
      maxFeePerGas: 1n,
      maxPriorityFeePerGas: 1n,
    });
    const raw = (signedTransaction: string) =>
      submit('eth_send_raw_transaction', 'ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION', {
        signedTransaction,
        caip2: CAIP2,
      });
    const mismatch = await raw(mainnet);
    expect([mismatch.status, errorCodeOf(mismatch.json)]).toEqual([
      400,
      'TRANSACTION_CHAIN_MISMATCH',
    ]);
    const garbage = await raw('0x02c0');
    expect([garbage.status, garbage.json.message]).toEqual([400, 'failed to parse transaction']);
    const poor = await raw(
      await wallet.signTransaction({
        chainId: baseSepolia.id,
        type: 'eip1559',
        to: wallet.address,
        value: 1n,
        nonce: 0,
        gas: 21_000n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1n,
      }),
    );
    expect([poor.status, errorCodeOf(poor.json)]).toEqual([400, 'INSUFFICIENT_FUNDS']);
    expect(await activityCount()).toBe(activities);
  });
});

describe('balances and gas sponsorship', () => {
  it('get_wallet_address_balances: ETH and USDC of a wallet account; another address is refused', async () => {
    const account = await newAccount('balances');
    await anvil.fund(account, 3n * 10n ** 17n);
    await anvil.mint(account, 2_500_000n);
    const { balances } = await sdk().getWalletAddressBalances({ address: account, caip2: CAIP2 });
    expect(balances).toEqual([
      {
        caip19: `${CAIP2}/slip44:60`,
        symbol: 'ETH',
        name: 'Ether',
        decimals: 18,
        balance: '300000000000000000',
        display: { crypto: '0.3' },
      },
      {
        caip19: `${CAIP2}/erc20:${anvil.usdc.toLowerCase()}`,
        symbol: 'USDC',
        name: 'USD Coin',
        decimals: 6,
        balance: '2500000',
        display: { crypto: '2.5' },
      },
    ]);
    const foreign = await post('/public/v1/query/get_wallet_address_balances', {
      organizationId: server.organizationId,
      address: privateKeyToAccount(generatePrivateKey()).address,
      caip2: CAIP2,
    });
    expect([foreign.status, errorCodeOf(foreign.json)]).toEqual([400, 'SENDER_NOT_WALLET_ACCOUNT']);
  });

  it('sponsor: the settlement account pays the gas within the configured window limit, never beyond', async () => {
    const account = await newAccount('sponsored'); // no ETH at all
    const payee = privateKeyToAccount(generatePrivateKey()).address;
    const sponsored = () =>
      submit('eth_send_transaction', 'ACTIVITY_TYPE_ETH_SEND_TRANSACTION', {
        from: account,
        caip2: CAIP2,
        to: payee,
        sponsor: true,
        gasLimit: '21000',
        maxFeePerGas: '3000000000',
        maxPriorityFeePerGas: '1000000',
      });
    const off = await sponsored();
    expect([off.status, errorCodeOf(off.json)]).toEqual([400, 'GAS_SPONSORSHIP_NOT_ENABLED']);

    // One budget is 21000 * 3 gwei = 0.000063 ETH = $0.126 at $2000: the limit fits one.
    const config = await submit(
      'upsert_gas_usage_config',
      'ACTIVITY_TYPE_UPSERT_GAS_USAGE_CONFIG',
      {
        orgWindowLimitUsd: '0.2',
        subOrgWindowLimitUsd: '0.1',
        windowDurationMinutes: '60',
        enabled: true,
      },
    );
    expect(config.json.activity.result.upsertGasUsageConfigResult.gasUsageConfigId).toMatch(
      /^[0-9a-f-]{36}$/,
    );
    const sponsorBefore = await anvil.client.getBalance({
      address: server.paySignerAddress as Address,
    });
    const paid = await sponsored();
    expect(paid.json.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const { sendTransactionStatusId } = paid.json.activity.result.ethSendTransactionResult;
    // Sent after the commit; on a loaded machine that send may be cut short (the RPC call's
    // timeout), and the first status query repeats it with the same bytes: BROADCASTED, then
    // INCLUDED (as in "a broadcast cut short" above).
    const first = await sdk().getSendTransactionStatus({ sendTransactionStatusId });
    expect(['BROADCASTED', 'INCLUDED']).toContain(first.txStatus);
    expect((await statusOnceMined(sendTransactionStatusId)).txStatus).toBe('INCLUDED');
    expect(await transactionCount(account)).toBe(1);
    expect(
      await anvil.client.getBalance({ address: server.paySignerAddress as Address }),
    ).toBeLessThan(sponsorBefore - 21_000n * 3_000_000_000n + 1n);
    expect(await sdk().getGasUsage({})).toEqual({
      windowDurationMinutes: 60,
      windowLimitUsd: '0.200000',
      usageUsd: '0.126000',
    });

    const over = await sponsored();
    expect([over.status, errorCodeOf(over.json)]).toEqual([429, 'GAS_SPONSORSHIP_LIMIT_EXCEEDED']);
    expect(await transactionCount(account)).toBe(1);
  });
});

describe('the chain down', () => {
  it('answers EVM_CHAIN_UNAVAILABLE, 503 with Retry-After, and stores nothing', async () => {
    const activities = await activityCount();
    await anvil.stop();
    const down = await submit('eth_send_transaction', 'ACTIVITY_TYPE_ETH_SEND_TRANSACTION', {
      from: sender,
      caip2: CAIP2,
      to: sender,
    });
    expect([down.status, errorCodeOf(down.json)]).toEqual([503, 'EVM_CHAIN_UNAVAILABLE']);
    expect(down.headers.get('retry-after')).toBeTruthy();
    const nonces = await post('/public/v1/query/get_nonces', {
      organizationId: server.organizationId,
      address: sender,
      caip2: CAIP2,
    });
    expect([nonces.status, errorCodeOf(nonces.json)]).toEqual([503, 'EVM_CHAIN_UNAVAILABLE']);
    expect(await activityCount()).toBe(activities);
  });
});
