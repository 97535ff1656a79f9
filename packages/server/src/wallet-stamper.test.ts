/**
 * Wallet stamps over real HTTP: the PUBLISHED `@turnkey/wallet-stamper`, unchanged, in front of
 * `@turnkey/http`'s TurnkeyClient. An Ethereum wallet (a viem local account behind the
 * stamper's `BaseEthereumWallet`) stamps with SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191; a
 * Solana wallet (an Ed25519 keypair behind `SolanaWalletInterface`) stamps with
 * SIGNATURE_SCHEME_TK_API_ED25519. Each wallet's key is an API key of a user of the
 * organization, registered from what the stamper itself reports (`getPublicKey()`).
 */

import type { RunningServer } from '@keyhold/cli';
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { TurnkeyClient } from '@turnkey/http';
import {
  BaseEthereumWallet,
  type SolanaWalletInterface,
  WalletStamper,
  WalletType,
} from '@turnkey/wallet-stamper';
import {
  type Hex,
  keccak256,
  type LocalAccount,
  recoverAddress,
  serializeSignature,
  stringToBytes,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rejection, type SdkClient, startTurnkeyServer } from './__fixtures__/turnkey-server.js';

/** The stamper's Ethereum wallet, signing with a viem local account (`personal_sign`). */
class LocalEthereumWallet extends BaseEthereumWallet {
  constructor(private readonly account: LocalAccount) {
    super();
  }
  signMessage(message: string): Promise<Hex> {
    return this.account.signMessage({ message });
  }
}

/** The stamper's Solana wallet: Ed25519 over the UTF-8 bytes of the message, hex out. */
function solanaWallet(secret = ed25519.utils.randomSecretKey()): SolanaWalletInterface {
  return {
    type: WalletType.Solana,
    signMessage: async (message) => bytesToHex(ed25519.sign(stringToBytes(message), secret)),
    getPublicKey: async () => bytesToHex(ed25519.getPublicKey(secret)),
  };
}

describe('@turnkey/wallet-stamper against a real server', () => {
  let server: RunningServer;
  let sdk: SdkClient;
  let organizationId: string;
  let signWith: Hex;

  /** A user whose one API key is the wallet's public key. */
  async function walletUser(
    userName: string,
    publicKey: string,
    curveType: 'API_KEY_CURVE_SECP256K1' | 'API_KEY_CURVE_ED25519',
  ): Promise<string> {
    const { userIds } = await sdk.createUsers({
      users: [
        {
          userName,
          apiKeys: [{ apiKeyName: `${userName} wallet`, publicKey, curveType }],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    // The wallet user is not root: a policy names them so they may sign.
    await sdk.createPolicy({
      policyName: `${userName} signs`,
      effect: 'EFFECT_ALLOW',
      condition: "activity.action == 'SIGN'",
      consensus: `approvers.any(user, user.id == '${userIds[0]}')`,
      notes: '',
    });
    return userIds[0]!;
  }

  const client = (wallet: ConstructorParameters<typeof WalletStamper>[0]) =>
    new TurnkeyClient({ baseUrl: server.url }, new WalletStamper(wallet));

  /** signRawPayload (V2) of keccak256(text), through the given client. */
  const signRaw = (http: TurnkeyClient, text: string) =>
    http.signRawPayload({
      type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
      timestampMs: String(Date.now()),
      organizationId,
      parameters: {
        signWith,
        payload: keccak256(stringToBytes(text)),
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_NO_OP',
      },
    });

  beforeAll(async () => {
    ({ server, client: sdk, organizationId } = await startTurnkeyServer());
    const { addresses } = await sdk.createWallet({
      walletName: 'signing',
      accounts: [
        {
          curve: 'CURVE_SECP256K1',
          pathFormat: 'PATH_FORMAT_BIP32',
          path: "m/44'/60'/0'/0/0",
          addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
        },
      ],
    });
    signWith = addresses[0] as Hex;
  });

  afterAll(async () => {
    await server?.close();
  });

  describe('an Ethereum wallet (SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191)', () => {
    let wallet: LocalEthereumWallet;
    let publicKey: string;
    let userId: string;

    beforeAll(async () => {
      const account = privateKeyToAccount(generatePrivateKey());
      wallet = new LocalEthereumWallet(account);
      // The stamper knows the wallet by address only; it recovers the key from a signature.
      publicKey = await wallet.getPublicKey();
      expect(publicKey).toMatch(/^0[23][0-9a-f]{64}$/);
      expect(publicKey.slice(2)).toBe(account.publicKey.slice(4, 68));
      userId = await walletUser('metamask', publicKey, 'API_KEY_CURVE_SECP256K1');
    });

    it('whoami answers the wallet user', async () => {
      const me = await client(wallet).getWhoami({ organizationId });
      expect(me).toMatchObject({ organizationId, userId, username: 'metamask' });
    });

    it('signs a raw payload; the vote records the EIP-191 stamp', async () => {
      const http = client(wallet);
      const { activity } = await signRaw(http, 'from a wallet');
      expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      const { r, s, v } = activity.result.signRawPayloadResult!;
      const signer = await recoverAddress({
        hash: keccak256(stringToBytes('from a wallet')),
        signature: serializeSignature({ r: `0x${r}`, s: `0x${s}`, yParity: Number(v) }),
      });
      expect(signer.toLowerCase()).toBe(signWith.toLowerCase());
      expect(activity.votes[0]).toMatchObject({
        userId,
        publicKey,
        scheme: 'SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191',
      });
    });

    it('a wallet that signs other bytes is refused with 401 (the key it names is unknown)', async () => {
      // The stamper recovers the public key from the signature, so a signature over other bytes
      // names some other key: refused at the key look-up, before any signature check.
      const tampering = new LocalEthereumWallet(privateKeyToAccount(generatePrivateKey()));
      tampering.signMessage = (message) => wallet.signMessage(`${message} `);
      const error = await rejection(client(tampering).getWhoami({ organizationId }));
      expect(error.code).toBe(16);
      expect(error.message).toMatch(
        /^Turnkey error 16: could not find public key in organization or its parent organization/,
      );
    });

    it('a stamp sent with another body is refused with 401 (raw HTTP)', async () => {
      const signed = JSON.stringify({ organizationId });
      const { stampHeaderName, stampHeaderValue } = await new WalletStamper(wallet).stamp(signed);
      const response = await fetch(`${server.url}/public/v1/query/whoami`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [stampHeaderName]: stampHeaderValue },
        body: JSON.stringify({ organizationId, extra: 1 }),
      });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({
        code: 16,
        message: 'could not verify api key signature',
      });
    });

    it('an unregistered wallet is refused: the public key is not found', async () => {
      const stranger = new LocalEthereumWallet(privateKeyToAccount(generatePrivateKey()));
      const error = await rejection(client(stranger).getWhoami({ organizationId }));
      expect(error.code).toBe(16);
      expect(error.message).toMatch(
        /^Turnkey error 16: could not find public key in organization or its parent organization/,
      );
    });
  });

  describe('a Solana wallet (SIGNATURE_SCHEME_TK_API_ED25519)', () => {
    const secret = ed25519.utils.randomSecretKey();
    const wallet = solanaWallet(secret);
    let userId: string;

    beforeAll(async () => {
      userId = await walletUser('phantom', await wallet.getPublicKey(), 'API_KEY_CURVE_ED25519');
    });

    it('whoami answers the wallet user', async () => {
      const me = await client(wallet).getWhoami({ organizationId });
      expect(me).toMatchObject({ organizationId, userId, username: 'phantom' });
    });

    it('signs a raw payload; the vote records the Ed25519 stamp', async () => {
      const { activity } = await signRaw(client(wallet), 'from solana');
      expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(activity.votes[0]).toMatchObject({
        userId,
        publicKey: await wallet.getPublicKey(),
        scheme: 'SIGNATURE_SCHEME_TK_API_ED25519',
      });
    });

    it('a signature over other bytes is refused: 401 could not verify api key signature', async () => {
      const tampering: SolanaWalletInterface = {
        ...wallet,
        signMessage: (message) => wallet.signMessage(`${message} `),
      };
      const error = await rejection(client(tampering).getWhoami({ organizationId }));
      expect(error.code).toBe(16);
      expect(error.message).toMatch(/^Turnkey error 16: could not verify api key signature/);
    });
  });
});
