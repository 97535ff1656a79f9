/**
 * Parameter schemas of every activity Keyhold executes, by activity type.
 * @module
 */
import type { ActivityType } from '../enums.js';
import { MNEMONIC_LENGTHS } from '../enums.js';
import { arr, bool, int, name, obj, type Schema, str, uuid, withError } from './schema-builders.js';
import {
  accountParams,
  apiKeyParamsV1,
  apiKeyParamsV2,
  apiOnlyUserParams,
  hashFunction,
  payload,
  payloadEncoding,
  privateKeyParams,
  signWith,
  userParams,
} from './shapes.js';

const nonEmpty = (items: Schema, max = 100) => arr(items, { minItems: 1, maxItems: max });

const signRaw = (signer: Record<string, Schema>, required: string) =>
  obj(
    { ...signer, payload: payload(), encoding: payloadEncoding(), hashFunction: hashFunction() },
    [required, 'payload', 'encoding', 'hashFunction'],
  );

/** Parameters schema by activity type. */
export const INTENT_SCHEMAS: Partial<Record<ActivityType, Schema>> = {
  ACTIVITY_TYPE_CREATE_USERS: obj({ users: nonEmpty(userParams(1)) }, ['users']),
  ACTIVITY_TYPE_CREATE_USERS_V2: obj({ users: nonEmpty(userParams(2)) }, ['users']),
  ACTIVITY_TYPE_CREATE_USERS_V3: obj({ users: nonEmpty(userParams(3)) }, ['users']),
  ACTIVITY_TYPE_CREATE_USERS_V4: obj({ users: nonEmpty(userParams(4)) }, ['users']),
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
        'QUORUM_THRESHOLD_INVALID',
        'QUORUM_THRESHOLD_INVALID',
      ),
      userIds: nonEmpty(uuid()),
    },
    ['threshold', 'userIds'],
  ),
  ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME: obj({ organizationName: name() }, ['organizationName']),
  ACTIVITY_TYPE_CREATE_WALLET: obj(
    {
      walletName: name(),
      accounts: arr(accountParams),
      mnemonicLength: withError(
        { type: 'integer', enum: [...MNEMONIC_LENGTHS] },
        'INVALID_MNEMONIC_LENGTH',
      ),
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
  ACTIVITY_TYPE_SIGN_RAW_PAYLOAD: signRaw({ privateKeyId: uuid() }, 'privateKeyId'),
  ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2: signRaw({ signWith: signWith() }, 'signWith'),
  ACTIVITY_TYPE_SIGN_RAW_PAYLOADS: obj(
    {
      signWith: signWith(),
      payloads: nonEmpty(payload(), 100),
      encoding: payloadEncoding(),
      hashFunction: hashFunction(),
    },
    ['signWith', 'payloads', 'encoding', 'hashFunction'],
  ),
};
