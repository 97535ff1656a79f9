/**
 * @keyhold/onramp-moonpay — the OnRampProvider port of `@keyhold/activities` for MoonPay: the
 * buy widget's URL with MoonPay's parameters, signed as MoonPay documents.
 * @module
 */
export {
  MOONPAY_BUY_ORIGINS,
  moonPayOnRampProvider,
  moonPayWidgetUrl,
} from './moonpay-on-ramp-provider.js';
export { moonPayUrlSignature, signMoonPayUrl } from './moonpay-url-signature.js';
