/**
 * Smart-contract interfaces through the HTTP surface with the published `@turnkey/sdk-server`:
 * CREATE_SMART_CONTRACT_INTERFACE / DELETE_SMART_CONTRACT_INTERFACE and the two queries, their
 * refusals (nothing stored), and their use by policies — a non-root user's SIGN_TRANSACTION is
 * allowed or denied by a policy on the decoded contract call (`eth.tx.function_name`,
 * `eth.tx.contract_call_args`) once the ABI is uploaded, and without it the condition cannot
 * match. Then the paymaster flow of Turnkey's gas-station SDK: its ABI uploaded as the SDK's
 * `ensureGasStationInterface` does, a policy in the shape its `buildPaymasterExecutionPolicy`
 * writes, and `execute(...)` calls the paymaster may and may not sign. On memory and embedded
 * PGlite.
 */
import { createRequire } from 'node:module';
import {
  encodeFunctionData,
  erc20Abi,
  type Hex,
  parseAbi,
  parseTransaction,
  recoverTransactionAddress,
  serializeTransaction,
} from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeStoreTargets, STORE_TARGETS } from './__fixtures__/store-targets.js';
import {
  rejection,
  type SdkClient,
  sdkClient,
  startTurnkeyServer,
  type TurnkeyServer,
} from './__fixtures__/turnkey-server.js';
import { generateApiKeyPair } from './api-key-signer.js';

const ETH_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;
const TOKEN = '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238' as const;
const ALLOWED = '0x08d2b0a37f869ff76bacb5bab3278e26ab7067b7' as const;
const OTHER = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8' as const;
const PERMISSION_DENIED = /\berror 7: /;

// @scure/base is a dependency of @keyhold/keys, not of this package: resolve it from there.
const fromKeys = createRequire(createRequire(import.meta.url).resolve('@keyhold/keys'));
const { base58 } = (await import(fromKeys.resolve('@scure/base'))) as {
  base58: { decode(text: string): Uint8Array };
};

describe.each(STORE_TARGETS)('smart-contract interfaces on %s', (_, openStore) => {
  let t: TurnkeyServer;
  let bob: { client: SdkClient; userId: string };
  let signer: Hex;
  const policyIds: string[] = [];

  beforeAll(async () => {
    t = await startTurnkeyServer(await openStore());
    const { addresses } = await t.client.createWallet({
      walletName: 'paymaster',
      accounts: [ETH_ACCOUNT],
    });
    signer = addresses[0] as Hex;
    // Bob is not in the root quorum: policies decide for him.
    const key = generateApiKeyPair();
    const { userIds } = await t.client.createUsers({
      users: [
        {
          userName: 'bob',
          apiKeys: [
            { apiKeyName: 'bob', publicKey: key.publicKey, curveType: 'API_KEY_CURVE_P256' },
          ],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    bob = { client: sdkClient(t.server.url, t.organizationId, key), userId: userIds[0]! };
  });

  afterAll(async () => {
    await t?.server.close();
    await closeStoreTargets();
  });

  afterEach(async () => {
    for (const policyId of policyIds.splice(0)) await t.client.deletePolicy({ policyId });
    const { smartContractInterfaces } = await t.client.getSmartContractInterfaces({});
    for (const { smartContractInterfaceId } of smartContractInterfaces) {
      await t.client.deleteSmartContractInterface({ smartContractInterfaceId });
    }
  });

  const uploadAbi = async (address: string, abi: unknown, label = 'abi') =>
    (
      await t.client.createSmartContractInterface({
        smartContractAddress: address,
        smartContractInterface: JSON.stringify(abi),
        type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
        label,
        notes: 'uploaded by the test',
      })
    ).smartContractInterfaceId;

  const policy = async (condition: string, consensus?: string) => {
    const { policyId } = await t.client.createPolicy({
      policyName: `policy ${policyIds.length} ${Date.now()}`,
      effect: 'EFFECT_ALLOW',
      condition,
      ...(consensus ? { consensus } : {}),
      notes: '',
    });
    policyIds.push(policyId);
  };

  /** An unsigned EIP-1559 transaction calling `to` with `data`. */
  const call = (to: Hex, data: Hex, gas = 100_000n) =>
    serializeTransaction({
      type: 'eip1559',
      chainId: 11155111,
      nonce: 0,
      gas,
      maxFeePerGas: 30_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      to,
      value: 0n,
      data,
    });

  const transfer = (to: Hex, amount: bigint) =>
    encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] });

  /** Bob signs; resolves to the signer recovered from the signed transaction. */
  const bobSigns = async (unsignedTransaction: Hex) => {
    const { signedTransaction } = await bob.client.signTransaction({
      signWith: signer,
      unsignedTransaction,
      type: 'TRANSACTION_TYPE_ETHEREUM',
    });
    const signed = `0x${signedTransaction.replace(/^0x/, '')}` as Hex;
    expect(parseTransaction(signed).data).toBe(parseTransaction(unsignedTransaction).data);
    return (
      await recoverTransactionAddress({ serializedTransaction: signed as never })
    ).toLowerCase();
  };

  describe('CREATE/DELETE_SMART_CONTRACT_INTERFACE and the queries', () => {
    it('stores an ABI per organization, shows it, and deletes it', async () => {
      const id = await uploadAbi(TOKEN, erc20Abi, 'USDC sepolia');
      const { smartContractInterface } = await t.client.getSmartContractInterface({
        smartContractInterfaceId: id,
      });
      expect(smartContractInterface).toEqual({
        organizationId: t.organizationId,
        smartContractInterfaceId: id,
        smartContractAddress: TOKEN,
        smartContractInterface: JSON.stringify(erc20Abi),
        type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
        label: 'USDC sepolia',
        notes: 'uploaded by the test',
        createdAt: expect.objectContaining({ seconds: expect.any(String) }),
        updatedAt: expect.objectContaining({ seconds: expect.any(String) }),
      });
      const { smartContractInterfaces } = await t.client.getSmartContractInterfaces({});
      expect(smartContractInterfaces).toEqual([smartContractInterface]);
      const deleted = await t.client.deleteSmartContractInterface({ smartContractInterfaceId: id });
      expect(deleted.smartContractInterfaceId).toBe(id);
      expect((await t.client.getSmartContractInterfaces({})).smartContractInterfaces).toEqual([]);
      const missing = await rejection(
        t.client.getSmartContractInterface({ smartContractInterfaceId: id }),
      );
      expect(missing.message).toMatch(/error 5: smart contract interface not found/);
    });

    it('refuses bad interfaces, bad addresses, a second ABI for an address and unknown ids, storing nothing', async () => {
      const refused = async (parameters: Record<string, unknown>, message: RegExp) => {
        const before = (await t.client.getActivities({})).activities.length;
        const error = await rejection(
          t.client.createSmartContractInterface({
            smartContractAddress: TOKEN,
            smartContractInterface: JSON.stringify(erc20Abi),
            type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
            label: 'x',
            ...parameters,
          } as never),
        );
        expect(error.message).toMatch(message);
        expect((await t.client.getActivities({})).activities.length).toBe(before);
      };
      await refused(
        { smartContractInterface: '{not json' },
        /invalid smart contract interface:.*not JSON/,
      );
      await refused(
        {
          smartContractInterface: JSON.stringify([
            { type: 'function', name: 'f', inputs: [{ type: 'uint7' }] },
          ]),
        },
        /unsupported type 'uint7'/,
      );
      await refused(
        { smartContractInterface: `[${' '.repeat(409_600)}]` },
        /invalid smart contract interface/,
      );
      await refused({ smartContractAddress: '0x1234' }, /invalid smart contract address/);
      // A mixed-case address must be its EIP-55 checksum.
      await refused(
        { smartContractAddress: TOKEN.replace('D', 'd') },
        /invalid smart contract address/,
      );
      await refused(
        { type: 'SMART_CONTRACT_INTERFACE_TYPE_TRON' },
        /invalid smart contract interface type/,
      );
      await refused(
        {
          type: 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA',
          smartContractInterface: '{"instructions":[]}',
          smartContractAddress: 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4',
        },
        /the IDL has no instructions/,
      );
      await uploadAbi(TOKEN, erc20Abi);
      // The same address in another case is the same contract.
      await refused({ smartContractAddress: TOKEN.toLowerCase() }, /already exists/);
      const unknown = await rejection(
        t.client.deleteSmartContractInterface({
          smartContractInterfaceId: '6f2c7b1e-0d3a-4c55-9f1e-2a8b7c6d5e4f',
        }),
      );
      expect(unknown.message).toMatch(/error 5: smart contract interface not found/);
    });

    it('keeps a Solana IDL by its program id', async () => {
      const idl = {
        address: 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4',
        instructions: [
          {
            name: 'route',
            accounts: [{ name: 'user', signer: true }],
            args: [{ name: 'in_amount', type: 'u64' }],
          },
        ],
      };
      const { smartContractInterfaceId } = await t.client.createSmartContractInterface({
        smartContractAddress: idl.address,
        smartContractInterface: JSON.stringify(idl),
        type: 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA',
        label: 'Jupiter',
      });
      const { smartContractInterface } = await t.client.getSmartContractInterface({
        smartContractInterfaceId,
      });
      expect(smartContractInterface.type).toBe('SMART_CONTRACT_INTERFACE_TYPE_SOLANA');
      expect(smartContractInterface.smartContractAddress).toBe(idl.address);
      expect(smartContractInterface.notes).toBe('');
    });
  });

  describe('policies on the decoded contract call', () => {
    const ALLOW_SMALL_TRANSFERS =
      `eth.tx.to == '${TOKEN.toLowerCase()}' && eth.tx.function_name == 'transfer' && ` +
      `eth.tx.function_signature == '0xa9059cbb' && ` +
      // viem's erc20Abi names transfer's arguments `recipient` and `amount`.
      `eth.tx.contract_call_args['recipient'] == '${ALLOWED}' && ` +
      `eth.tx.contract_call_args['amount'] < 1000000`;

    it('allows only transfer to the named address under the amount, once the ABI is uploaded', async () => {
      await policy(ALLOW_SMALL_TRANSFERS);
      const small = call(TOKEN, transfer(ALLOWED, 999_999n));
      // Without the interface the condition cannot match: implicitly denied.
      expect((await rejection(bobSigns(small))).message).toMatch(PERMISSION_DENIED);

      const id = await uploadAbi(TOKEN.toLowerCase(), erc20Abi);
      expect(await bobSigns(small)).toBe(signer.toLowerCase());
      for (const denied of [
        call(TOKEN, transfer(ALLOWED, 1_000_000n)), // too much
        call(TOKEN, transfer(OTHER, 1n)), // another recipient
        call(
          TOKEN,
          encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [ALLOWED, 1n] }),
        ),
        call(OTHER, transfer(ALLOWED, 1n)), // another contract: no ABI, nothing decoded
        call(TOKEN, `${transfer(ALLOWED, 1n).slice(0, 40)}` as Hex), // truncated call data
      ]) {
        expect((await rejection(bobSigns(denied))).message).toMatch(PERMISSION_DENIED);
      }

      // With the interface gone, the arguments are missing again.
      await t.client.deleteSmartContractInterface({ smartContractInterfaceId: id });
      expect((await rejection(bobSigns(small))).message).toMatch(PERMISSION_DENIED);
      // And a policy naming an argument the ABI does not have never matches.
      await uploadAbi(TOKEN, erc20Abi);
      await t.client.deletePolicy({ policyId: policyIds.pop()! });
      await policy(
        `eth.tx.function_name == 'transfer' && eth.tx.contract_call_args['to'] == '${ALLOWED}'`,
      );
      expect((await rejection(bobSigns(small))).message).toMatch(PERMISSION_DENIED);
    });

    it('a DENY on the decoded function stops it whatever else allows', async () => {
      await uploadAbi(TOKEN, erc20Abi);
      await policy(`eth.tx.to == '${TOKEN.toLowerCase()}'`);
      const { policyId } = await t.client.createPolicy({
        policyName: `no approvals ${Date.now()}`,
        effect: 'EFFECT_DENY',
        condition: "eth.tx.function_name == 'approve'",
        notes: '',
      });
      policyIds.push(policyId);
      const approve = call(
        TOKEN,
        encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [OTHER, 10n ** 30n] }),
      );
      expect((await rejection(bobSigns(approve))).message).toMatch(PERMISSION_DENIED);
      expect(await bobSigns(call(TOKEN, transfer(OTHER, 5n)))).toBe(signer.toLowerCase());
    });
  });

  describe("the gas-station paymaster flow (Turnkey's @turnkey/gas-station policy setup)", () => {
    // The execution contract's interface as the gas-station SDK uploads it (its overloaded
    // `execute` among others), at the contract's address.
    const GAS_STATION = '0x00000000008c57a1CE37836a5e9d36759D070d8c' as const;
    const gasStationAbi = parseAbi([
      'function execute(address _targetEoA, bytes _data) returns (bool, bytes)',
      'function execute(address _targetEoA, address _to, uint256 ethAmount, bytes _data) returns (bool, bytes)',
      'function executeNoValue(address _targetEoA, bytes _data) returns (bool, bytes)',
      'function executeBatch(address _targetEoA, bytes _data) returns (bool, bytes[])',
      'function approveThenExecute(address _targetEoA, bytes _data) returns (bool, bytes)',
      'function burnNonce(address _targetEoA, bytes _signature, uint128 _nonce)',
      'function getNonce(address _targetEoA) view returns (uint128)',
      'function isDelegated(address _targetEoA) view returns (bool)',
      'error NotDelegated()',
    ]);
    const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' as const;
    const EOA = '0xa0ee7a142d267c1f36714e4a8f75612f20a79720' as const;
    const execute = (target: Hex, to: Hex, ethAmount: bigint) =>
      encodeFunctionData({
        abi: gasStationAbi,
        functionName: 'execute',
        args: [target, to, ethAmount, transfer(ALLOWED, 5n)],
      });

    it('the paymaster signs execute() only for the allowed EOA, output contract and amounts', async () => {
      // ensureGasStationInterface: look the interface up by address, upload it if absent.
      const existing = (await t.client.getSmartContractInterfaces({})).smartContractInterfaces.find(
        (i) => i.smartContractAddress.toLowerCase() === GAS_STATION.toLowerCase(),
      );
      expect(existing).toBeUndefined();
      const created = await t.client.createSmartContractInterface({
        organizationId: t.organizationId,
        type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
        label: `Gas Station - ${GAS_STATION}`,
        notes: 'EIP-7702 Gas Station execution contract ABI.',
        smartContractAddress: GAS_STATION,
        smartContractInterface: JSON.stringify(gasStationAbi),
      });
      expect(
        created.activity.result.createSmartContractInterfaceResult?.smartContractInterfaceId,
      ).toBe(created.smartContractInterfaceId);
      // buildPaymasterExecutionPolicy({ paymasterUserId, executionContractAddress, restrictions:
      // { allowedEOAs, allowedContracts, maxEthAmount, maxGasLimit } }), field for field.
      await policy(
        [
          "activity.resource == 'PRIVATE_KEY'",
          "activity.action == 'SIGN'",
          `eth.tx.to == '${GAS_STATION.toLowerCase()}'`,
          `(eth.tx.contract_call_args['_to'] == '${USDC.toLowerCase()}')`,
          `(eth.tx.contract_call_args['_targetEoA'] == '${EOA}')`,
          "eth.tx.contract_call_args['ethAmount'] <= 100000000000000000",
          'eth.tx.gas <= 500000',
        ].join(' && '),
        `approvers.any(user, user.id == '${bob.userId}')`,
      );
      const gasStation = GAS_STATION.toLowerCase() as Hex;
      expect(await bobSigns(call(gasStation, execute(EOA, USDC, 0n)))).toBe(signer.toLowerCase());
      expect(await bobSigns(call(gasStation, execute(EOA, USDC, 10n ** 17n)))).toBe(
        signer.toLowerCase(),
      );
      for (const denied of [
        call(gasStation, execute(EOA, OTHER, 0n)), // another output contract
        call(gasStation, execute(OTHER, USDC, 0n)), // another EOA
        call(gasStation, execute(EOA, USDC, 10n ** 17n + 1n)), // too much ETH
        call(gasStation, execute(EOA, USDC, 0n), 500_001n), // too much gas
        // The two-argument overload has no `_to`: its arguments do not match.
        call(
          gasStation,
          encodeFunctionData({
            abi: gasStationAbi,
            functionName: 'execute',
            args: [EOA, transfer(ALLOWED, 5n)],
          }),
        ),
      ]) {
        expect((await rejection(bobSigns(denied))).message).toMatch(PERMISSION_DENIED);
      }
    });
  });

  describe('policies on decoded Solana instructions (an Anchor IDL uploaded)', () => {
    const PROGRAM = 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4';
    const ROUTE = [229, 23, 203, 151, 122, 227, 173, 42];
    const IDL = {
      address: PROGRAM,
      metadata: { name: 'jupiter', version: '0.1.0', spec: '0.1.0' },
      instructions: [
        {
          name: 'route',
          discriminator: ROUTE,
          accounts: [{ name: 'user_transfer_authority', signer: true }],
          args: [
            { name: 'in_amount', type: 'u64' },
            { name: 'slippage_bps', type: 'u16' },
          ],
        },
      ],
    };
    const le = (value: bigint, bytes: number) =>
      Array.from({ length: bytes }, (_, i) => Number((value >> BigInt(8 * i)) & 0xffn));

    /** A legacy transaction: the payer calls `route(inAmount, 50)` on PROGRAM. */
    const routeTransaction = (payer: string, inAmount: bigint) => {
      const data = [...ROUTE, ...le(inAmount, 8), ...le(50n, 2)];
      const message = [
        ...[1, 0, 1],
        2,
        ...base58.decode(payer),
        ...base58.decode(PROGRAM),
        ...new Uint8Array(32).fill(9), // recent blockhash
        1,
        ...[1, 1, 0, data.length, ...data],
      ];
      return Buffer.from(Uint8Array.from([1, ...new Uint8Array(64), ...message])).toString('hex');
    };

    it('allows a route under the amount only once the IDL is uploaded', async () => {
      const { addresses } = await t.client.createWallet({
        walletName: 'solana',
        accounts: [
          {
            curve: 'CURVE_ED25519',
            pathFormat: 'PATH_FORMAT_BIP32',
            path: "m/44'/501'/0'/0'",
            addressFormat: 'ADDRESS_FORMAT_SOLANA',
          },
        ],
      });
      const payer = addresses[0]!;
      // The docs' example, with the amount bounded.
      await policy(
        `solana.tx.instructions.any(i, i.program_key == '${PROGRAM}' && ` +
          "i.parsed_instruction_data.instruction_name == 'route' && " +
          `i.parsed_instruction_data.named_accounts['user_transfer_authority'] == '${payer}' && ` +
          "i.parsed_instruction_data.program_call_args['in_amount'] <= 995500000)",
      );
      const sign = (unsignedTransaction: string) =>
        bob.client.signTransaction({
          signWith: payer,
          unsignedTransaction,
          type: 'TRANSACTION_TYPE_SOLANA',
        });
      const small = routeTransaction(payer, 995_500_000n);
      expect((await rejection(sign(small))).message).toMatch(PERMISSION_DENIED);
      await t.client.createSmartContractInterface({
        smartContractAddress: PROGRAM,
        smartContractInterface: JSON.stringify(IDL),
        type: 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA',
        label: 'Jupiter',
      });
      const { signedTransaction } = await sign(small);
      expect(signedTransaction.replace(/^0x/, '').slice(130)).toBe(small.slice(130));
      expect((await rejection(sign(routeTransaction(payer, 995_500_001n)))).message).toMatch(
        PERMISSION_DENIED,
      );
    });
  });
});
