/**
 * The payment gateway's routes as OpenAPI 3.1 path items (relative to `{pay_url}`), for the
 * server's `/openapi.json` when the gateway is mounted beside it. Kept beside the gateway's
 * router (./pay-gateway.ts, whose table they mirror); a test checks each against it.
 * @module
 */
import { PAY_NETWORKS } from './pay-networks.js';

const network = {
  name: 'network',
  in: 'path',
  required: true,
  schema: { type: 'string', enum: Object.keys(PAY_NETWORKS) },
};
const idParameter = (name: string) => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string' },
});
const json = (description: string) => ({
  description,
  content: { 'application/json': { schema: { type: 'object' } } },
});
const refusal = json('a refusal: the fixed error body `{error, message, ...}` of the gateway');
const body = {
  required: true,
  content: { 'application/json': { schema: { type: 'object' } } },
};
const STAMPED = [{ apiKeyStamp: [] }];

/**
 * The gateway's operations by path (relative to where it is mounted).
 * @example
 * Object.keys(PAY_OPENAPI_PATHS); // ['/ready', '/{network}/supported', …]
 */
export const PAY_OPENAPI_PATHS: Readonly<Record<string, Record<string, Record<string, unknown>>>> =
  {
    '/ready': {
      get: {
        operationId: 'pay_ready',
        summary: 'Readiness of the payment gateway (its store and chains)',
        tags: ['payments'],
        responses: { '200': json('ready'), '503': refusal },
      },
    },
    '/{network}/supported': {
      get: {
        operationId: 'pay_supported',
        summary: 'x402: the payment kinds this facilitator supports',
        tags: ['payments'],
        parameters: [network],
        responses: { '200': json('the supported kinds'), '400': refusal },
      },
    },
    '/{network}/verify': {
      post: {
        operationId: 'pay_verify',
        summary: 'x402: verify a payment payload against its requirements',
        tags: ['payments'],
        parameters: [network],
        requestBody: body,
        responses: { '200': json('the verification'), '400': refusal },
      },
    },
    '/{network}/settle': {
      post: {
        operationId: 'pay_settle',
        summary: "x402: settle a payment payload on chain (the operator's organization)",
        tags: ['payments'],
        parameters: [network],
        requestBody: body,
        responses: { '200': json('the settlement'), '400': refusal, '503': refusal },
      },
    },
    '/{network}/v1/settlements/charge': {
      post: {
        operationId: 'pay_charge',
        summary: 'Settle a payment to an address of the stamping organization',
        tags: ['payments'],
        security: STAMPED,
        parameters: [network],
        requestBody: body,
        responses: { '200': json('the settlement'), '400': refusal, '401': refusal },
      },
    },
    '/{network}/v1/payments/{paymentId}': {
      get: {
        operationId: 'pay_payment',
        summary: "A payment of the operator's organization",
        tags: ['payments'],
        parameters: [network, idParameter('paymentId')],
        responses: { '200': json('the payment'), '404': refusal },
      },
    },
    '/{network}/v1/organizations/{organizationId}/payments': {
      get: {
        operationId: 'pay_organization_payments',
        summary: "An organization's payments (stamped by one of its users)",
        tags: ['payments'],
        security: STAMPED,
        parameters: [network, idParameter('organizationId')],
        responses: { '200': json('the payments'), '401': refusal },
      },
    },
    '/{network}/v1/organizations/{organizationId}/payments/{paymentId}': {
      get: {
        operationId: 'pay_organization_payment',
        summary: "One of an organization's payments (stamped by one of its users)",
        tags: ['payments'],
        security: STAMPED,
        parameters: [network, idParameter('organizationId'), idParameter('paymentId')],
        responses: { '200': json('the payment'), '401': refusal, '404': refusal },
      },
    },
  };
