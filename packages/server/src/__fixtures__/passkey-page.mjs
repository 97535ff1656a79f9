/**
 * The page of the browser passkey test, bundled by esbuild and served on http://localhost.
 * It uses the published clients as a web app would: `@turnkey/http`'s
 * `getWebAuthnAttestation` creates the passkey (navigator.credentials.create, answered by the
 * browser's virtual authenticator), and `TurnkeyClient` with `@turnkey/webauthn-stamper`'s
 * `WebauthnStamper` stamps every later request with it (navigator.credentials.get): STAMP_LOGIN
 * naming the parent organization (as `@turnkey/core` logs in) with a session key made here by
 * `@turnkey/crypto`, then the wallet and the signature. The session key, through
 * `@turnkey/api-key-stamper`, then reads as the user. The test drives it through
 * `window.keyholdPasskeys`. Tests only.
 */
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { generateP256KeyPair } from '@turnkey/crypto';
import { getWebAuthnAttestation, TurnkeyClient } from '@turnkey/http';
import { WebauthnStamper } from '@turnkey/webauthn-stamper';

const RP_ID = 'localhost';

const base64url = (bytes) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

const ETHEREUM_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
};

window.keyholdPasskeys = {
  /** Creates a passkey; answers the AuthenticatorParamsV2 a backend registers it with. */
  async createPasskey(userName) {
    const challenge = crypto.getRandomValues(new Uint8Array(32));
    const attestation = await getWebAuthnAttestation({
      publicKey: {
        rp: { id: RP_ID, name: 'Keyhold browser test' },
        challenge,
        // What @turnkey/core offers: ES256 and RS256.
        pubKeyCredParams: [
          { type: 'public-key', alg: -7 },
          { type: 'public-key', alg: -257 },
        ],
        user: {
          id: crypto.getRandomValues(new Uint8Array(32)),
          name: userName,
          displayName: userName,
        },
        authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      },
    });
    return { authenticatorName: userName, challenge: base64url(challenge), attestation };
  },

  /**
   * Logs in with the passkey at `parentOrganizationId` (STAMP_LOGIN), then, in the organization
   * the session names: whoami with the session key, and with the passkey a wallet with an
   * Ethereum account and a signature of `digest` (hex) by it.
   */
  async loginWalletAndSignature(baseUrl, parentOrganizationId, digest) {
    const client = new TurnkeyClient({ baseUrl }, new WebauthnStamper({ rpId: RP_ID }));
    const sessionKey = generateP256KeyPair();
    const login = await client.stampLogin({
      type: 'ACTIVITY_TYPE_STAMP_LOGIN',
      timestampMs: String(Date.now()),
      organizationId: parentOrganizationId,
      parameters: { publicKey: sessionKey.publicKey, expirationSeconds: '900' },
    });
    const session = login.activity.result.stampLoginResult.session;
    // As @turnkey/core reads it: atob of the payload, no base64url fix-up.
    const claims = JSON.parse(atob(session.split('.')[1]));
    const organizationId = claims.organization_id;
    const sessionClient = new TurnkeyClient(
      { baseUrl },
      new ApiKeyStamper({
        apiPublicKey: sessionKey.publicKey,
        apiPrivateKey: sessionKey.privateKey,
      }),
    );
    const whoami = await sessionClient.getWhoami({ organizationId });
    const created = await client.createWallet({
      type: 'ACTIVITY_TYPE_CREATE_WALLET',
      timestampMs: String(Date.now()),
      organizationId,
      parameters: { walletName: 'browser wallet', accounts: [ETHEREUM_ACCOUNT] },
    });
    const address = created.activity.result.createWalletResult.addresses[0];
    const signed = await client.signRawPayload({
      type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
      timestampMs: String(Date.now()),
      organizationId,
      parameters: {
        signWith: address,
        payload: digest,
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_NO_OP',
      },
    });
    return {
      session,
      sessionPublicKey: sessionKey.publicKey,
      whoami,
      walletStatus: created.activity.status,
      address,
      signature: signed.activity.result.signRawPayloadResult,
    };
  },
};
