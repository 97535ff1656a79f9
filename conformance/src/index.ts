/**
 * @keyhold/conformance — the vendor conformance suite: fast-check properties that any
 * implementation of the public API must satisfy, run against a target (over HTTP, or an
 * in-process `handle()`); and the KeyVault contract, the checks any KeyVault adapter must pass
 * (also importable alone from `@keyhold/conformance/key-vault`).
 * @module
 */
export {
  ConformanceClient,
  decodeStamp,
  encodeStamp,
  freshTimestampMs,
  parseJson,
  QUERY_PREFIX,
  STAMP_HEADER,
  SUBMIT_PREFIX,
  type Submitted,
  stampBytes,
  UnexpectedResponseError,
} from './client.js';
export { type ConnectionFailure, connectionFailure } from './connection-failure.js';
export {
  ABANDON_ACCOUNTS,
  ABANDON_MNEMONIC,
  BIP86_VECTOR,
  type EcdsaVector,
  type Ed25519Vector,
  KEY_ORIGINS,
  type KeyOrigin,
  type KeyOriginTraits,
  type KeyVaultCapabilities,
  type KeyVaultCheck,
  type KeyVaultCheckFailure,
  type KeyVaultContractOptions,
  type KnownAccount,
  keyVaultContract,
  RFC6979_VECTORS,
  RFC8032_VECTORS,
  runKeyVaultChecks,
} from './key-vault/index.js';
export {
  type PasskeyAlgorithm,
  type PasskeyRegistration,
  SoftwarePasskey,
  type SoftwarePasskeyOptions,
  stampChallengeOf,
  WEBAUTHN_STAMP_HEADER,
  type WebauthnAssertion,
} from './passkey/software-passkey.js';
export { NO_ACTIVITY_WITH_FINGERPRINT } from './properties/consensus-flows.js';
export {
  conformanceProperties,
  consensusFlows,
  malformedBodies4xx,
  passkeyStamps,
  queriesWork,
  sameBodySameActivity,
  signaturesVerify,
  tamperedRequests401,
} from './properties/index.js';
export {
  BAD_REQUEST_BODY,
  MALFORMED_ORGANIZATION_ID,
  ORGANIZATION_NOT_FOUND,
} from './properties/malformed-bodies-4xx.js';
export {
  WEBAUTHN_AUTHENTICATOR_NOT_FOUND_MESSAGE,
  WEBAUTHN_SIGNATURE_INVALID_MESSAGE,
} from './properties/passkey-stamps.js';
export { fingerprintOf } from './properties/same-body-same-activity.js';
export { STAMP_MISSING_MESSAGE } from './properties/tampered-requests-401.js';
export {
  COSTLY_CONDITION,
  FAIRNESS_BOUND_MS,
  type FairnessFigures,
  type FairnessOptions,
  FLOOD_KINDS,
  type FloodKind,
  type LatencySummary,
  measureFairness,
  tenantFairness,
} from './properties/tenant-fairness.js';
export {
  type ConformanceProperty,
  DEFAULT_NUM_RUNS,
  fcParameters,
  type PropertyOptions,
} from './property.js';
export { jsonReport, junitReport } from './report-formats.js';
export {
  type ConformanceReport,
  type PropertyResult,
  type RunAgainstOptions,
  type RunConformanceOptions,
  runConformance,
  runConformanceAgainst,
} from './run-conformance.js';
export {
  expectStatusRefusal,
  HTTP_STATUS_OF_CODE,
  type StatusBody,
  type StatusExpectation,
} from './status-body.js';
export { subOrganizationTarget } from './sub-organization-target.js';
export {
  apiPublicKeyOf,
  type ConformanceTarget,
  type HandlerTargetOptions,
  type HttpTargetOptions,
  handlerTarget,
  httpTarget,
  type TargetResponse,
} from './target.js';
export {
  type AppProofClaims,
  type AppProofLike,
  type BootProofLike,
  type BootStatementClaims,
  ProofVerificationError,
  verifyKeyholdAppProof,
  verifyKeyholdBootProof,
} from './verify-proofs.js';
export {
  digestOf,
  eip55,
  ethereumAddressOf,
  publicKeyOfAddress,
  type RawSignature,
  type SignedPayload,
  type SigningCurve,
  verifyRawPayloadSignature,
} from './verify-signature.js';
