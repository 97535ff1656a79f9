/**
 * `@keyhold/notifier-smtp`: the Notifier port over SMTP (nodemailer).
 * @module
 */
export { parseSmtpUrl, type SmtpNotifierOptions, smtpNotifier } from './smtp-notifier.js';
