/**
 * Test records for this package's tests: the Store contract's record builders, re-exported.
 * @module
 */
export {
  account,
  activity,
  activityId,
  apiKey,
  authenticator,
  fresh,
  organization,
  policy,
  policyEvaluation,
  privateKey,
  tag,
  user,
  wallet,
  webhookDelivery,
  webhookEndpoint,
} from '@keyhold/conformance/store';
