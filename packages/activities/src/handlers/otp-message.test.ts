/**
 * The OTP message: the spec's subject and default sender name, the customization fields
 * (sender, reply-to, logo, magic link, template variables, SMS template), HTML escaping of
 * what the request supplies, and the catalogue's refusal of bad template variables.
 */
import { isKeyholdError } from '@keyhold/protocol';
import { describe, expect, it } from 'vitest';
import { renderOtpMessage } from './otp-message.js';

const base = { contact: 'a@example.com', code: '123456', expiresInSeconds: 300 };

describe('renderOtpMessage', () => {
  it('an email: subject, default sender name, code in both bodies', () => {
    const m = renderOtpMessage({ ...base, otpType: 'OTP_TYPE_EMAIL', appName: 'Acme' });
    expect(m).toMatchObject({
      channel: 'email',
      to: 'a@example.com',
      subject: 'Sign in to Acme',
      fromName: 'Notifications',
    });
    if (m.channel !== 'email') throw new Error('expected an email');
    expect(m.text).toContain('Your Acme sign-in code is 123456');
    expect(m.text).toContain('expires in 5 minutes');
    expect(m.html).toContain('<strong>123456</strong>');
    expect(m.fromAddress).toBeUndefined();
    expect(m.replyTo).toBeUndefined();
  });

  it('honours sender, reply-to, logo, magic link and template variables, escaped', () => {
    const m = renderOtpMessage({
      ...base,
      otpType: 'OTP_TYPE_EMAIL',
      emailCustomization: {
        appName: 'A<b>',
        logoUrl: 'https://acme.test/logo.png?a=1&b=2',
        magicLinkTemplate: 'https://acme.test/login?code=%s',
        templateVariables: '{"greeting":"<hi>"}',
      },
      sendFromEmailAddress: 'login@acme.test',
      sendFromEmailSenderName: 'Acme',
      replyToEmailAddress: 'help@acme.test',
    });
    if (m.channel !== 'email') throw new Error('expected an email');
    expect(m).toMatchObject({
      subject: 'Sign in to A<b>',
      fromName: 'Acme',
      fromAddress: 'login@acme.test',
      replyTo: 'help@acme.test',
    });
    expect(m.html).toContain('src="https://acme.test/logo.png?a=1&#38;b=2"');
    expect(m.html).toContain('href="https://acme.test/login?code=123456"');
    expect(m.html).toContain('A&#60;b&#62;');
    expect(m.html).toContain('&#60;hi&#62;');
    expect(m.html).not.toContain('<hi>');
    expect(m.text).toContain('https://acme.test/login?code=123456');
  });

  it('an SMS through its template', () => {
    expect(
      renderOtpMessage({
        ...base,
        otpType: 'OTP_TYPE_SMS',
        contact: '+15555550100',
        appName: 'Acme',
        smsCustomization: {
          template: 'Code {{.OtpCode}} for {{ .AppName }} {{ index .TemplateVariables "x" }}',
        },
        emailCustomization: { templateVariables: '{"x":"!"}' },
      }),
    ).toEqual({ channel: 'sms', to: '+15555550100', text: 'Code 123456 for Acme !' });
    expect(
      renderOtpMessage({ ...base, otpType: 'OTP_TYPE_SMS', contact: '+1555', appName: 'Acme' }),
    ).toMatchObject({ text: 'Your Acme code is 123456' });
  });

  it.each(['{bad', '[]', '{"n":1}'])('refuses template variables %s', (templateVariables) => {
    try {
      renderOtpMessage({
        ...base,
        otpType: 'OTP_TYPE_EMAIL',
        emailCustomization: { templateVariables },
      });
      throw new Error('expected a refusal');
    } catch (error) {
      expect(isKeyholdError(error) && error.key).toBe('INVALID_TEMPLATE_VARIABLES');
    }
  });
});
