/**
 * Keyhold driven by the PUBLISHED signer adapters, unchanged, over real HTTP:
 * `@turnkey/viem` (`createAccount`) and `@turnkey/ethers` (`TurnkeySigner`), each given both
 * an `@turnkey/sdk-server` api client and an `@turnkey/http` `TurnkeyClient`. Every
 * signature is verified independently with viem / ethers recovery (no Keyhold code). A
 * non-root user denied by a policy sees the same error from these adapters as against Turnkey.
 */

import type { RunningServer } from '@keyhold/cli';
import { TurnkeySigner } from '@turnkey/ethers';
import { createAccount } from '@turnkey/viem';
import {
  getAddress as ethersGetAddress,
  verifyMessage as ethersVerifyMessage,
  verifyTypedData as ethersVerifyTypedData,
  Transaction,
} from 'ethers';
import {
  type Hex,
  type LocalAccount,
  parseGwei,
  parseTransaction,
  recoverMessageAddress,
  recoverTransactionAddress,
  type TransactionSerialized,
  verifyMessage,
  verifyTypedData,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  httpClient,
  rejection,
  type SdkClient,
  sdkClient,
  startTurnkeyServer,
} from './__fixtures__/turnkey-server.js';
import { type ApiKeyPair, generateApiKeyPair } from './api-key-signer.js';

const ETH_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;
const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' as const;

// EIP-712 fixture (the canonical "Mail" example), shared by viem and ethers.
const DOMAIN = {
  name: 'Ether Mail',
  version: '1',
  chainId: 1,
  verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC',
} as const;
const TYPES = {
  Person: [
    { name: 'name', type: 'string' },
    { name: 'wallet', type: 'address' },
  ],
  Mail: [
    { name: 'from', type: 'Person' },
    { name: 'to', type: 'Person' },
    { name: 'contents', type: 'string' },
  ],
} as const;
const MAIL = {
  from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
  to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
  contents: 'Hello, Bob!',
} as const;

// The adapters' declared client unions name their own nested @turnkey/* copies; the
// runtime contract is duck-typed (`client.name === "TurnkeyClient"` selects the http path).
type ViemClient = Parameters<typeof createAccount>[0]['client'];
type EthersClient = ConstructorParameters<typeof TurnkeySigner>[0]['client'];

describe('ecosystem signers against a real Express server', () => {
  let server: RunningServer;
  let root: ApiKeyPair;
  let organizationId: string;
  let address: Hex;
  let clients: { name: string; client: unknown }[];

  beforeAll(async () => {
    let sdk: SdkClient;
    ({ server, key: root, organizationId, client: sdk } = await startTurnkeyServer());
    const http = httpClient(server.url, root);
    const { addresses } = await sdk.createWallet({ walletName: 'eco', accounts: [ETH_ACCOUNT] });
    expect(addresses).toHaveLength(1);
    address = addresses[0] as Hex;
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    clients = [
      { name: 'sdk-server apiClient', client: sdk },
      { name: '@turnkey/http TurnkeyClient', client: http },
    ];
  });

  afterAll(async () => {
    await server?.close();
  });

  describe('@turnkey/viem createAccount', () => {
    const accounts = async (): Promise<{ name: string; account: LocalAccount }[]> =>
      Promise.all(
        clients.map(async ({ name, client }) => ({
          name,
          account: await createAccount({
            client: client as ViemClient,
            organizationId,
            signWith: address,
          }),
        })),
      );

    it('createAccount resolves the wallet address', async () => {
      for (const { account } of await accounts()) {
        expect(account.address.toLowerCase()).toBe(address.toLowerCase());
      }
    });

    it('signMessage (string and raw bytes) verifies with viem', async () => {
      for (const { name, account } of await accounts()) {
        for (const message of ['hello keyhold', { raw: '0xdeadbeef' as Hex }]) {
          const signature = await account.signMessage({ message });
          expect(signature, name).toMatch(/^0x[0-9a-f]{130}$/);
          expect(await verifyMessage({ address, message, signature }), name).toBe(true);
          expect((await recoverMessageAddress({ message, signature })).toLowerCase()).toBe(
            address.toLowerCase(),
          );
        }
      }
    });

    it('signTypedData (EIP-712 payload encoding) verifies with viem', async () => {
      // viem's `serializeTypedData` (used by @turnkey/viem) only serializes the domain when
      // `types.EIP712Domain` is declared, so callers that want a domain-bound signature must
      // declare it — the same is true against Turnkey itself.
      const types = {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
        ...TYPES,
      } as const;
      for (const { name, account } of await accounts()) {
        const typedData = {
          domain: { ...DOMAIN, chainId: 1n },
          types,
          primaryType: 'Mail',
          message: MAIL,
        } as const;
        const signature = await account.signTypedData(typedData);
        expect(await verifyTypedData({ address, ...typedData, signature }), name).toBe(true);
      }
    });

    it('signTypedData without EIP712Domain signs the empty-domain digest (viem serialization)', async () => {
      for (const { name, account } of await accounts()) {
        const signature = await account.signTypedData({
          domain: DOMAIN,
          types: TYPES,
          primaryType: 'Mail',
          message: MAIL,
        });
        const common = {
          address,
          types: TYPES,
          primaryType: 'Mail',
          message: MAIL,
          signature,
        } as const;
        expect(await verifyTypedData({ ...common, domain: {} }), name).toBe(true);
        expect(await verifyTypedData({ ...common, domain: DOMAIN }), name).toBe(false);
      }
    });

    it('signTransaction: EIP-1559 and legacy transactions recover to the address', async () => {
      for (const { name, account } of await accounts()) {
        const eip1559 = {
          type: 'eip1559',
          chainId: 11155111,
          nonce: 7,
          to: RECIPIENT,
          value: 1234567890n,
          gas: 21000n,
          maxFeePerGas: parseGwei('30'),
          maxPriorityFeePerGas: parseGwei('2'),
        } as const;
        const legacy = {
          type: 'legacy',
          chainId: 1,
          nonce: 3,
          to: RECIPIENT,
          value: 42n,
          gas: 21000n,
          gasPrice: parseGwei('20'),
          data: '0x1234',
        } as const;
        for (const tx of [eip1559, legacy]) {
          const signed = (await account.signTransaction!(tx)) as TransactionSerialized;
          const parsed = parseTransaction(signed);
          expect(parsed.type, name).toBe(tx.type);
          expect(parsed.chainId).toBe(tx.chainId);
          expect(parsed.nonce).toBe(tx.nonce);
          expect(parsed.to?.toLowerCase()).toBe(RECIPIENT.toLowerCase());
          expect(parsed.value).toBe(tx.value);
          expect(parsed.gas).toBe(tx.gas);
          if (tx.type === 'eip1559') {
            expect(parsed.maxFeePerGas).toBe(tx.maxFeePerGas);
            expect(parsed.maxPriorityFeePerGas).toBe(tx.maxPriorityFeePerGas);
          } else {
            expect(parsed.gasPrice).toBe(tx.gasPrice);
            expect(parsed.data).toBe(tx.data);
            // EIP-155: v = chainId * 2 + 35 + yParity
            expect([37n, 38n]).toContain(parsed.v);
          }
          const from = await recoverTransactionAddress({ serializedTransaction: signed });
          expect(from.toLowerCase(), `${name} ${tx.type}`).toBe(address.toLowerCase());
        }
      }
    });
  });

  describe('@turnkey/ethers TurnkeySigner', () => {
    const signers = () =>
      clients.map(({ name, client }) => ({
        name,
        signer: new TurnkeySigner({
          client: client as EthersClient,
          organizationId,
          signWith: address,
        }),
      }));

    it('getAddress is the wallet address', async () => {
      for (const { signer } of signers()) {
        expect(await signer.getAddress()).toBe(ethersGetAddress(address));
      }
    });

    it('signMessage verifies with ethers', async () => {
      for (const { name, signer } of signers()) {
        for (const message of ['hello keyhold', new Uint8Array([0xde, 0xad, 0xbe, 0xef])]) {
          const signature = await signer.signMessage(message);
          expect(ethersVerifyMessage(message, signature), name).toBe(ethersGetAddress(address));
        }
      }
    });

    it('signTypedData verifies with ethers', async () => {
      for (const { name, signer } of signers()) {
        const types = { Person: [...TYPES.Person], Mail: [...TYPES.Mail] };
        const signature = await signer.signTypedData(DOMAIN, types, MAIL);
        expect(ethersVerifyTypedData(DOMAIN, types, MAIL, signature), name).toBe(
          ethersGetAddress(address),
        );
      }
    });

    it('signTransaction of a populated EIP-1559 and a legacy tx', async () => {
      for (const { name, signer } of signers()) {
        const populated = [
          {
            type: 2,
            chainId: 11155111n,
            nonce: 9,
            from: address,
            to: RECIPIENT,
            value: 10n ** 15n,
            gasLimit: 21000n,
            maxFeePerGas: 30_000_000_000n,
            maxPriorityFeePerGas: 2_000_000_000n,
          },
          {
            type: 0,
            chainId: 1n,
            nonce: 1,
            to: RECIPIENT,
            value: 5n,
            gasLimit: 30000n,
            gasPrice: 20_000_000_000n,
            data: '0xabcdef',
          },
        ];
        for (const tx of populated) {
          const signed = await signer.signTransaction({ ...tx });
          const parsed = Transaction.from(signed);
          expect(parsed.from, `${name} type ${tx.type}`).toBe(ethersGetAddress(address));
          expect(parsed.type).toBe(tx.type);
          expect(parsed.chainId).toBe(tx.chainId);
          expect(parsed.nonce).toBe(tx.nonce);
          expect(parsed.to).toBe(ethersGetAddress(RECIPIENT));
          expect(parsed.value).toBe(tx.value);
          expect(parsed.gasLimit).toBe(tx.gasLimit);
        }
      }
    });
  });
});

describe('an explicit policy deny, through @turnkey/viem and @turnkey/ethers', () => {
  // Turnkey's own text for it, as its viem and ethers tests show it: code 7, empty details.
  const DENIED = 'Turnkey error 7: policy engine denied request explicitly (Details: [])';
  const BANNED = '0x000000000000000000000000000000000000dEaD' as const;
  let server: RunningServer;
  let organizationId: string;
  let address: Hex;
  let clients: { name: string; client: unknown }[];

  beforeAll(async () => {
    let root: SdkClient;
    ({ server, organizationId, client: root } = await startTurnkeyServer());
    const { addresses } = await root.createWallet({ walletName: 'eco', accounts: [ETH_ACCOUNT] });
    address = addresses[0] as Hex;
    // A second, non-root user: the root quorum (threshold 1) would bypass every policy.
    const carol = generateApiKeyPair();
    await root.createUsers({
      users: [
        {
          userName: 'carol',
          apiKeys: [
            { apiKeyName: 'carol', publicKey: carol.publicKey, curveType: 'API_KEY_CURVE_P256' },
          ],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    await root.createPolicy({
      policyName: 'allow everything',
      effect: 'EFFECT_ALLOW',
      condition: 'true',
      notes: '',
    });
    await root.createPolicy({
      policyName: 'never pay the banned address',
      effect: 'EFFECT_DENY',
      condition: `eth.tx.to == '${BANNED.toLowerCase()}'`,
      notes: '',
    });
    clients = [
      { name: 'sdk-server apiClient', client: sdkClient(server.url, organizationId, carol) },
      { name: '@turnkey/http TurnkeyClient', client: httpClient(server.url, carol) },
    ];
  });

  afterAll(async () => {
    await server?.close();
  });

  const tx = (to: Hex) =>
    ({
      type: 'eip1559',
      chainId: 1,
      nonce: 0,
      to,
      value: 1n,
      gas: 21000n,
      maxFeePerGas: parseGwei('30'),
      maxPriorityFeePerGas: parseGwei('2'),
    }) as const;

  it('@turnkey/viem: a transaction to the banned address fails with code 7 and Turnkey’s message; another signs', async () => {
    for (const { name, client } of clients) {
      const account = await createAccount({
        client: client as ViemClient,
        organizationId,
        signWith: address,
      });
      const error = (await rejection(account.signTransaction!(tx(BANNED)))) as Error & {
        shortMessage?: string;
      };
      expect(error.name, name).toBe('TurnkeyActivityError');
      // @turnkey/viem keeps only the message of the client's error (code 7 is in its text).
      expect(error.shortMessage, name).toBe(`Failed to sign: ${DENIED}`);

      const signed = (await account.signTransaction!(tx(RECIPIENT))) as TransactionSerialized;
      const from = await recoverTransactionAddress({ serializedTransaction: signed });
      expect(from.toLowerCase(), name).toBe(address.toLowerCase());
    }
  });

  it('@turnkey/ethers: a transaction to the banned address fails with code 7 and Turnkey’s message; another signs', async () => {
    for (const { name, client } of clients) {
      const signer = new TurnkeySigner({
        client: client as EthersClient,
        organizationId,
        signWith: address,
      });
      const populated = {
        type: 2,
        chainId: 1n,
        nonce: 0,
        value: 1n,
        gasLimit: 21000n,
        maxFeePerGas: 30_000_000_000n,
        maxPriorityFeePerGas: 2_000_000_000n,
      };
      const error = (await rejection(
        signer.signTransaction({ ...populated, to: BANNED }),
      )) as Error & {
        cause?: Error & { code?: number };
      };
      expect(error.name, name).toBe('TurnkeyActivityError');
      expect(error.message, name).toBe(`Failed to sign: ${DENIED}`);
      expect(error.cause?.code, name).toBe(7);
      expect(error.cause?.message, name).toBe(DENIED);

      const signed = await signer.signTransaction({ ...populated, to: RECIPIENT });
      expect(Transaction.from(signed).from, name).toBe(ethersGetAddress(address));
    }
  });
});
