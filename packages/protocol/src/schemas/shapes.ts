/**
 * Parameter shapes shared by several intents.
 * @module
 */
import {
  ACCESS_TYPES,
  ADDRESS_FORMATS,
  API_KEY_CURVES,
  CURVES,
  EFFECTS,
  HASH_FUNCTIONS,
  PATH_FORMATS,
  PAYLOAD_ENCODINGS,
} from '../enums.js';
import {
  arr,
  enumOf,
  int64,
  name,
  obj,
  type Schema,
  str,
  uuid,
  withError,
} from './schema-builders.js';

/** Hex public keys: compressed/uncompressed SEC1 (66/130) or Ed25519 (64). */
const publicKeyHex = (): Schema =>
  withError(str({ pattern: '^(0x)?[0-9a-fA-F]{64,130}$' }), 'INVALID_PUBLIC_KEY');

const expirationSeconds = (): Schema =>
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

const userTags = () => arr(uuid());
const email = () => str({ maxLength: 320 });

/** Users of CREATE_USERS V1 (with accessType) … V4. Authenticators and OAuth providers must be empty until they are supported. */
export const userParams = (version: 1 | 2 | 3 | 4): Schema => {
  const props: Record<string, Schema> = {
    userName: name(),
    userEmail: email(),
    apiKeys: arr(version >= 3 ? apiKeyParamsV2 : apiKeyParamsV1, { maxItems: 20 }),
    authenticators: arr({ type: 'object' }, { maxItems: 0 }),
    userTags: userTags(),
  };
  if (version === 1) props.accessType = enumOf(ACCESS_TYPES);
  if (version >= 3) {
    props.userPhoneNumber = str({ maxLength: 32 });
    props.oauthProviders = arr({ type: 'object' }, { maxItems: 0 });
  }
  return obj(props, ['userName']);
};

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

/** UpdatePolicyIntent (V1) and V2 (adds `time`): every field but the id is optional. */
export const updatePolicyParams = (version: 1 | 2): Schema => {
  const props: Record<string, Schema> = {
    policyId: uuid(),
    policyName: name(),
    policyEffect: policyEffect(),
    policyCondition: policyExpression(),
    policyConsensus: policyExpression(),
    policyNotes: policyNotes(),
  };
  if (version === 2) props.time = policyExpression();
  return obj(props, ['policyId']);
};

/** Credentials Keyhold cannot store yet: accepted only as empty arrays, refused with a message. */
const unsupportedCredentials = () =>
  withError(arr({ type: 'object' }, { maxItems: 0 }), 'ROOT_USER_CREDENTIAL_NOT_SUPPORTED');

/**
 * RootUser of CREATE_SUB_ORGANIZATION, by intent version: V2 and V4 take V1 API keys and
 * authenticators; V5 adds oauthProviders; V6 API keys with curveType; V7 and V8 add
 * userPhoneNumber. Authenticators and OAuth providers must be empty until they are supported.
 */
export const rootUserParams = (version: number): Schema => {
  const props: Record<string, Schema> = {
    userName: name(),
    userEmail: email(),
    apiKeys: arr(version >= 6 ? apiKeyParamsV2 : apiKeyParamsV1, { maxItems: 20 }),
    authenticators: unsupportedCredentials(),
  };
  if (version >= 5) props.oauthProviders = unsupportedCredentials();
  if (version >= 7) props.userPhoneNumber = str({ maxLength: 32 });
  return obj(props, ['userName']);
};

/** WalletParams of CREATE_SUB_ORGANIZATION V4+: a name and at least one account. */
export const subOrganizationWalletParams = (mnemonicLengths: readonly number[]): Schema =>
  obj(
    {
      walletName: withError(name(), 'MISSING_WALLET_PARAMS', 'MISSING_WALLET_PARAMS'),
      accounts: withError(
        arr(accountParams, { minItems: 1 }),
        'MISSING_WALLET_PARAMS',
        'MISSING_WALLET_PARAMS',
      ),
      mnemonicLength: withError(
        { type: 'integer', enum: [...mnemonicLengths] },
        'INVALID_MNEMONIC_LENGTH',
      ),
    },
    ['walletName', 'accounts'],
  );
