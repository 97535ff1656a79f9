/**
 * The emails that carry a secret other than a one-time code: EMAIL_AUTH's credential bundle
 * (the magic link), INIT_USER_EMAIL_RECOVERY's recovery bundle, and an invitation's key.
 * Rendered from the request's customization (identity-and-payments §B2): `appName` in the
 * subject and body, `logoUrl`, `magicLinkTemplate` (`%s` is the secret, URL-encoded),
 * `templateVariables` (a JSON object of strings, each shown in the HTML body), the sender name
 * (default "Notifications") and address, and the reply-to. Everything from the request is
 * HTML-escaped in the HTML body. The secret appears only in the message, never in a result
 * or a log line.
 * @module
 */
import type { EmailMessage } from '../ports/notifier.js';
import { DEFAULT_SENDER_NAME, escapeHtml, parseTemplateVariables } from './otp-message.js';

/** Why the mail is sent: its subject and wording. */
export type SecretEmailPurpose = 'email-auth' | 'recovery' | 'invitation';

/** What shapes a secret-carrying email, from the intent. */
export interface SecretEmailRequest {
  readonly purpose: SecretEmailPurpose;
  readonly to: string;
  /** The credential bundle or invitation key. */
  readonly secret: string;
  readonly expiresInSeconds: number;
  /** For an invitation: the organization the invitee joins. */
  readonly organizationName?: string;
  /** Lines shown under the secret (an invitation's id and user id). */
  readonly details?: readonly string[];
  readonly emailCustomization?: {
    readonly appName?: string;
    readonly logoUrl?: string;
    readonly magicLinkTemplate?: string;
    readonly templateVariables?: string;
  };
  readonly sendFromEmailAddress?: string;
  readonly sendFromEmailSenderName?: string;
  readonly replyToEmailAddress?: string;
}

const WORDING: Record<
  SecretEmailPurpose,
  {
    subject: (app: string, org?: string) => string;
    intro: (app: string, org?: string) => string;
    label: string;
    action: string;
  }
> = {
  'email-auth': {
    subject: (app) => `Sign in to ${app}`,
    intro: (app) => `Here is your ${app} sign-in credential.`,
    label: 'Credential bundle',
    action: 'Sign in to',
  },
  recovery: {
    subject: (app) => `Recover your ${app} account`,
    intro: (app) => `Here is the credential that recovers your ${app} account.`,
    label: 'Recovery bundle',
    action: 'Recover your account at',
  },
  invitation: {
    subject: (app, org) => `You are invited to ${org ?? app}`,
    intro: (app, org) => `You are invited to join ${org ?? app} on ${app}.`,
    label: 'Invitation key',
    action: 'Accept the invitation at',
  },
};

/**
 * The email for one secret.
 * @throws KeyholdError INVALID_TEMPLATE_VARIABLES when `templateVariables` is not a JSON object of strings
 * @example
 * const mail = renderSecretEmail({ purpose: 'email-auth', to: 'a@example.com', secret: bundle, expiresInSeconds: 900 });
 */
export function renderSecretEmail(request: SecretEmailRequest): EmailMessage {
  const custom = request.emailCustomization ?? {};
  const appName = custom.appName || 'Keyhold';
  const variables = parseTemplateVariables(custom.templateVariables);
  const wording = WORDING[request.purpose];
  const minutes = Math.max(1, Math.round(request.expiresInSeconds / 60));
  const expiry = `It expires in ${minutes} minute${minutes === 1 ? '' : 's'}. If you did not ask for it, ignore this email.`;
  const link = custom.magicLinkTemplate?.replace('%s', encodeURIComponent(request.secret));
  const intro = wording.intro(appName, request.organizationName);
  const details = request.details ?? [];
  const text = [
    intro,
    ...(link ? [`${wording.action} ${appName}: ${link}`] : []),
    `${wording.label}: ${request.secret}`,
    ...details,
    expiry,
  ].join('\n\n');
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif">',
    ...(custom.logoUrl
      ? [`<img src="${escapeHtml(custom.logoUrl)}" alt="${escapeHtml(appName)}" height="48">`]
      : []),
    `<p>${escapeHtml(intro)}</p>`,
    ...(link
      ? [`<p><a href="${escapeHtml(link)}">${wording.action} ${escapeHtml(appName)}</a></p>`]
      : []),
    `<p>${wording.label}:</p>`,
    `<p style="font-family:monospace;word-break:break-all">${escapeHtml(request.secret)}</p>`,
    ...details.map((line) => `<p>${escapeHtml(line)}</p>`),
    `<p>${escapeHtml(expiry)}</p>`,
    ...Object.entries(variables).map(
      ([key, value]) => `<p data-variable="${escapeHtml(key)}">${escapeHtml(value)}</p>`,
    ),
    '</body></html>',
  ].join('\n');
  return {
    channel: 'email',
    to: request.to,
    subject: wording.subject(appName, request.organizationName),
    text,
    html,
    fromName: request.sendFromEmailSenderName ?? DEFAULT_SENDER_NAME,
    ...(request.sendFromEmailAddress ? { fromAddress: request.sendFromEmailAddress } : {}),
    ...(request.replyToEmailAddress ? { replyTo: request.replyToEmailAddress } : {}),
  };
}
