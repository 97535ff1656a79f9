/**
 * Every conformance property, in the order reports list them.
 * @module
 */
import type { ConformanceProperty } from '../property.js';
import { consensusFlows } from './consensus-flows.js';
import { malformedBodies4xx } from './malformed-bodies-4xx.js';
import { passkeyStamps } from './passkey-stamps.js';
import { queriesWork } from './queries-work.js';
import { sameBodySameActivity } from './same-body-same-activity.js';
import { signaturesVerify } from './signatures-verify.js';
import { tamperedRequests401 } from './tampered-requests-401.js';

export {
  consensusFlows,
  malformedBodies4xx,
  passkeyStamps,
  queriesWork,
  sameBodySameActivity,
  signaturesVerify,
  tamperedRequests401,
};

/** The suite. Test runners register each as its own test; `runConformance` runs them all. */
export const conformanceProperties: readonly ConformanceProperty[] = [
  queriesWork,
  signaturesVerify,
  sameBodySameActivity,
  tamperedRequests401,
  passkeyStamps,
  malformedBodies4xx,
  consensusFlows,
];
