/**
 * The message that carries a one-time code, rendered from the request's customization
 * (identity-and-payments §B2, §B6): the subject `Sign in to <appName>`, the sender name
 * (default "Notifications"), sender address and reply-to, the logo, a magic link (`%s` is the
 * code) and template variables. SMS templates take `{{.OtpCode}}`, `{{.AppName}}` and
 * `{{ index .TemplateVariables "key" }}` as Turnkey's do; the default email uses the same
 * variables. Everything from the request is HTML-escaped in the HTML body.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import type { EmailMessage, NotifierMessage } from '../ports/notifier.js';

/** What shapes an OTP message, from the intent. */
export interface OtpMessageRequest {
  readonly otpType: 'OTP_TYPE_EMAIL' | 'OTP_TYPE_SMS';
  readonly contact: string;
  readonly code: string;
  readonly expiresInSeconds: number;
  readonly appName?: string;
  readonly emailCustomization?: {
    readonly appName?: string;
    readonly logoUrl?: string;
    readonly magicLinkTemplate?: string;
    readonly templateVariables?: string;
  };
  readonly smsCustomization?: { readonly template?: string };
  readonly sendFromEmailAddress?: string;
  readonly sendFromEmailSenderName?: string;
  readonly replyToEmailAddress?: string;
}

/** The sender name when the request names none. */
export const DEFAULT_SENDER_NAME = 'Notifications';

/**
 * The template variables of `emailCustomization.templateVariables`: a JSON object of strings.
 * @throws KeyholdError INVALID_TEMPLATE_VARIABLES otherwise
 */
export function parseTemplateVariables(json: string | undefined): Record<string, string> {
  if (json === undefined || json === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new KeyholdError('INVALID_TEMPLATE_VARIABLES', { reason: 'not JSON' });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new KeyholdError('INVALID_TEMPLATE_VARIABLES', { reason: 'not a JSON object' });
  }
  const variables: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') {
      throw new KeyholdError('INVALID_TEMPLATE_VARIABLES', { reason: `${key} is not a string` });
    }
    variables[key] = value;
  }
  return variables;
}

/** Text safe inside HTML text and attribute values. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Fills `{{.OtpCode}}`, `{{.AppName}}` and `{{ index .TemplateVariables "key" }}` (text). */
function fill(
  template: string,
  values: { code: string; appName: string; variables: Record<string, string> },
): string {
  return template
    .replace(/\{\{\s*\.OtpCode\s*\}\}/g, () => values.code)
    .replace(/\{\{\s*\.AppName\s*\}\}/g, () => values.appName)
    .replace(
      /\{\{\s*index\s+\.TemplateVariables\s+"([^"]*)"\s*\}\}/g,
      (_, key: string) => values.variables[key] ?? '',
    );
}

/** The message for one code. */
export function renderOtpMessage(request: OtpMessageRequest): NotifierMessage {
  const appName = request.appName ?? request.emailCustomization?.appName ?? 'Keyhold';
  const variables = parseTemplateVariables(request.emailCustomization?.templateVariables);
  const values = { code: request.code, appName, variables };
  const minutes = Math.max(1, Math.round(request.expiresInSeconds / 60));
  if (request.otpType === 'OTP_TYPE_SMS') {
    const template = request.smsCustomization?.template ?? 'Your {{.AppName}} code is {{.OtpCode}}';
    return { channel: 'sms', to: request.contact, text: fill(template, values) };
  }
  const custom = request.emailCustomization ?? {};
  const link = custom.magicLinkTemplate?.replace('%s', encodeURIComponent(request.code));
  const textLines = [
    `Your ${appName} sign-in code is ${request.code}`,
    `It expires in ${minutes} minute${minutes === 1 ? '' : 's'}. If you did not ask for it, ignore this email.`,
    ...(link ? [`Or sign in with this link: ${link}`] : []),
  ];
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif">',
    ...(custom.logoUrl
      ? [`<img src="${escapeHtml(custom.logoUrl)}" alt="${escapeHtml(appName)}" height="48">`]
      : []),
    `<p>Your ${escapeHtml(appName)} sign-in code is</p>`,
    `<p style="font-size:28px;letter-spacing:4px"><strong>${escapeHtml(request.code)}</strong></p>`,
    `<p>It expires in ${minutes} minute${minutes === 1 ? '' : 's'}. If you did not ask for it, ignore this email.</p>`,
    ...(link ? [`<p><a href="${escapeHtml(link)}">Sign in to ${escapeHtml(appName)}</a></p>`] : []),
    ...Object.entries(variables).map(
      ([key, value]) => `<p data-variable="${escapeHtml(key)}">${escapeHtml(value)}</p>`,
    ),
    '</body></html>',
  ].join('\n');
  const email: EmailMessage = {
    channel: 'email',
    to: request.contact,
    subject: `Sign in to ${appName}`,
    text: textLines.join('\n\n'),
    html,
    fromName: request.sendFromEmailSenderName ?? DEFAULT_SENDER_NAME,
    ...(request.sendFromEmailAddress ? { fromAddress: request.sendFromEmailAddress } : {}),
    ...(request.replyToEmailAddress ? { replyTo: request.replyToEmailAddress } : {}),
  };
  return email;
}
