/**
 * Parameter schemas of every activity Keyhold executes, by activity type.
 * @module
 */
import type { ActivityType } from '../enums.js';
import {
  ACCESS_TYPES,
  ADDRESS_FORMATS,
  CURVES,
  FIAT_ON_RAMP_CRYPTO_CURRENCIES,
  FIAT_ON_RAMP_CURRENCIES,
  FIAT_ON_RAMP_NETWORKS,
  FIAT_ON_RAMP_PAYMENT_METHODS,
  FIAT_ON_RAMP_PROVIDERS,
  MNEMONIC_LANGUAGES,
  MNEMONIC_LENGTHS,
  TRANSACTION_TYPES,
  type TransactionType,
} from '../enums.js';
import {
  arr,
  bool,
  enumOf,
  int,
  intEnum,
  matching,
  name,
  obj,
  type Properties,
  type Schema,
  str,
  stringMap,
  uuid,
  withError,
} from './schema-builders.js';
import {
  accountParams,
  apiKeyParamsV1,
  apiKeyParamsV2,
  apiOnlyUserParams,
  authenticatorParamsV1,
  authenticatorParamsV2,
  hashFunction,
  oauthProviderParamsV1,
  oauthProviderParamsV2,
  oidcToken,
  payload,
  payloadEncoding,
  policyParamsV3,
  privateKeyParams,
  rootUserParams,
  signWith,
  subOrganizationWalletParams,
  updatePolicyParams,
  userParams,
} from './shapes.js';

/** A CAIP-2 chain id of an EVM chain (`eip155:84532`); which ones are served is the handler's. */
const caip2 = () => withError(matching('^eip155:[0-9]{1,20}$'), 'EVM_NETWORK_UNSUPPORTED');
/** A 20-byte address, `0x` and 40 hex digits (any case). */
const evmAddress = () => withError(matching('^0x[0-9a-fA-F]{40}$'), 'INVALID_EVM_ADDRESS');
/** A non-negative integer as a decimal string (wei, gas, a nonce): at most 78 digits (uint256). */
const decimal = () => withError(matching('^[0-9]{1,78}$'), 'INVALID_TRANSACTION');
/** A USD amount as a decimal string (`25`, `0.50`). */
const usd = () => matching('^[0-9]{1,12}(\\.[0-9]{1,6})?$');

/** Call data: hex, `0x` optional, at most 64 KiB. */
const callData = () =>
  withError(matching('^(0x)?([0-9a-fA-F]{2}){0,65536}$'), 'INVALID_TRANSACTION');
/** What both versions of ETH_SEND_TRANSACTION carry beside the call(s). */
const ethSendTransactionProperties = {
  from: evmAddress(),
  caip2: caip2(),
  sponsor: bool(),
  nonce: decimal(),
  gasLimit: decimal(),
  maxFeePerGas: decimal(),
  maxPriorityFeePerGas: decimal(),
  deadline: decimal(),
  gasStationNonce: decimal(),
};

/**
 * The Solana networks of the wire's `caip2` enum (`v1SolSendTransactionIntent`): mainnet and
 * devnet, each by alias, by CAIP-2 reference (the genesis hash's first 32 characters) and by
 * the whole genesis hash. Which one an RPC endpoint serves is the handler's.
 */
const SOLANA_CAIP2_NETWORKS = [
  'solana:mainnet',
  'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d',
  'solana:devnet',
  'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
] as const;
/**
 * What both versions of SOL_SEND_TRANSACTION carry beside the transaction and its signers. A
 * blockhash is 32 bytes in base58 (32 to 44 characters).
 */
const solSendTransactionProperties = {
  caip2: enumOf(SOLANA_CAIP2_NETWORKS, 'SOLANA_NETWORK_UNSUPPORTED'),
  sponsor: bool(),
  recentBlockhash: withError(matching('^[1-9A-HJ-NP-Za-km-z]{32,44}$'), 'INVALID_TRANSACTION'),
};

const nonEmpty = <T>(items: Schema<T>, max = 100) => arr(items, { minItems: 1, maxItems: max });

/** How a signing intent names its key: V1 by `privateKeyId`, V2 by `signWith`. */
const BY_PRIVATE_KEY_ID = { privateKeyId: uuid() };
const BY_SIGN_WITH = { signWith: signWith() };

const signRaw = <S extends Properties>(signer: S, required: keyof S & string) =>
  obj(
    { ...signer, payload: payload(), encoding: payloadEncoding(), hashFunction: hashFunction() },
    [required, 'payload', 'encoding', 'hashFunction'],
  );

/**
 * SIGN_TRANSACTION: the types Keyhold signs (TEMPO is not one yet: "unsupported transaction
 * type"); 512 KiB of hex is far above any transaction or PSBT a client sends. Whether the hex
 * decodes is the handler's precheck ("failed to parse transaction").
 */
const signTransactionIntent = <S extends Properties>(signer: S, required: keyof S & string) =>
  obj(
    {
      ...signer,
      type: enumOf(
        TRANSACTION_TYPES.filter(
          (t): t is Exclude<TransactionType, 'TRANSACTION_TYPE_TEMPO'> =>
            t !== 'TRANSACTION_TYPE_TEMPO',
        ),
        'UNSUPPORTED_TRANSACTION_TYPE',
      ),
      unsignedTransaction: withError(
        str({ minLength: 1, maxLength: 524_288 }),
        'INVALID_TRANSACTION',
      ),
    },
    [required, 'type', 'unsignedTransaction'],
  );

/** A P-256 public key (hex, compressed or uncompressed) that a bundle is encrypted to. */
const targetPublicKey = () =>
  withError(
    str({ pattern: '^(0x)?([0-9a-fA-F]{66}|[0-9a-fA-F]{130})$' }),
    'INVALID_PUBLIC_KEY',
    'INVALID_PUBLIC_KEY',
  );
/** The client's `{encappedPublic, ciphertext}` JSON string; 64 KiB bounds any mnemonic or key. */
const encryptedBundle = () => str({ minLength: 2, maxLength: 65536 });

/** A session's lifetime in seconds (an int64 string); whether it is positive is the precheck's. */
const sessionExpirationSeconds = () =>
  withError(str({ pattern: '^[0-9]{1,12}$' }), 'INVALID_API_KEY_EXPIRATION');

/** A compressed P-256 public key (hex), the key a login session stamps with. */
const sessionPublicKey = () =>
  withError(str({ pattern: '^(0x)?[0-9a-fA-F]{66}$' }), 'INVALID_PUBLIC_KEY', 'INVALID_PUBLIC_KEY');

/** `v1Oauth2Provider`: the OAuth 2.0-only providers Keyhold exchanges codes with. */
export const OAUTH2_PROVIDERS = ['OAUTH2_PROVIDER_X', 'OAUTH2_PROVIDER_DISCORD'] as const;

/** An OAuth 2 credential's members: the provider, the app's client id, its encrypted secret. */
const oauth2CredentialProperties = () => ({
  provider: enumOf(OAUTH2_PROVIDERS, 'INVALID_OAUTH2_PROVIDER', 'INVALID_OAUTH2_PROVIDER'),
  clientId: str({ minLength: 1, maxLength: 512 }),
  // Hex of the quorum-key envelope (`encryptOauth2ClientSecret`); 32 KiB bounds any secret.
  encryptedClientSecret: withError(
    str({ minLength: 2, maxLength: 32768 }),
    'INVALID_ENCRYPTED_CLIENT_SECRET',
    'INVALID_ENCRYPTED_CLIENT_SECRET',
  ),
});

/** A field of the fiat on-ramp refused with INVALID_FIAT_ON_RAMP_PARAMETERS (the field in details). */
const onRampField = <T>(schema: Schema<T>) =>
  withError(schema, 'INVALID_FIAT_ON_RAMP_PARAMETERS', 'INVALID_FIAT_ON_RAMP_PARAMETERS');
const onRampProvider = () =>
  enumOf(FIAT_ON_RAMP_PROVIDERS, 'INVALID_FIAT_ON_RAMP_PROVIDER', 'INVALID_FIAT_ON_RAMP_PROVIDER');
/** A provider's API key or project id: printable ASCII, no spaces. */
const onRampKey = () => onRampField(matching('^[\\x21-\\x7e]{1,256}$'));
/**
 * A secret `encryptOnRampSecret` made: base58check of a 33-byte key and the ciphertext. 8 KiB
 * bounds any provider's key (a Coinbase private key in PEM is under 300 bytes).
 */
const encryptedOnRampSecret = () =>
  withError(
    matching('^[1-9A-HJ-NP-Za-km-z]{40,8192}$'),
    'INVALID_ENCRYPTED_ON_RAMP_SECRET',
    'INVALID_ENCRYPTED_ON_RAMP_SECRET',
  );
/** A fiat on-ramp credential's members, as CREATE and UPDATE carry them. */
const fiatOnRampCredentialProperties = () => ({
  onrampProvider: onRampProvider(),
  publishableApiKey: onRampKey(),
  encryptedSecretApiKey: encryptedOnRampSecret(),
  projectId: onRampKey(),
  encryptedPrivateApiKey: encryptedOnRampSecret(),
});

/** `v1SmartContractInterfaceType`: an Ethereum ABI or a Solana IDL. */
export const SMART_CONTRACT_INTERFACE_TYPES = [
  'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
  'SMART_CONTRACT_INTERFACE_TYPE_SOLANA',
] as const;

/**
 * The most characters an uploaded ABI or IDL may have: the reference's 400 kB. The handler's
 * precheck also bounds its UTF-8 bytes and what parsing it may cost.
 */
export const SMART_CONTRACT_INTERFACE_MAX_LENGTH = 409_600;
/** `v1FeatureName`: the organization features SET_ORGANIZATION_FEATURE may set. */
export const FEATURE_NAMES = [
  'FEATURE_NAME_ROOT_USER_EMAIL_RECOVERY',
  'FEATURE_NAME_WEBAUTHN_ORIGINS',
  'FEATURE_NAME_EMAIL_AUTH',
  'FEATURE_NAME_EMAIL_RECOVERY',
  'FEATURE_NAME_WEBHOOK',
  'FEATURE_NAME_SMS_AUTH',
  'FEATURE_NAME_OTP_EMAIL_AUTH',
  'FEATURE_NAME_AUTH_PROXY',
  'FEATURE_NAME_SOLANA_RENT_PREFUND_ENABLED',
  'FEATURE_NAME_SWAP_CONFIG',
  'FEATURE_NAME_EARN_CONFIG',
] as const;
const featureName = () => enumOf(FEATURE_NAMES, 'INVALID_FEATURE_NAME', 'INVALID_FEATURE_NAME');

/** A bounded list of short strings in the auth proxy's configuration. */
const proxyList = () =>
  withError(arr(str({ maxLength: 2048 }), { maxItems: 50 }), 'INVALID_AUTH_PROXY_CONFIG');
const proxyText = () => withError(str({ maxLength: 2048 }), 'INVALID_AUTH_PROXY_CONFIG');
const proxySeconds = () =>
  withError(int({ minimum: 0, maximum: 31_536_000 }), 'INVALID_AUTH_PROXY_CONFIG');

/** `v1UpdateAuthProxyConfigIntent`: stored as given, read by the auth proxy. */
const updateAuthProxyConfigIntent = obj({
  allowedOrigins: proxyList(),
  allowedAuthMethods: proxyList(),
  sendFromEmailAddress: proxyText(),
  replyToEmailAddress: proxyText(),
  emailAuthTemplateId: proxyText(),
  otpTemplateId: proxyText(),
  emailCustomizationParams: obj({
    appName: proxyText(),
    logoUrl: proxyText(),
    magicLinkTemplate: proxyText(),
    templateVariables: withError(str({ maxLength: 16384 }), 'INVALID_AUTH_PROXY_CONFIG'),
    templateId: proxyText(),
  }),
  smsCustomizationParams: obj({ template: proxyText() }),
  walletKitSettings: obj({
    enabledSocialProviders: proxyList(),
    oauthClientIds: withError(stringMap(2048, 50), 'INVALID_AUTH_PROXY_CONFIG'),
    oauthRedirectUrl: proxyText(),
  }),
  otpExpirationSeconds: proxySeconds(),
  verificationTokenExpirationSeconds: proxySeconds(),
  sessionExpirationSeconds: proxySeconds(),
  otpAlphanumeric: bool(),
  otpLength: withError(int({ minimum: 6, maximum: 9 }), 'INVALID_AUTH_PROXY_CONFIG'),
  sendFromEmailSenderName: proxyText(),
  verificationTokenRequiredForGetAccountPii: bool(),
  socialLinkingClientIds: proxyList(),
  captchaEnabled: bool(),
});

/** `v1TvcOperatorSetParams`: a new operator set, of new and existing operators. */
const tvcOperatorSetParams = withError(
  obj(
    {
      name: name(),
      threshold: int({ minimum: 1, maximum: 100 }),
      newOperators: arr(
        obj(
          {
            name: name(),
            // A P-256 public key (hex, compressed or uncompressed) that signs approvals.
            publicKey: str({ pattern: '^(0x)?([0-9a-fA-F]{66}|[0-9a-fA-F]{130})$' }),
          },
          ['name', 'publicKey'],
        ),
        { maxItems: 20 },
      ),
      existingOperatorIds: arr(uuid(), { maxItems: 20 }),
    },
    ['name', 'threshold'],
  ),
  'INVALID_TVC_OPERATOR_SET',
);
const tvcText = (max = 2048) => str({ maxLength: max });
const tvcArgs = () => arr(tvcText(), { maxItems: 64 });

/** SET_PAYMENT_METHOD (V1): a card. Only its last four digits and its holder are kept. */
const paymentCard = () =>
  withError(str({ pattern: '^[0-9]{12,19}$' }), 'INVALID_PAYMENT_CARD', 'INVALID_PAYMENT_CARD');

/** The only webhook event type Keyhold emits (interface spec, Events). */
export const WEBHOOK_EVENT_TYPES = ['ACTIVITY_UPDATES'] as const;

/**
 * A webhook subscription `{eventType, filtersJson?, isActive?}`. Whether `filtersJson` parses
 * is the handler's precheck; the URL's scheme and host too (they depend on the server mode).
 */
const webhookSubscription = obj(
  {
    eventType: enumOf(WEBHOOK_EVENT_TYPES, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE'),
    filtersJson: withError(str({ maxLength: 16384 }), 'INVALID_WEBHOOK_FILTERS'),
    isActive: bool(),
  },
  ['eventType'],
);
const webhookUrl = () =>
  withError(str({ minLength: 1, maxLength: 2048 }), 'INVALID_WEBHOOK_URL', 'INVALID_WEBHOOK_URL');

/** `v1ClientSignature`: a signature over a verification token's usage message (V7, V8). */
const clientSignature = () =>
  obj(
    {
      publicKey: str({ maxLength: 256 }),
      scheme: enumOf(['CLIENT_SIGNATURE_SCHEME_API_P256']),
      message: str(),
      signature: str({ maxLength: 256 }),
    },
    ['publicKey', 'scheme', 'message', 'signature'],
  );

/** `OTP_TYPE_EMAIL` or `OTP_TYPE_SMS`. */
export const OTP_TYPES = ['OTP_TYPE_EMAIL', 'OTP_TYPE_SMS'] as const;

/** `emailCustomization` of INIT_OTP; V1 carries the app name in it. */
const emailCustomization = () =>
  obj({
    appName: str({ maxLength: 256 }),
    logoUrl: str({ maxLength: 2048 }),
    magicLinkTemplate: str({ maxLength: 2048 }),
    templateVariables: withError(str({ maxLength: 16384 }), 'INVALID_TEMPLATE_VARIABLES'),
    templateId: str({ maxLength: 256 }),
  });

/** INIT_OTP's parameters; from V2 `appName` is a parameter of its own. */
const initOtpProperties = {
  otpType: enumOf(OTP_TYPES),
  contact: withError(str({ minLength: 1, maxLength: 320 }), 'INVALID_CONTACT', 'INVALID_CONTACT'),
  otpLength: withError(int(), 'INVALID_OTP_LENGTH'),
  emailCustomization: emailCustomization(),
  smsCustomization: obj({ template: str({ maxLength: 1024 }) }),
  userIdentifier: str({ maxLength: 256 }),
  sendFromEmailAddress: str({ maxLength: 320 }),
  alphanumeric: bool(),
  sendFromEmailSenderName: str({ maxLength: 256 }),
  replyToEmailAddress: str({ maxLength: 320 }),
  expirationSeconds: withError(str({ pattern: '^[0-9]{1,12}$' }), 'INVALID_OTP_EXPIRATION'),
};

/** INIT_OTP_AUTH V1's parameters: INIT_OTP's without length, alphabet and expiry. */
const {
  otpLength: _length,
  alphanumeric: _alphanumeric,
  expirationSeconds: _expiry,
  ...initOtpAuthV1Properties
} = initOtpProperties;

/** OTP_LOGIN's parameters (V1: the client signature is optional). */
const otpLoginProperties = {
  verificationToken: withError(
    str({ minLength: 1, maxLength: 8192 }),
    'INVALID_VERIFICATION_TOKEN',
  ),
  publicKey: sessionPublicKey(),
  clientSignature: clientSignature(),
  expirationSeconds: sessionExpirationSeconds(),
  invalidateExisting: bool(),
  sessionProfileId: str({ maxLength: 256 }),
};

/** `EmailSendParams`: the sender and reply-to an email goes out with. */
const emailSendProperties = {
  sendFromEmailAddress: initOtpProperties.sendFromEmailAddress,
  sendFromEmailSenderName: initOtpProperties.sendFromEmailSenderName,
  replyToEmailAddress: initOtpProperties.replyToEmailAddress,
};

/** An email address a user holds (how it is compared is the handler's). */
const emailAddress = () =>
  withError(str({ minLength: 3, maxLength: 320 }), 'INVALID_CONTACT', 'INVALID_CONTACT');

/** `v1EmailAuthCustomizationParams` (EMAIL_AUTH V3, INIT_USER_EMAIL_RECOVERY V2): `appName` required. */
const emailAuthCustomization = () =>
  obj(
    {
      appName: str({ minLength: 1, maxLength: 256 }),
      logoUrl: str({ maxLength: 2048 }),
      magicLinkTemplate: str({ maxLength: 2048 }),
      templateVariables: withError(str({ maxLength: 16384 }), 'INVALID_TEMPLATE_VARIABLES'),
      templateId: str({ maxLength: 256 }),
    },
    ['appName'],
  );

/** EMAIL_AUTH's parameters; V3 requires the customization with its `appName`. */
const emailAuthProperties = {
  email: emailAddress(),
  targetPublicKey: targetPublicKey(),
  apiKeyName: name(),
  expirationSeconds: sessionExpirationSeconds(),
  emailCustomization: emailCustomization(),
  invalidateExisting: bool(),
  ...emailSendProperties,
};

/** INIT_USER_EMAIL_RECOVERY's parameters; V2 requires the customization. */
const emailRecoveryProperties = {
  email: emailAddress(),
  targetPublicKey: targetPublicKey(),
  expirationSeconds: sessionExpirationSeconds(),
  emailCustomization: emailCustomization(),
  ...emailSendProperties,
};

/** `v1InvitationParams`. */
const invitationParams = obj(
  {
    receiverUserName: name(),
    receiverUserEmail: emailAddress(),
    receiverUserTags: arr(uuid()),
    accessType: enumOf(ACCESS_TYPES),
    senderUserId: uuid(),
  },
  ['receiverUserName', 'receiverUserEmail', 'accessType', 'senderUserId'],
);

/**
 * CREATE_SUB_ORGANIZATION V2–V8 (V1 below), in wire order: the name, root users (whose shape is the
 * version's) and threshold; from V4 a wallet and the email switches; from V7 the SMS/OTP
 * switches, `verificationToken` and `clientSignature`. `disableEmailAuth` and
 * `disableEmailRecovery` switch EMAIL_AUTH and INIT_USER_EMAIL_RECOVERY off in the
 * sub-organization; the SMS/OTP switches are accepted and have no effect; the token and the
 * signature make a sign-up (`sign-up-verification.ts` in `@keyhold/activities`).
 */
const subOrganizationMembers = <U>(rootUser: Schema<U>) => ({
  subOrganizationName: name(),
  rootUsers: nonEmpty(rootUser),
  rootQuorumThreshold: withError(
    int({ minimum: 1 }),
    'INVALID_QUORUM_THRESHOLD',
    'INVALID_QUORUM_THRESHOLD',
  ),
});
const subOrganizationWalletMembers = () => ({
  wallet: withError(subOrganizationWalletParams(MNEMONIC_LENGTHS), 'MISSING_WALLET_PARAMS'),
  disableEmailRecovery: bool(),
  disableEmailAuth: bool(),
});
const subOrganizationOtpMembers = () => ({
  disableSmsAuth: bool(),
  disableOtpEmailAuth: bool(),
  verificationToken: str(),
  clientSignature: clientSignature(),
});
const SUB_ORGANIZATION_REQUIRED = [
  'subOrganizationName',
  'rootUsers',
  'rootQuorumThreshold',
] as const;
const createSubOrganizationV4To6 = <U>(rootUser: Schema<U>) =>
  obj(
    { ...subOrganizationMembers(rootUser), ...subOrganizationWalletMembers() },
    SUB_ORGANIZATION_REQUIRED,
  );
/**
 * CREATE_SUB_ORGANIZATION V1: one root user holding one passkey (`name` and
 * `rootAuthenticator`), threshold 1.
 */
const createSubOrganizationV1 = () =>
  obj({ name: name(), rootAuthenticator: authenticatorParamsV2 }, ['name', 'rootAuthenticator']);
/** V3: as V2, with standalone private keys created in the sub-organization. */
const createSubOrganizationV3 = () =>
  obj(
    {
      ...subOrganizationMembers(rootUserParams.v2),
      privateKeys: arr(privateKeyParams),
    },
    [...SUB_ORGANIZATION_REQUIRED, 'privateKeys'],
  );
/**
 * An origin as browsers write it in clientDataJSON (`https://app.example.com`, a port when not
 * the default). Whether it is a bare origin is the handler's precheck.
 */
const allowedOrigin = () =>
  withError(str({ minLength: 1, maxLength: 512 }), 'INVALID_ALLOWED_ORIGIN');
const createSubOrganizationV7 = <U>(rootUser: Schema<U>) =>
  obj(
    {
      ...subOrganizationMembers(rootUser),
      ...subOrganizationWalletMembers(),
      ...subOrganizationOtpMembers(),
    },
    SUB_ORGANIZATION_REQUIRED,
  );

/**
 * Parameters schema by activity type: what ajv checks, and (`IntentOf<Type>`) the type of the
 * parameters a handler receives.
 * @example
 * validateIntent('ACTIVITY_TYPE_CREATE_WALLET', body.parameters); // checks INTENT_SCHEMAS entry
 */
export const INTENT_SCHEMAS = {
  ACTIVITY_TYPE_CREATE_USERS: obj({ users: nonEmpty(userParams.v1) }, ['users']),
  ACTIVITY_TYPE_CREATE_USERS_V2: obj({ users: nonEmpty(userParams.v2) }, ['users']),
  ACTIVITY_TYPE_CREATE_USERS_V3: obj({ users: nonEmpty(userParams.v3) }, ['users']),
  ACTIVITY_TYPE_CREATE_USERS_V4: obj({ users: nonEmpty(userParams.v4) }, ['users']),
  ACTIVITY_TYPE_CREATE_API_ONLY_USERS: obj({ apiOnlyUsers: nonEmpty(apiOnlyUserParams) }, [
    'apiOnlyUsers',
  ]),
  ACTIVITY_TYPE_DELETE_USERS: obj({ userIds: nonEmpty(uuid()) }, ['userIds']),
  ACTIVITY_TYPE_UPDATE_USER: obj(
    {
      userId: uuid(),
      userName: name(),
      userEmail: str({ maxLength: 320 }),
      userTagIds: arr(uuid()),
      userPhoneNumber: str({ maxLength: 32 }),
    },
    ['userId'],
  ),
  ACTIVITY_TYPE_UPDATE_USER_NAME: obj({ userId: uuid(), userName: name() }, ['userId', 'userName']),
  ACTIVITY_TYPE_CREATE_API_KEYS: obj({ apiKeys: nonEmpty(apiKeyParamsV1, 20), userId: uuid() }, [
    'apiKeys',
    'userId',
  ]),
  ACTIVITY_TYPE_CREATE_API_KEYS_V2: obj({ apiKeys: nonEmpty(apiKeyParamsV2, 20), userId: uuid() }, [
    'apiKeys',
    'userId',
  ]),
  ACTIVITY_TYPE_DELETE_API_KEYS: obj({ userId: uuid(), apiKeyIds: nonEmpty(uuid()) }, [
    'userId',
    'apiKeyIds',
  ]),
  ACTIVITY_TYPE_UPDATE_ROOT_QUORUM: obj(
    {
      threshold: withError(
        int({ minimum: 1 }),
        'INVALID_QUORUM_THRESHOLD',
        'INVALID_QUORUM_THRESHOLD',
      ),
      userIds: nonEmpty(uuid()),
    },
    ['threshold', 'userIds'],
  ),
  ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME: obj({ organizationName: name() }, ['organizationName']),
  ACTIVITY_TYPE_UPDATE_ALLOWED_ORIGINS: obj(
    { allowedOrigins: arr(allowedOrigin(), { maxItems: 32 }) },
    ['allowedOrigins'],
  ),
  ACTIVITY_TYPE_CREATE_AUTHENTICATORS: obj(
    { authenticators: nonEmpty(authenticatorParamsV1, 10), userId: uuid() },
    ['authenticators', 'userId'],
  ),
  ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2: obj(
    { authenticators: nonEmpty(authenticatorParamsV2, 10), userId: uuid() },
    ['authenticators', 'userId'],
  ),
  ACTIVITY_TYPE_DELETE_AUTHENTICATORS: obj({ userId: uuid(), authenticatorIds: nonEmpty(uuid()) }, [
    'userId',
    'authenticatorIds',
  ]),
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION: createSubOrganizationV1(),
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V2: obj(
    subOrganizationMembers(rootUserParams.v2),
    SUB_ORGANIZATION_REQUIRED,
  ),
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V3: createSubOrganizationV3(),
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V4: createSubOrganizationV4To6(rootUserParams.v2),
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V5: createSubOrganizationV4To6(rootUserParams.v5),
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V6: createSubOrganizationV4To6(rootUserParams.v6),
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7: createSubOrganizationV7(rootUserParams.v7),
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8: createSubOrganizationV7(rootUserParams.v8),
  ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION: obj({ deleteWithoutExport: bool() }),
  ACTIVITY_TYPE_CREATE_WALLET: obj(
    {
      walletName: name(),
      accounts: arr(accountParams),
      mnemonicLength: withError(intEnum(MNEMONIC_LENGTHS), 'INVALID_MNEMONIC_LENGTH'),
    },
    ['walletName', 'accounts'],
  ),
  ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS: obj(
    { walletId: uuid(), accounts: nonEmpty(accountParams), persist: bool() },
    ['walletId', 'accounts'],
  ),
  ACTIVITY_TYPE_UPDATE_WALLET: obj({ walletId: uuid(), walletName: name() }, ['walletId']),
  ACTIVITY_TYPE_CREATE_PRIVATE_KEYS: obj({ privateKeys: nonEmpty(privateKeyParams) }, [
    'privateKeys',
  ]),
  ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2: obj({ privateKeys: nonEmpty(privateKeyParams) }, [
    'privateKeys',
  ]),
  ACTIVITY_TYPE_SIGN_RAW_PAYLOAD: signRaw(BY_PRIVATE_KEY_ID, 'privateKeyId'),
  ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2: signRaw(BY_SIGN_WITH, 'signWith'),
  ACTIVITY_TYPE_SIGN_RAW_PAYLOADS: obj(
    {
      signWith: signWith(),
      payloads: nonEmpty(payload(), 100),
      encoding: payloadEncoding(),
      hashFunction: hashFunction(),
    },
    ['signWith', 'payloads', 'encoding', 'hashFunction'],
  ),
  ACTIVITY_TYPE_SIGN_TRANSACTION: signTransactionIntent(BY_PRIVATE_KEY_ID, 'privateKeyId'),
  ACTIVITY_TYPE_SIGN_TRANSACTION_V2: signTransactionIntent(BY_SIGN_WITH, 'signWith'),

  ACTIVITY_TYPE_CREATE_POLICY_V3: policyParamsV3,
  ACTIVITY_TYPE_EXPORT_WALLET: obj(
    { walletId: uuid(), targetPublicKey: targetPublicKey(), language: enumOf(MNEMONIC_LANGUAGES) },
    ['walletId', 'targetPublicKey'],
  ),
  ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT: obj(
    { address: str({ minLength: 1, maxLength: 256 }), targetPublicKey: targetPublicKey() },
    ['address', 'targetPublicKey'],
  ),
  ACTIVITY_TYPE_EXPORT_PRIVATE_KEY: obj(
    { privateKeyId: uuid(), targetPublicKey: targetPublicKey() },
    ['privateKeyId', 'targetPublicKey'],
  ),
  ACTIVITY_TYPE_INIT_IMPORT_WALLET: obj({ userId: uuid() }, ['userId']),
  ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY: obj({ userId: uuid() }, ['userId']),
  ACTIVITY_TYPE_IMPORT_WALLET: obj(
    {
      userId: uuid(),
      walletName: name(),
      encryptedBundle: encryptedBundle(),
      accounts: arr(accountParams),
    },
    ['userId', 'walletName', 'encryptedBundle', 'accounts'],
  ),
  ACTIVITY_TYPE_IMPORT_PRIVATE_KEY: obj(
    {
      userId: uuid(),
      privateKeyName: name(),
      encryptedBundle: encryptedBundle(),
      curve: enumOf(CURVES, 'INVALID_CURVE', 'CURVE_REQUIRED'),
      addressFormats: arr(enumOf(ADDRESS_FORMATS, 'INVALID_ADDRESS_FORMAT'), { maxItems: 40 }),
    },
    ['userId', 'privateKeyName', 'encryptedBundle', 'curve'],
  ),
  ACTIVITY_TYPE_DISABLE_PRIVATE_KEY: obj({ privateKeyId: uuid() }, ['privateKeyId']),
  ACTIVITY_TYPE_DELETE_PRIVATE_KEYS: obj(
    { privateKeyIds: nonEmpty(uuid()), deleteWithoutExport: bool() },
    ['privateKeyIds'],
  ),
  ACTIVITY_TYPE_DELETE_WALLETS: obj({ walletIds: nonEmpty(uuid()), deleteWithoutExport: bool() }, [
    'walletIds',
  ]),
  ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS: obj(
    {
      walletAccountIds: nonEmpty(withError(uuid(), 'INVALID_WALLET_ACCOUNT_ID')),
      deleteWithoutExport: bool(),
    },
    ['walletAccountIds'],
  ),
  ACTIVITY_TYPE_CREATE_POLICIES: obj({ policies: nonEmpty(policyParamsV3) }, ['policies']),
  ACTIVITY_TYPE_UPDATE_POLICY: updatePolicyParams.v1,
  ACTIVITY_TYPE_UPDATE_POLICY_V2: updatePolicyParams.v2,
  ACTIVITY_TYPE_DELETE_POLICY: obj({ policyId: uuid() }, ['policyId']),
  ACTIVITY_TYPE_DELETE_POLICIES: obj({ policyIds: nonEmpty(uuid()) }, ['policyIds']),

  ACTIVITY_TYPE_CREATE_USER_TAG: obj({ userTagName: name(), userIds: arr(uuid()) }, [
    'userTagName',
  ]),
  ACTIVITY_TYPE_UPDATE_USER_TAG: obj(
    {
      userTagId: uuid(),
      newUserTagName: name(),
      addUserIds: arr(uuid()),
      removeUserIds: arr(uuid()),
    },
    ['userTagId'],
  ),
  ACTIVITY_TYPE_DELETE_USER_TAGS: obj({ userTagIds: nonEmpty(uuid()) }, ['userTagIds']),
  ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG: obj(
    { privateKeyTagName: name(), privateKeyIds: arr(uuid()) },
    ['privateKeyTagName'],
  ),
  ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG: obj(
    {
      privateKeyTagId: uuid(),
      newPrivateKeyTagName: name(),
      addPrivateKeyIds: arr(uuid()),
      removePrivateKeyIds: arr(uuid()),
    },
    ['privateKeyTagId'],
  ),
  ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS: obj({ privateKeyTagIds: nonEmpty(uuid()) }, [
    'privateKeyTagIds',
  ]),

  ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT: obj(
    { url: webhookUrl(), name: name(), subscriptions: arr(webhookSubscription, { maxItems: 16 }) },
    ['url', 'name'],
  ),
  // Subscriptions cannot be updated (interface spec): only url, name and isActive.
  ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT: obj(
    { endpointId: uuid(), url: webhookUrl(), name: name(), isActive: bool() },
    ['endpointId'],
  ),
  ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT: obj({ endpointId: uuid() }, ['endpointId']),

  ACTIVITY_TYPE_STAMP_LOGIN: obj(
    {
      publicKey: sessionPublicKey(),
      expirationSeconds: sessionExpirationSeconds(),
      invalidateExisting: bool(),
      sessionProfileId: str({ maxLength: 256 }),
    },
    ['publicKey'],
  ),
  ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION: obj(
    {
      targetPublicKey: targetPublicKey(),
      email: str({ maxLength: 320 }),
      apiKeyName: name(),
      expirationSeconds: sessionExpirationSeconds(),
    },
    ['targetPublicKey'],
  ),
  ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2: obj(
    {
      targetPublicKey: targetPublicKey(),
      userId: uuid(),
      apiKeyName: name(),
      expirationSeconds: sessionExpirationSeconds(),
      invalidateExisting: bool(),
    },
    ['targetPublicKey'],
  ),
  ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION: obj({}, []),

  ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL: obj(oauth2CredentialProperties(), [
    'provider',
    'clientId',
    'encryptedClientSecret',
  ]),
  ACTIVITY_TYPE_UPDATE_OAUTH2_CREDENTIAL: obj(
    { oauth2CredentialId: uuid(), ...oauth2CredentialProperties() },
    ['oauth2CredentialId', 'provider', 'clientId', 'encryptedClientSecret'],
  ),
  ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL: obj({ oauth2CredentialId: uuid() }, [
    'oauth2CredentialId',
  ]),
  ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION: obj(
    {
      signedTransaction: withError(
        str({ minLength: 1, maxLength: 262_144 }),
        'INVALID_TRANSACTION',
      ),
      caip2: caip2(),
    },
    ['signedTransaction', 'caip2'],
  ),
  ACTIVITY_TYPE_ETH_SEND_TRANSACTION: obj(
    { ...ethSendTransactionProperties, to: evmAddress(), value: decimal(), data: callData() },
    ['from', 'caip2', 'to'],
  ),
  ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2: obj(
    {
      ...ethSendTransactionProperties,
      calls: arr(obj({ to: evmAddress(), value: decimal(), data: callData() }, ['to']), {
        minItems: 1,
        maxItems: 50,
      }),
    },
    ['from', 'caip2', 'calls'],
  ),
  // A Solana transaction is at most 1232 bytes: 2048 base64 characters or 4096 hex digits
  // leave room for a client's padding, and the handler bounds the bytes.
  ACTIVITY_TYPE_SOL_SEND_TRANSACTION: obj(
    {
      ...solSendTransactionProperties,
      unsignedTransaction: withError(
        matching('^[A-Za-z0-9+/]{1,2048}={0,2}$'),
        'INVALID_TRANSACTION',
      ),
      signWith: signWith(),
    },
    ['unsignedTransaction', 'signWith', 'caip2'],
  ),
  ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2: obj(
    {
      ...solSendTransactionProperties,
      unsignedTransaction: withError(
        matching('^(0x)?([0-9a-fA-F]{2}){1,2048}$'),
        'INVALID_TRANSACTION',
      ),
      signWiths: arr(signWith(), { minItems: 1, maxItems: 16 }),
    },
    ['unsignedTransaction', 'signWiths', 'caip2'],
  ),
  ACTIVITY_TYPE_UPSERT_GAS_USAGE_CONFIG: obj(
    {
      orgWindowLimitUsd: withError(usd(), 'INVALID_GAS_USAGE_CONFIG'),
      subOrgWindowLimitUsd: withError(usd(), 'INVALID_GAS_USAGE_CONFIG'),
      windowDurationMinutes: withError(matching('^[1-9][0-9]{0,4}$'), 'INVALID_GAS_USAGE_CONFIG'),
      enabled: bool(),
    },
    ['orgWindowLimitUsd', 'subOrgWindowLimitUsd', 'windowDurationMinutes'],
  ),
  ACTIVITY_TYPE_OAUTH2_AUTHENTICATE: obj(
    {
      oauth2CredentialId: uuid(),
      authCode: str({ minLength: 1, maxLength: 4096 }),
      redirectUri: str({ minLength: 1, maxLength: 2048 }),
      // RFC 7636: 43–128 characters of [A-Za-z0-9-._~]; empty when the app uses no PKCE.
      codeVerifier: withError(
        str({ pattern: '^([A-Za-z0-9._~-]{43,128})?$' }),
        'INVALID_CODE_VERIFIER',
      ),
      nonce: str({ minLength: 1, maxLength: 256 }),
      bearerTokenTargetPublicKey: targetPublicKey(),
    },
    ['oauth2CredentialId', 'authCode', 'redirectUri', 'codeVerifier', 'nonce'],
  ),

  ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_CREDENTIAL: obj(
    { ...fiatOnRampCredentialProperties(), sandboxMode: bool() },
    ['onrampProvider', 'publishableApiKey', 'encryptedSecretApiKey'],
  ),
  ACTIVITY_TYPE_UPDATE_FIAT_ON_RAMP_CREDENTIAL: obj(
    { fiatOnrampCredentialId: uuid(), ...fiatOnRampCredentialProperties() },
    ['fiatOnrampCredentialId', 'onrampProvider', 'publishableApiKey', 'encryptedSecretApiKey'],
  ),
  ACTIVITY_TYPE_DELETE_FIAT_ON_RAMP_CREDENTIAL: obj({ fiatOnrampCredentialId: uuid() }, [
    'fiatOnrampCredentialId',
  ]),
  ACTIVITY_TYPE_INIT_FIAT_ON_RAMP: obj(
    {
      onrampProvider: onRampProvider(),
      // Bitcoin (base58, bech32), Ethereum and Base (0x hex), Solana (base58): letters and digits.
      walletAddress: onRampField(matching('^(0x)?[A-Za-z0-9]{20,100}$')),
      network: onRampField(enumOf(FIAT_ON_RAMP_NETWORKS)),
      cryptoCurrencyCode: onRampField(enumOf(FIAT_ON_RAMP_CRYPTO_CURRENCIES)),
      fiatCurrencyCode: onRampField(enumOf(FIAT_ON_RAMP_CURRENCIES)),
      // A decimal amount of the fiat currency (`100`, `25.50`).
      fiatCurrencyAmount: onRampField(matching('^[0-9]{1,9}(\\.[0-9]{1,2})?$')),
      paymentMethod: onRampField(enumOf(FIAT_ON_RAMP_PAYMENT_METHODS)),
      // ISO 3166-1 alpha-2 and the ISO 3166-2 subdivision after the dash (`US`, `NY`).
      countryCode: onRampField(matching('^[A-Z]{2}$')),
      countrySubdivisionCode: onRampField(matching('^[A-Z0-9]{1,3}$')),
      sandboxMode: bool(),
      // Whether it parses as an https URL with a query is the handler's check.
      urlForSignature: withError(
        str({ minLength: 1, maxLength: 4096 }),
        'INVALID_URL_FOR_SIGNATURE',
        'INVALID_URL_FOR_SIGNATURE',
      ),
    },
    ['onrampProvider', 'walletAddress', 'network', 'cryptoCurrencyCode'],
  ),
  ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE: obj(
    {
      // Whether it is an address of its type is the handler's precheck.
      smartContractAddress: withError(
        str({ minLength: 1, maxLength: 128 }),
        'INVALID_SMART_CONTRACT_ADDRESS',
        'INVALID_SMART_CONTRACT_ADDRESS',
      ),
      smartContractInterface: withError(
        str({ minLength: 1, maxLength: SMART_CONTRACT_INTERFACE_MAX_LENGTH }),
        'INVALID_SMART_CONTRACT_INTERFACE',
        'INVALID_SMART_CONTRACT_INTERFACE',
      ),
      type: enumOf(
        SMART_CONTRACT_INTERFACE_TYPES,
        'INVALID_SMART_CONTRACT_INTERFACE_TYPE',
        'INVALID_SMART_CONTRACT_INTERFACE_TYPE',
      ),
      label: str({ minLength: 1, maxLength: 256 }),
      notes: str({ maxLength: 4096 }),
    },
    ['smartContractAddress', 'smartContractInterface', 'type', 'label'],
  ),
  ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE: obj({ smartContractInterfaceId: uuid() }, [
    'smartContractInterfaceId',
  ]),

  ACTIVITY_TYPE_INIT_OTP: obj(initOtpProperties, ['otpType', 'contact']),
  ACTIVITY_TYPE_INIT_OTP_V2: obj({ ...initOtpProperties, appName: str({ maxLength: 256 }) }, [
    'otpType',
    'contact',
  ]),
  ACTIVITY_TYPE_INIT_OTP_V3: obj(
    { ...initOtpProperties, appName: str({ minLength: 1, maxLength: 256 }) },
    ['otpType', 'contact', 'appName'],
  ),
  // INIT_OTP_AUTH V1 has neither length nor alphabet; V2 adds them; V3 is INIT_OTP V3's.
  ACTIVITY_TYPE_INIT_OTP_AUTH: obj(initOtpAuthV1Properties, ['otpType', 'contact']),
  ACTIVITY_TYPE_INIT_OTP_AUTH_V2: obj(
    {
      ...initOtpAuthV1Properties,
      otpLength: initOtpProperties.otpLength,
      alphanumeric: initOtpProperties.alphanumeric,
    },
    ['otpType', 'contact'],
  ),
  ACTIVITY_TYPE_INIT_OTP_AUTH_V3: obj(
    { ...initOtpProperties, appName: str({ minLength: 1, maxLength: 256 }) },
    ['otpType', 'contact', 'appName'],
  ),
  ACTIVITY_TYPE_OTP_AUTH: obj(
    {
      otpId: withError(uuid(), 'OTP_NOT_FOUND'),
      otpCode: withError(
        str({ minLength: 1, maxLength: 64 }),
        'INVALID_OTP_CODE',
        'INVALID_OTP_CODE',
      ),
      targetPublicKey: targetPublicKey(),
      apiKeyName: name(),
      expirationSeconds: sessionExpirationSeconds(),
      invalidateExisting: bool(),
    },
    ['otpId', 'otpCode', 'targetPublicKey'],
  ),
  ACTIVITY_TYPE_VERIFY_OTP: obj(
    {
      otpId: withError(uuid(), 'OTP_NOT_FOUND'),
      otpCode: withError(
        str({ minLength: 1, maxLength: 64 }),
        'INVALID_OTP_CODE',
        'INVALID_OTP_CODE',
      ),
      expirationSeconds: withError(
        str({ pattern: '^[0-9]{1,12}$' }),
        'INVALID_VERIFICATION_TOKEN_EXPIRATION',
      ),
      publicKey: sessionPublicKey(),
    },
    ['otpId', 'otpCode'],
  ),
  ACTIVITY_TYPE_VERIFY_OTP_V2: obj(
    {
      otpId: withError(uuid(), 'OTP_NOT_FOUND'),
      encryptedOtpBundle: withError(
        str({ minLength: 2, maxLength: 65536 }),
        'INVALID_OTP_CODE',
        'INVALID_OTP_CODE',
      ),
      expirationSeconds: withError(
        str({ pattern: '^[0-9]{1,12}$' }),
        'INVALID_VERIFICATION_TOKEN_EXPIRATION',
      ),
    },
    ['otpId', 'encryptedOtpBundle'],
  ),
  ACTIVITY_TYPE_OTP_LOGIN: obj(otpLoginProperties, ['verificationToken', 'publicKey']),
  ACTIVITY_TYPE_OTP_LOGIN_V2: obj(otpLoginProperties, [
    'verificationToken',
    'publicKey',
    'clientSignature',
  ]),

  ACTIVITY_TYPE_EMAIL_AUTH: obj(emailAuthProperties, ['email', 'targetPublicKey']),
  ACTIVITY_TYPE_EMAIL_AUTH_V2: obj(emailAuthProperties, ['email', 'targetPublicKey']),
  ACTIVITY_TYPE_EMAIL_AUTH_V3: obj(
    { ...emailAuthProperties, emailCustomization: emailAuthCustomization() },
    ['email', 'targetPublicKey', 'emailCustomization'],
  ),
  ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY: obj(emailRecoveryProperties, [
    'email',
    'targetPublicKey',
  ]),
  ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2: obj(
    { ...emailRecoveryProperties, emailCustomization: emailAuthCustomization() },
    ['email', 'targetPublicKey', 'emailCustomization'],
  ),
  ACTIVITY_TYPE_RECOVER_USER: obj({ authenticator: authenticatorParamsV2, userId: uuid() }, [
    'authenticator',
    'userId',
  ]),
  ACTIVITY_TYPE_UPDATE_USER_EMAIL: obj(
    {
      userId: uuid(),
      userEmail: str({ maxLength: 320 }),
      verificationToken: otpLoginProperties.verificationToken,
    },
    ['userId', 'userEmail'],
  ),
  ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER: obj(
    {
      userId: uuid(),
      userPhoneNumber: str({ maxLength: 64 }),
      verificationToken: otpLoginProperties.verificationToken,
    },
    ['userId', 'userPhoneNumber'],
  ),
  ACTIVITY_TYPE_CREATE_INVITATIONS: obj({ invitations: nonEmpty(invitationParams, 20) }, [
    'invitations',
  ]),
  ACTIVITY_TYPE_ACCEPT_INVITATION: obj(
    { invitationId: uuid(), userId: uuid(), authenticator: authenticatorParamsV1 },
    ['invitationId', 'userId', 'authenticator'],
  ),
  ACTIVITY_TYPE_ACCEPT_INVITATION_V2: obj(
    { invitationId: uuid(), userId: uuid(), authenticator: authenticatorParamsV2 },
    ['invitationId', 'userId', 'authenticator'],
  ),
  ACTIVITY_TYPE_DELETE_INVITATION: obj({ invitationId: uuid() }, ['invitationId']),
  ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS: obj(
    { userId: uuid(), oauthProviders: nonEmpty(oauthProviderParamsV1, 10) },
    ['userId', 'oauthProviders'],
  ),
  ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2: obj(
    { userId: uuid(), oauthProviders: nonEmpty(oauthProviderParamsV2, 10) },
    ['userId', 'oauthProviders'],
  ),
  ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS: obj(
    { userId: uuid(), providerIds: nonEmpty(withError(uuid(), 'OAUTH_PROVIDER_NOT_FOUND')) },
    ['userId', 'providerIds'],
  ),
  ACTIVITY_TYPE_OAUTH_LOGIN: obj(
    {
      oidcToken: oidcToken(),
      publicKey: sessionPublicKey(),
      expirationSeconds: sessionExpirationSeconds(),
      invalidateExisting: bool(),
      sessionProfileId: str({ maxLength: 256 }),
    },
    ['oidcToken', 'publicKey'],
  ),
  ACTIVITY_TYPE_OAUTH: obj(
    {
      oidcToken: oidcToken(),
      targetPublicKey: targetPublicKey(),
      apiKeyName: name(),
      expirationSeconds: sessionExpirationSeconds(),
      invalidateExisting: bool(),
    },
    ['oidcToken', 'targetPublicKey'],
  ),

  ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE: obj(
    { name: featureName(), value: str({ maxLength: 4096 }) },
    ['name'],
  ),
  ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE: obj({ name: featureName() }, ['name']),
  ACTIVITY_TYPE_ENABLE_AUTH_PROXY: obj({}, []),
  ACTIVITY_TYPE_DISABLE_AUTH_PROXY: obj({}, []),
  ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG: updateAuthProxyConfigIntent,

  // TVC: the spec's members and those of the published client (enableEgress, health checks).
  ACTIVITY_TYPE_CREATE_TVC_APP: obj(
    {
      name: name(),
      quorumPublicKey: str({ minLength: 1, maxLength: 1024 }),
      manifestSetId: uuid(),
      manifestSetParams: tvcOperatorSetParams,
      shareSetId: uuid(),
      shareSetParams: tvcOperatorSetParams,
      externalConnectivity: bool(),
      enableEgress: bool(),
      enableDebugModeDeployments: bool(),
    },
    ['name', 'quorumPublicKey'],
  ),
  ACTIVITY_TYPE_CREATE_TVC_DEPLOYMENT: obj(
    {
      appId: uuid(),
      qosVersion: str({ minLength: 1, maxLength: 128 }),
      pivotContainerImageUrl: str({ minLength: 1, maxLength: 2048 }),
      pivotPath: str({ minLength: 1, maxLength: 2048 }),
      pivotArgs: tvcArgs(),
      expectedPivotDigest: str({ minLength: 1, maxLength: 256 }),
      hostContainerImageUrl: tvcText(),
      hostPath: tvcText(),
      hostArgs: tvcArgs(),
      nonce: int({ minimum: 0 }),
      pivotContainerEncryptedPullSecret: tvcText(65536),
      debugMode: bool(),
      healthCheckType: tvcText(64),
      healthCheckPort: int({ minimum: 0, maximum: 65535 }),
      publicIngressPort: int({ minimum: 0, maximum: 65535 }),
      replicas: int({ minimum: 0, maximum: 100 }),
      instanceSizeCpus: int({ minimum: 0, maximum: 1024 }),
      instanceSizeRam: int({ minimum: 0, maximum: 1_048_576 }),
    },
    ['appId', 'qosVersion', 'pivotContainerImageUrl', 'pivotPath', 'expectedPivotDigest'],
  ),
  ACTIVITY_TYPE_CREATE_TVC_MANIFEST_APPROVALS: obj(
    {
      manifestId: uuid(),
      approvals: nonEmpty(
        obj({ operatorId: uuid(), signature: str({ minLength: 1, maxLength: 1024 }) }, [
          'operatorId',
          'signature',
        ]),
        20,
      ),
    },
    ['manifestId', 'approvals'],
  ),

  // Legacy and billing: what the hosted service keeps, as a self-hosted instance treats it.
  ACTIVITY_TYPE_CREATE_ORGANIZATION: obj(
    {
      organizationName: name(),
      rootEmail: str({ maxLength: 320 }),
      rootAuthenticator: authenticatorParamsV1,
      rootUserId: uuid(),
    },
    ['organizationName'],
  ),
  ACTIVITY_TYPE_CREATE_ORGANIZATION_V2: obj(
    {
      organizationName: name(),
      rootEmail: str({ maxLength: 320 }),
      rootAuthenticator: authenticatorParamsV2,
      rootUserId: uuid(),
    },
    ['organizationName'],
  ),
  ACTIVITY_TYPE_DELETE_ORGANIZATION: obj({ organizationId: uuid() }, ['organizationId']),
  ACTIVITY_TYPE_CREATE_POLICY: obj(
    {
      policyName: name(),
      selectors: arr(
        obj({
          subject: str({ maxLength: 1024 }),
          operator: str({ maxLength: 64 }),
          target: str({ maxLength: 1024 }),
        }),
      ),
      effect: str({ maxLength: 64 }),
      notes: str({ maxLength: 4096 }),
    },
    ['policyName'],
  ),
  ACTIVITY_TYPE_CREATE_POLICY_V2: obj(
    {
      policyName: name(),
      selectors: arr(
        obj({
          subject: str({ maxLength: 1024 }),
          operator: str({ maxLength: 64 }),
          targets: arr(str({ maxLength: 1024 })),
        }),
      ),
      effect: str({ maxLength: 64 }),
      notes: str({ maxLength: 4096 }),
    },
    ['policyName'],
  ),
  ACTIVITY_TYPE_SET_PAYMENT_METHOD: obj(
    {
      number: paymentCard(),
      cvv: withError(
        str({ pattern: '^[0-9]{3,4}$' }),
        'INVALID_PAYMENT_CARD',
        'INVALID_PAYMENT_CARD',
      ),
      expiryMonth: withError(
        str({ pattern: '^(0?[1-9]|1[0-2])$' }),
        'INVALID_PAYMENT_CARD',
        'INVALID_PAYMENT_CARD',
      ),
      expiryYear: withError(
        str({ pattern: '^[0-9]{2}([0-9]{2})?$' }),
        'INVALID_PAYMENT_CARD',
        'INVALID_PAYMENT_CARD',
      ),
      cardHolderEmail: str({ maxLength: 320 }),
      cardHolderName: str({ maxLength: 256 }),
    },
    ['number', 'cvv', 'expiryMonth', 'expiryYear', 'cardHolderName'],
  ),
  ACTIVITY_TYPE_SET_PAYMENT_METHOD_V2: obj(
    {
      paymentMethodId: str({ minLength: 1, maxLength: 256 }),
      cardHolderEmail: str({ maxLength: 320 }),
      cardHolderName: str({ maxLength: 256 }),
    },
    ['paymentMethodId', 'cardHolderName'],
  ),
  ACTIVITY_TYPE_DELETE_PAYMENT_METHOD: obj(
    { paymentMethodId: str({ minLength: 1, maxLength: 256 }) },
    ['paymentMethodId'],
  ),
  ACTIVITY_TYPE_ACTIVATE_BILLING_TIER: obj({ productId: str({ minLength: 1, maxLength: 256 }) }, [
    'productId',
  ]),

  ACTIVITY_TYPE_APPROVE_ACTIVITY: obj({ fingerprint: str({ minLength: 1, maxLength: 256 }) }, [
    'fingerprint',
  ]),
  ACTIVITY_TYPE_REJECT_ACTIVITY: obj({ fingerprint: str({ minLength: 1, maxLength: 256 }) }, [
    'fingerprint',
  ]),
} as const satisfies Partial<Record<ActivityType, Schema>>;
