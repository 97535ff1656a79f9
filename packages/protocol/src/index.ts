/**
 * @keyhold/protocol — the wire protocol: enums, activity catalogue, JSON Schemas, the Status
 * error model and the message catalogue, and the RequestHandler port HTTP adapters use.
 * @module
 */

export * from './activity-catalogue.js';
export * from './enums.js';
export * from './keyhold-error.js';
export * from './messages.js';
export * from './request-handler.js';
export type {
  IntentOf,
  IntentOfKind,
  KindOf,
  QueryName,
  QueryOf,
  ServedActivityType,
  ServedKind,
  TypesOfKind,
  VoteKind,
} from './schemas/intent-types.js';
export { INTENT_SCHEMAS, WEBHOOK_EVENT_TYPES } from './schemas/intents.js';
export { QUERY_SCHEMAS, SUB_ORG_FILTER_TYPES } from './schemas/queries.js';
export type { Infer, JsonSchema, Schema } from './schemas/schema-builders.js';
export type { AccountParams, ApiKeyParams } from './schemas/shapes.js';
export * from './status-code.js';
export * from './validate.js';
export * from './wire-types.js';
