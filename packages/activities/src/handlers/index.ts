/**
 * The handler of every activity kind Keyhold executes.
 * @module
 */
import type { ActivityHandler } from './activity-handler.js';
import { createApiKeysHandler, deleteApiKeysHandler } from './create-api-keys.js';
import { createApiOnlyUsersHandler, createUsersHandler } from './create-users.js';
import { deleteUsersHandler } from './delete-users.js';
import { updateOrganizationNameHandler, updateRootQuorumHandler } from './organization.js';
import { createPrivateKeysHandler } from './private-keys.js';
import { signRawPayloadHandler, signRawPayloadsHandler } from './sign-raw-payload.js';
import { updateUserHandler, updateUserNameHandler } from './update-user.js';
import {
  createWalletAccountsHandler,
  createWalletHandler,
  updateWalletHandler,
} from './wallets.js';

export type { ActivityContext, ActivityHandler } from './activity-handler.js';

/** Handlers by activity kind (every version of a kind shares one handler). */
export const ACTIVITY_HANDLERS: Readonly<Record<string, ActivityHandler>> = {
  CREATE_USERS: createUsersHandler,
  CREATE_API_ONLY_USERS: createApiOnlyUsersHandler,
  DELETE_USERS: deleteUsersHandler,
  UPDATE_USER: updateUserHandler,
  UPDATE_USER_NAME: updateUserNameHandler,
  CREATE_API_KEYS: createApiKeysHandler,
  DELETE_API_KEYS: deleteApiKeysHandler,
  UPDATE_ROOT_QUORUM: updateRootQuorumHandler,
  UPDATE_ORGANIZATION_NAME: updateOrganizationNameHandler,
  CREATE_WALLET: createWalletHandler,
  CREATE_WALLET_ACCOUNTS: createWalletAccountsHandler,
  UPDATE_WALLET: updateWalletHandler,
  CREATE_PRIVATE_KEYS: createPrivateKeysHandler,
  SIGN_RAW_PAYLOAD: signRawPayloadHandler,
  SIGN_RAW_PAYLOADS: signRawPayloadsHandler,
};
