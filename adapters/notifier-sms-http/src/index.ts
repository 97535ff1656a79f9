/**
 * `@keyhold/notifier-sms-http`: the Notifier port over an HTTP SMS gateway.
 * @module
 */
export {
  type HttpSmsNotifierOptions,
  httpSmsNotifier,
  parseSmsGatewayUrl,
} from './http-sms-notifier.js';
