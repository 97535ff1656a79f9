/**
 * Parameter shapes shared by several intents.
 * @module
 */
import {
  ACCESS_TYPES,
  ADDRESS_FORMATS,
  API_KEY_CURVES,
  AUTHENTICATOR_TRANSPORTS,
  CURVES,
  EFFECTS,
  HASH_FUNCTIONS,
  PATH_FORMATS,
  PAYLOAD_ENCODINGS,
} from '../enums.js';
import {
  arr,
  bool,
  enumOf,
  type Infer,
  int64,
  intEnum,
  name,
  obj,
  type Schema,
  str,
  uuid,
  withError,
} from './schema-builders.js';

/** Hex public keys: compressed/uncompressed SEC1 (66/130) or Ed25519 (64). */
const publicKeyHex = () =>
  withError(str({ pattern: '^(0x)?[0-9a-fA-F]{64,130}$' }), 'INVALID_PUBLIC_KEY');

const expirationSeconds = () =>
  withError(int64({ pattern: '^[0-9]{1,12}$' }), 'INVALID_API_KEY_EXPIRATION');

/** ApiKeyParams (V1): no curve type; the key is P-256. */
export const apiKeyParamsV1 = obj(
  { apiKeyName: name(), publicKey: publicKeyHex(), expirationSeconds: expirationSeconds() },
  ['apiKeyName', 'publicKey'],
);

/** ApiKeyParamsV2: with `curveType`. */
export const apiKeyParamsV2 = obj(
  {
    apiKeyName: name(),
    publicKey: publicKeyHex(),
    curveType: enumOf(API_KEY_CURVES, 'INVALID_CURVE', 'CURVE_REQUIRED'),
    expirationSeconds: expirationSeconds(),
  },
  ['apiKeyName', 'publicKey', 'curveType'],
);

/**
 * An API key of any version as a handler sees it: V1 keys carry no `curveType` (P-256).
 * @example
 * const key: ApiKeyParams = { apiKeyName: 'ci', publicKey: '02ab…' };
 */
export type ApiKeyParams = Infer<typeof apiKeyParamsV1> | Infer<typeof apiKeyParamsV2>;

/**
 * A base64url value of a WebAuthn ceremony (credential id, clientDataJSON, attestation
 * object). Whether it decodes and verifies is the handler's check ("invalid authenticator
 * attestation"); 16 KiB bounds any attestation with its certificate chain.
 */
const ceremonyValue = () =>
  withError(
    str({ minLength: 1, maxLength: 16384 }),
    'INVALID_ATTESTATION',
    'AUTHENTICATOR_ATTESTATION_MISSING',
  );
const authenticatorTransports = () =>
  arr(enumOf(AUTHENTICATOR_TRANSPORTS, 'INVALID_ATTESTATION'), { maxItems: 8 });
/** The registration challenge the client passed to `navigator.credentials.create`, base64url. */
const registrationChallenge = () =>
  withError(
    str({ minLength: 1, maxLength: 1024 }),
    'INVALID_ATTESTATION',
    'AUTHENTICATOR_ATTESTATION_MISSING',
  );

/** `v1Attestation`: the attestation of AuthenticatorParamsV2. */
const attestationV2 = obj(
  {
    credentialId: ceremonyValue(),
    clientDataJson: ceremonyValue(),
    attestationObject: ceremonyValue(),
    transports: authenticatorTransports(),
  },
  ['credentialId', 'clientDataJson', 'attestationObject'],
);

/** AuthenticatorParamsV2: a passkey to register, `{authenticatorName, challenge, attestation}`. */
export const authenticatorParamsV2 = obj(
  {
    authenticatorName: name(),
    challenge: registrationChallenge(),
    attestation: withError(
      attestationV2,
      'INVALID_ATTESTATION',
      'AUTHENTICATOR_ATTESTATION_MISSING',
    ),
  },
  ['authenticatorName', 'challenge', 'attestation'],
);

/**
 * `v1PublicKeyCredentialWithAttestation`: the attestation of AuthenticatorParams (V1), the
 * webauthn-json `toJSON()` of a created credential.
 */
const publicKeyCredentialWithAttestation = obj(
  {
    id: ceremonyValue(),
    type: enumOf(['public-key'], 'INVALID_ATTESTATION'),
    rawId: ceremonyValue(),
    authenticatorAttachment: enumOf(['cross-platform', 'platform'], 'INVALID_ATTESTATION'),
    response: withError(
      obj(
        {
          clientDataJson: ceremonyValue(),
          attestationObject: ceremonyValue(),
          transports: authenticatorTransports(),
          authenticatorAttachment: enumOf(['cross-platform', 'platform'], 'INVALID_ATTESTATION'),
        },
        ['clientDataJson', 'attestationObject'],
      ),
      'INVALID_ATTESTATION',
      'AUTHENTICATOR_ATTESTATION_MISSING',
    ),
    clientExtensionResults: obj({
      appid: bool(),
      appidExclude: bool(),
      credProps: obj({ rk: bool() }),
    }),
  },
  ['id', 'type', 'rawId', 'response'],
);

/** AuthenticatorParams (V1): with the user's id and the credential as webauthn-json gives it. */
export const authenticatorParamsV1 = obj(
  {
    authenticatorName: name(),
    userId: uuid(),
    attestation: withError(
      publicKeyCredentialWithAttestation,
      'INVALID_ATTESTATION',
      'AUTHENTICATOR_ATTESTATION_MISSING',
    ),
    challenge: registrationChallenge(),
  },
  ['authenticatorName', 'userId', 'attestation', 'challenge'],
);

/**
 * A passkey to register, of either version, as a handler sees it.
 * @example
 * const params: AuthenticatorParams = { authenticatorName: 'laptop', challenge, attestation };
 */
export type AuthenticatorParams =
  | Infer<typeof authenticatorParamsV1>
  | Infer<typeof authenticatorParamsV2>;

/**
 * An OIDC id_token as a client sends it: a compact JWT (three base64url parts). Whether it
 * verifies, and against which issuer, is the handler's; 8 KiB bounds any real id_token.
 */
export const oidcToken = () =>
  withError(
    str({
      minLength: 5,
      maxLength: 8192,
      pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*$',
    }),
    'INVALID_OIDC_TOKEN',
    'INVALID_OIDC_TOKEN',
  );

/** `v1OidcClaims`: an OAuth provider named by its claims rather than by a token. */
const oidcClaims = obj(
  {
    iss: str({ minLength: 1, maxLength: 2048 }),
    sub: str({ minLength: 1, maxLength: 1024 }),
    aud: str({ minLength: 1, maxLength: 1024 }),
  },
  ['iss', 'sub', 'aud'],
);

/** `v1OauthProviderParams` (V1): a name and an id_token of the user. */
export const oauthProviderParamsV1 = obj({ providerName: name(), oidcToken: oidcToken() }, [
  'providerName',
  'oidcToken',
]);

/** `v1OauthProviderParamsV2`: a name and either an id_token or the claims it would carry. */
export const oauthProviderParamsV2 = obj(
  { providerName: name(), oidcToken: oidcToken(), oidcClaims },
  ['providerName'],
);

/**
 * An OAuth provider to register, of either version, as a handler sees it.
 * @example
 * const params: OauthProviderParams = { providerName: 'Google', oidcToken: 'eyJ…' };
 */
export type OauthProviderParams =
  | Infer<typeof oauthProviderParamsV1>
  | Infer<typeof oauthProviderParamsV2>;

/** At most 10 per user, as authenticators; the handler counts what the user holds. */
export const oauthProviders = <K>(params: Schema<K>) => arr(params, { maxItems: 10 });

/** At most 10 per user (the spec's hard limit); the handler counts what the user holds. */
const authenticators = <K>(params: Schema<K>) => arr(params, { maxItems: 10 });

const userTags = () => arr(uuid());
const email = () => str({ maxLength: 320 });

/** The members every CREATE_USERS version shares, in wire order. */
const userMembers = <K, A>(apiKey: Schema<K>, authenticator: Schema<A>) => ({
  userName: name(),
  userEmail: email(),
  apiKeys: arr(apiKey, { maxItems: 20 }),
  authenticators: authenticators(authenticator),
  userTags: userTags(),
});

/**
 * Users of CREATE_USERS V1 (with accessType and V1 authenticators) … V4, by version: V3 adds
 * OAuth providers by id_token, V4 by id_token or claims.
 */
export const userParams = {
  v1: obj(
    {
      ...userMembers(apiKeyParamsV1, authenticatorParamsV1),
      accessType: enumOf(ACCESS_TYPES),
    },
    ['userName'],
  ),
  v2: obj(userMembers(apiKeyParamsV1, authenticatorParamsV2), ['userName']),
  /** V3: V2 API keys, a phone number, OAuth providers. */
  v3: obj(
    {
      ...userMembers(apiKeyParamsV2, authenticatorParamsV2),
      userPhoneNumber: str({ maxLength: 32 }),
      oauthProviders: oauthProviders(oauthProviderParamsV1),
    },
    ['userName'],
  ),
  /** V4: as V3, providers by id_token or claims. */
  v4: obj(
    {
      ...userMembers(apiKeyParamsV2, authenticatorParamsV2),
      userPhoneNumber: str({ maxLength: 32 }),
      oauthProviders: oauthProviders(oauthProviderParamsV2),
    },
    ['userName'],
  ),
} as const;

export const apiOnlyUserParams = obj(
  {
    userName: name(),
    userEmail: email(),
    userTags: userTags(),
    apiKeys: arr(apiKeyParamsV1, { maxItems: 20 }),
  },
  ['userName', 'apiKeys'],
);

/** AccountParams (wallet accounts). */
export const accountParams = obj(
  {
    curve: enumOf(CURVES, 'INVALID_CURVE', 'CURVE_REQUIRED'),
    pathFormat: enumOf(PATH_FORMATS, 'INVALID_PATH_FORMAT', 'INVALID_PATH_FORMAT'),
    path: withError(str({ minLength: 1, maxLength: 256 }), 'INVALID_PATH', 'INVALID_PATH'),
    addressFormat: enumOf(ADDRESS_FORMATS, 'INVALID_ADDRESS_FORMAT', 'INVALID_ADDRESS_FORMAT'),
    name: str({ maxLength: 256 }),
  },
  ['curve', 'pathFormat', 'path', 'addressFormat'],
);

/**
 * A wallet account to derive, as CREATE_WALLET, CREATE_WALLET_ACCOUNTS, IMPORT_WALLET and a
 * sub-organization's wallet send it.
 * @example
 * const account: AccountParams = {
 *   curve: 'CURVE_SECP256K1',
 *   pathFormat: 'PATH_FORMAT_BIP32',
 *   path: "m/44'/60'/0'/0/0",
 *   addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
 * };
 */
export type AccountParams = Infer<typeof accountParams>;

export const privateKeyParams = obj(
  {
    privateKeyName: name(),
    curve: enumOf(CURVES, 'INVALID_CURVE', 'CURVE_REQUIRED'),
    privateKeyTags: arr(uuid()),
    addressFormats: arr(enumOf(ADDRESS_FORMATS, 'INVALID_ADDRESS_FORMAT'), { maxItems: 40 }),
  },
  ['privateKeyName', 'curve'],
);

export const payloadEncoding = () =>
  enumOf(PAYLOAD_ENCODINGS, 'INVALID_PAYLOAD_ENCODING', 'INVALID_PAYLOAD_ENCODING');
export const hashFunction = () =>
  enumOf(HASH_FUNCTIONS, 'INVALID_HASH_FUNCTION', 'INVALID_HASH_FUNCTION');
/** A raw-signing payload (hex or text); 64 KiB is far above any digest or message a chain signs. */
export const payload = () =>
  withError(str({ maxLength: 65536 }), 'INVALID_PAYLOAD', 'INVALID_PAYLOAD');
/** `signWith`: an address, a private-key id or a compressed public key. */
export const signWith = () => str({ minLength: 1, maxLength: 256 });

/** A policy expression (condition, consensus or time): checked by the policy engine when written. */
export const policyExpression = () => str({ maxLength: 65536 });
export const policyEffect = () => enumOf(EFFECTS);
export const policyNotes = () => str({ maxLength: 4096 });

/** CreatePolicyIntentV3, also the items of CREATE_POLICIES. */
export const policyParamsV3 = obj(
  {
    policyName: name(),
    effect: policyEffect(),
    condition: policyExpression(),
    consensus: policyExpression(),
    notes: policyNotes(),
    time: policyExpression(),
  },
  ['policyName', 'effect'],
);

/** The members of UpdatePolicyIntent (V1): every field but the id is optional. */
const updatePolicyMembers = () => ({
  policyId: uuid(),
  policyName: name(),
  policyEffect: policyEffect(),
  policyCondition: policyExpression(),
  policyConsensus: policyExpression(),
  policyNotes: policyNotes(),
});

/** UpdatePolicyIntent (V1) and V2 (adds `time`). */
export const updatePolicyParams = {
  v1: obj(updatePolicyMembers(), ['policyId']),
  v2: obj({ ...updatePolicyMembers(), time: policyExpression() }, ['policyId']),
} as const;

/** The members every RootUser version shares, in wire order. */
const rootUserMembers = <K>(apiKey: Schema<K>) => ({
  userName: name(),
  userEmail: email(),
  apiKeys: arr(apiKey, { maxItems: 20 }),
  authenticators: authenticators(authenticatorParamsV2),
});

/**
 * RootUser of CREATE_SUB_ORGANIZATION, by intent version: V2, V3 and V4 take V1 API keys and
 * V2 authenticators; V5 adds oauthProviders (by id_token); V6 API keys with curveType; V7 adds
 * userPhoneNumber; V8 takes providers by id_token or claims.
 */
export const rootUserParams = {
  /** V2, V3 and V4. */
  v2: obj(rootUserMembers(apiKeyParamsV1), ['userName']),
  v5: obj(
    { ...rootUserMembers(apiKeyParamsV1), oauthProviders: oauthProviders(oauthProviderParamsV1) },
    ['userName'],
  ),
  v6: obj(
    { ...rootUserMembers(apiKeyParamsV2), oauthProviders: oauthProviders(oauthProviderParamsV1) },
    ['userName'],
  ),
  v7: obj(
    {
      ...rootUserMembers(apiKeyParamsV2),
      oauthProviders: oauthProviders(oauthProviderParamsV1),
      userPhoneNumber: str({ maxLength: 32 }),
    },
    ['userName'],
  ),
  v8: obj(
    {
      ...rootUserMembers(apiKeyParamsV2),
      oauthProviders: oauthProviders(oauthProviderParamsV2),
      userPhoneNumber: str({ maxLength: 32 }),
    },
    ['userName'],
  ),
} as const;

/** WalletParams of CREATE_SUB_ORGANIZATION V4+: a name and at least one account. */
export const subOrganizationWalletParams = <const L extends number>(
  mnemonicLengths: readonly L[],
) =>
  obj(
    {
      walletName: withError(name(), 'MISSING_WALLET_PARAMS', 'MISSING_WALLET_PARAMS'),
      accounts: withError(
        arr(accountParams, { minItems: 1 }),
        'MISSING_WALLET_PARAMS',
        'MISSING_WALLET_PARAMS',
      ),
      mnemonicLength: withError(intEnum(mnemonicLengths), 'INVALID_MNEMONIC_LENGTH'),
    },
    ['walletName', 'accounts'],
  );
