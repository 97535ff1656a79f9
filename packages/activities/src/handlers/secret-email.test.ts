/**
 * The emails that carry a credential bundle or an invitation key: subject and wording per
 * purpose, the default sender name, every customization field (sender address and name,
 * reply-to, logo, magic link with the URL-encoded secret, template variables), HTML escaping of
 * what the request supplies, and the catalogue's refusal of bad template variables.
 */
import { isKeyholdError } from '@keyhold/protocol';
import { describe, expect, it } from 'vitest';
import { renderSecretEmail } from './secret-email.js';

const base = { to: 'a@example.com', secret: 'bundle+/=', expiresInSeconds: 900 };

describe('renderSecretEmail', () => {
  it('email auth without customization: the default app name and sender, the secret in both bodies', () => {
    const m = renderSecretEmail({ ...base, purpose: 'email-auth' });
    expect(m).toMatchObject({
      channel: 'email',
      to: 'a@example.com',
      subject: 'Sign in to Keyhold',
      fromName: 'Notifications',
    });
    expect(m.text).toContain('Credential bundle: bundle+/=');
    expect(m.text).toContain('expires in 15 minutes');
    expect(m.html).toContain('bundle+/=');
    expect(m.fromAddress).toBeUndefined();
    expect(m.replyTo).toBeUndefined();
  });

  it('honours app name, logo, magic link, template variables, sender and reply-to, escaped', () => {
    const m = renderSecretEmail({
      ...base,
      purpose: 'recovery',
      emailCustomization: {
        appName: 'A<b>',
        logoUrl: 'https://acme.test/logo.png?a=1&b=2',
        magicLinkTemplate: 'https://acme.test/recover?bundle=%s',
        templateVariables: '{"greeting":"<hi>"}',
      },
      sendFromEmailAddress: 'help@acme.test',
      sendFromEmailSenderName: 'Acme',
      replyToEmailAddress: 'support@acme.test',
    });
    expect(m.subject).toBe('Recover your A<b> account');
    expect(m).toMatchObject({
      fromAddress: 'help@acme.test',
      fromName: 'Acme',
      replyTo: 'support@acme.test',
    });
    expect(m.text).toContain('https://acme.test/recover?bundle=bundle%2B%2F%3D');
    expect(m.text).toContain('Recovery bundle: bundle+/=');
    expect(m.html).toContain('src="https://acme.test/logo.png?a=1&#38;b=2"');
    expect(m.html).toContain('href="https://acme.test/recover?bundle=bundle%2B%2F%3D"');
    expect(m.html).toContain('A&#60;b&#62;');
    expect(m.html).not.toContain('A<b>');
    expect(m.html).toContain('<p data-variable="greeting">&#60;hi&#62;</p>');
  });

  it('an invitation names the organization and carries its details', () => {
    const m = renderSecretEmail({
      ...base,
      purpose: 'invitation',
      organizationName: 'Acme <Ops>',
      details: ['Invitation id: 1', 'User id: 2'],
    });
    expect(m.subject).toBe('You are invited to Acme <Ops>');
    expect(m.text).toContain('Invitation key: bundle+/=');
    expect(m.text).toContain('Invitation id: 1\n\nUser id: 2');
    expect(m.html).toContain('Acme &#60;Ops&#62;');
  });

  it('refuses template variables that are not a JSON object of strings', () => {
    for (const templateVariables of ['{bad', '[]', '{"n":1}']) {
      let refusal: unknown;
      try {
        renderSecretEmail({
          ...base,
          purpose: 'email-auth',
          emailCustomization: { templateVariables },
        });
      } catch (error) {
        refusal = error;
      }
      expect(isKeyholdError(refusal) && refusal.key).toBe('INVALID_TEMPLATE_VARIABLES');
    }
  });
});
