/**
 * @keyhold/oauth2-http — the Oauth2Gateway port over HTTPS.
 * @module
 */
export {
  DEFAULT_OAUTH2_ENDPOINTS,
  HttpOauth2Gateway,
  type HttpOauth2GatewayOptions,
  type Oauth2ProviderEndpoints,
  oauth2ProviderOf,
  parseOauth2EndpointUrl,
} from './http-oauth2-gateway.js';
