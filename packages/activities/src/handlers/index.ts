/**
 * The handler of every activity kind Keyhold executes.
 * @module
 */
import type { ActivityHandler, ActivityHandlerMap } from './activity-handler.js';
import { createAuthenticatorsHandler, deleteAuthenticatorsHandler } from './authenticators.js';
import { createApiKeysHandler, deleteApiKeysHandler } from './create-api-keys.js';
import { createApiOnlyUsersHandler, createUsersHandler } from './create-users.js';
import { deleteUsersHandler } from './delete-users.js';
import {
  emailAuthHandler,
  initUserEmailRecoveryHandler,
  recoverUserHandler,
} from './email-auth.js';
import {
  exportPrivateKeyHandler,
  exportWalletAccountHandler,
  exportWalletHandler,
  importPrivateKeyHandler,
  importWalletHandler,
  initImportPrivateKeyHandler,
  initImportWalletHandler,
} from './export-import.js';
import {
  createFiatOnRampCredentialHandler,
  deleteFiatOnRampCredentialHandler,
  updateFiatOnRampCredentialHandler,
} from './fiat-on-ramp-credentials.js';
import { upsertGasUsageConfigHandler } from './gas-sponsorship.js';
import { initFiatOnRampHandler } from './init-fiat-on-ramp.js';
import {
  acceptInvitationHandler,
  createInvitationsHandler,
  deleteInvitationHandler,
} from './invitations.js';
import {
  activateBillingTierHandler,
  createOrganizationHandler,
  deleteOrganizationHandler,
  deletePaymentMethodHandler,
  setPaymentMethodHandler,
} from './legacy-and-billing.js';
import {
  deletePrivateKeysHandler,
  deleteWalletAccountsHandler,
  deleteWalletsHandler,
  disablePrivateKeyHandler,
} from './lifecycle.js';
import { oauthHandler, oauthLoginHandler } from './oauth-login.js';
import { createOauthProvidersHandler, deleteOauthProvidersHandler } from './oauth-providers.js';
import {
  createOauth2CredentialHandler,
  deleteOauth2CredentialHandler,
  oauth2AuthenticateHandler,
  updateOauth2CredentialHandler,
} from './oauth2-credentials.js';
import {
  updateAllowedOriginsHandler,
  updateOrganizationNameHandler,
  updateRootQuorumHandler,
} from './organization.js';
import {
  disableAuthProxyHandler,
  enableAuthProxyHandler,
  removeOrganizationFeatureHandler,
  setOrganizationFeatureHandler,
  updateAuthProxyConfigHandler,
} from './organization-settings.js';
import {
  initOtpAuthHandler,
  initOtpHandler,
  otpAuthHandler,
  otpLoginHandler,
  verifyOtpHandler,
} from './otp.js';
import {
  createPoliciesHandler,
  createPolicyHandler,
  deletePoliciesHandler,
  deletePolicyHandler,
  updatePolicyHandler,
} from './policies.js';
import { createPrivateKeysHandler } from './private-keys.js';
import { ethSendRawTransactionHandler, ethSendTransactionHandler } from './send-transaction.js';
import {
  createReadOnlySessionHandler,
  createReadWriteSessionHandler,
  stampLoginHandler,
} from './sessions.js';
import { signRawPayloadHandler, signRawPayloadsHandler } from './sign-raw-payload.js';
import { signTransactionHandler } from './sign-transaction.js';
import {
  createSmartContractInterfaceHandler,
  deleteSmartContractInterfaceHandler,
} from './smart-contract-interfaces.js';
import { solSendTransactionHandler } from './sol-send-transaction.js';
import { createSubOrganizationHandler, deleteSubOrganizationHandler } from './sub-organizations.js';
import {
  createPrivateKeyTagHandler,
  createUserTagHandler,
  deletePrivateKeyTagsHandler,
  deleteUserTagsHandler,
  updatePrivateKeyTagHandler,
  updateUserTagHandler,
} from './tags.js';
import {
  createTvcAppHandler,
  createTvcDeploymentHandler,
  createTvcManifestApprovalsHandler,
} from './tvc.js';
import { updateUserHandler, updateUserNameHandler } from './update-user.js';
import { updateUserEmailHandler, updateUserPhoneNumberHandler } from './update-user-contact.js';
import {
  createWalletAccountsHandler,
  createWalletHandler,
  updateWalletHandler,
} from './wallets.js';
import {
  createWebhookEndpointHandler,
  deleteWebhookEndpointHandler,
  updateWebhookEndpointHandler,
} from './webhook-endpoints.js';

export type {
  ActivityContext,
  ActivityHandler,
  ActivityHandlerMap,
  ActivityResult,
  HandledKind,
  HandlerOf,
  Oauth2Settings,
  OnRampSettings,
  PrecheckSettings,
  ProposalContext,
  ValidatedIntent,
} from './activity-handler.js';

/**
 * Handlers by activity kind (every version of a kind shares one handler), each checked against
 * its kind's intent and result types. APPROVE_ACTIVITY and REJECT_ACTIVITY have none: the
 * activity service records them as votes on their target.
 * @example
 * HANDLERS_BY_KIND.SIGN_TRANSACTION.precheck?.(parameters, definition, settings);
 */
export const HANDLERS_BY_KIND: ActivityHandlerMap = {
  CREATE_USERS: createUsersHandler,
  CREATE_API_ONLY_USERS: createApiOnlyUsersHandler,
  DELETE_USERS: deleteUsersHandler,
  UPDATE_USER: updateUserHandler,
  UPDATE_USER_NAME: updateUserNameHandler,
  CREATE_API_KEYS: createApiKeysHandler,
  DELETE_API_KEYS: deleteApiKeysHandler,
  UPDATE_ROOT_QUORUM: updateRootQuorumHandler,
  UPDATE_ORGANIZATION_NAME: updateOrganizationNameHandler,
  UPDATE_ALLOWED_ORIGINS: updateAllowedOriginsHandler,
  CREATE_AUTHENTICATORS: createAuthenticatorsHandler,
  DELETE_AUTHENTICATORS: deleteAuthenticatorsHandler,
  CREATE_SUB_ORGANIZATION: createSubOrganizationHandler,
  DELETE_SUB_ORGANIZATION: deleteSubOrganizationHandler,
  CREATE_WALLET: createWalletHandler,
  CREATE_WALLET_ACCOUNTS: createWalletAccountsHandler,
  UPDATE_WALLET: updateWalletHandler,
  CREATE_PRIVATE_KEYS: createPrivateKeysHandler,
  SIGN_RAW_PAYLOAD: signRawPayloadHandler,
  SIGN_RAW_PAYLOADS: signRawPayloadsHandler,
  SIGN_TRANSACTION: signTransactionHandler,
  EXPORT_WALLET: exportWalletHandler,
  EXPORT_WALLET_ACCOUNT: exportWalletAccountHandler,
  EXPORT_PRIVATE_KEY: exportPrivateKeyHandler,
  INIT_IMPORT_WALLET: initImportWalletHandler,
  IMPORT_WALLET: importWalletHandler,
  INIT_IMPORT_PRIVATE_KEY: initImportPrivateKeyHandler,
  IMPORT_PRIVATE_KEY: importPrivateKeyHandler,
  DISABLE_PRIVATE_KEY: disablePrivateKeyHandler,
  DELETE_PRIVATE_KEYS: deletePrivateKeysHandler,
  DELETE_WALLETS: deleteWalletsHandler,
  DELETE_WALLET_ACCOUNTS: deleteWalletAccountsHandler,
  CREATE_POLICY: createPolicyHandler,
  CREATE_POLICIES: createPoliciesHandler,
  UPDATE_POLICY: updatePolicyHandler,
  DELETE_POLICY: deletePolicyHandler,
  DELETE_POLICIES: deletePoliciesHandler,
  CREATE_USER_TAG: createUserTagHandler,
  UPDATE_USER_TAG: updateUserTagHandler,
  DELETE_USER_TAGS: deleteUserTagsHandler,
  CREATE_PRIVATE_KEY_TAG: createPrivateKeyTagHandler,
  UPDATE_PRIVATE_KEY_TAG: updatePrivateKeyTagHandler,
  DELETE_PRIVATE_KEY_TAGS: deletePrivateKeyTagsHandler,
  CREATE_WEBHOOK_ENDPOINT: createWebhookEndpointHandler,
  UPDATE_WEBHOOK_ENDPOINT: updateWebhookEndpointHandler,
  DELETE_WEBHOOK_ENDPOINT: deleteWebhookEndpointHandler,
  STAMP_LOGIN: stampLoginHandler,
  CREATE_READ_WRITE_SESSION: createReadWriteSessionHandler,
  CREATE_READ_ONLY_SESSION: createReadOnlySessionHandler,
  INIT_OTP: initOtpHandler,
  VERIFY_OTP: verifyOtpHandler,
  OTP_LOGIN: otpLoginHandler,
  INIT_OTP_AUTH: initOtpAuthHandler,
  OTP_AUTH: otpAuthHandler,
  EMAIL_AUTH: emailAuthHandler,
  INIT_USER_EMAIL_RECOVERY: initUserEmailRecoveryHandler,
  RECOVER_USER: recoverUserHandler,
  UPDATE_USER_EMAIL: updateUserEmailHandler,
  UPDATE_USER_PHONE_NUMBER: updateUserPhoneNumberHandler,
  CREATE_INVITATIONS: createInvitationsHandler,
  ACCEPT_INVITATION: acceptInvitationHandler,
  DELETE_INVITATION: deleteInvitationHandler,
  CREATE_OAUTH2_CREDENTIAL: createOauth2CredentialHandler,
  UPDATE_OAUTH2_CREDENTIAL: updateOauth2CredentialHandler,
  DELETE_OAUTH2_CREDENTIAL: deleteOauth2CredentialHandler,
  OAUTH2_AUTHENTICATE: oauth2AuthenticateHandler,
  CREATE_FIAT_ON_RAMP_CREDENTIAL: createFiatOnRampCredentialHandler,
  UPDATE_FIAT_ON_RAMP_CREDENTIAL: updateFiatOnRampCredentialHandler,
  DELETE_FIAT_ON_RAMP_CREDENTIAL: deleteFiatOnRampCredentialHandler,
  INIT_FIAT_ON_RAMP: initFiatOnRampHandler,
  CREATE_OAUTH_PROVIDERS: createOauthProvidersHandler,
  DELETE_OAUTH_PROVIDERS: deleteOauthProvidersHandler,
  OAUTH_LOGIN: oauthLoginHandler,
  OAUTH: oauthHandler,
  CREATE_SMART_CONTRACT_INTERFACE: createSmartContractInterfaceHandler,
  DELETE_SMART_CONTRACT_INTERFACE: deleteSmartContractInterfaceHandler,
  SET_ORGANIZATION_FEATURE: setOrganizationFeatureHandler,
  REMOVE_ORGANIZATION_FEATURE: removeOrganizationFeatureHandler,
  ENABLE_AUTH_PROXY: enableAuthProxyHandler,
  DISABLE_AUTH_PROXY: disableAuthProxyHandler,
  UPDATE_AUTH_PROXY_CONFIG: updateAuthProxyConfigHandler,
  CREATE_TVC_APP: createTvcAppHandler,
  CREATE_TVC_DEPLOYMENT: createTvcDeploymentHandler,
  CREATE_TVC_MANIFEST_APPROVALS: createTvcManifestApprovalsHandler,
  CREATE_ORGANIZATION: createOrganizationHandler,
  DELETE_ORGANIZATION: deleteOrganizationHandler,
  SET_PAYMENT_METHOD: setPaymentMethodHandler,
  DELETE_PAYMENT_METHOD: deletePaymentMethodHandler,
  ACTIVATE_BILLING_TIER: activateBillingTierHandler,
  ETH_SEND_RAW_TRANSACTION: ethSendRawTransactionHandler,
  ETH_SEND_TRANSACTION: ethSendTransactionHandler,
  SOL_SEND_TRANSACTION: solSendTransactionHandler,
  UPSERT_GAS_USAGE_CONFIG: upsertGasUsageConfigHandler,
};

/**
 * The same handlers looked up by a kind known only at run time (`definition.kind`). Their
 * parameter types are forgotten here, and only here: the service passes `parameters` after
 * `validateIntent(definition.type, …)` has checked them against the schema that
 * `IntentOf<definition.type>` is read from, which is what `HANDLERS_BY_KIND` was checked with.
 * A kind Keyhold does not handle (a vote) has no entry.
 * @example
 * const handler = ACTIVITY_HANDLERS[definition.kind];
 * if (handler) record.result = await handler.execute(ctx, record.parameters);
 */
export const ACTIVITY_HANDLERS: Readonly<Record<string, ActivityHandler>> =
  HANDLERS_BY_KIND as unknown as Readonly<Record<string, ActivityHandler>>;
