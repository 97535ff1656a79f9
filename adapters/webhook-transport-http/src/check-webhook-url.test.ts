import { describe, expect, it } from 'vitest';
import { checkWebhookUrl } from './check-webhook-url.js';

const dev = { allowHttp: true, allowPrivateAddresses: true };

describe('checkWebhookUrl', () => {
  it.each([
    'https://hooks.example.com/keyhold',
    'https://hooks.example.com:8443/a?token=x',
    'https://8.8.8.8/hook',
    'https://[2606:4700::1]/hook',
  ])('accepts %s in production', (url) => {
    expect(checkWebhookUrl(url)).toBeUndefined();
  });

  it.each([
    ['not a url', 'webhook URL is not a valid URL'],
    [`https://e.com/${'a'.repeat(2048)}`, 'webhook URL must be at most 2048 characters'],
    ['http://hooks.example.com/', 'webhook URL must use https'],
    ['ftp://hooks.example.com/', 'webhook URL must use https'],
    ['javascript:alert(1)', 'webhook URL must use https'],
    ['https://user:pw@hooks.example.com/', 'webhook URL must not contain credentials'],
    ['https://localhost/', 'webhook URL points to a private address (loopback)'],
    ['https://api.localhost./', 'webhook URL points to a private address (loopback)'],
    ['https://127.0.0.1/', 'webhook URL points to a private address (loopback)'],
    ['https://2130706433/', 'webhook URL points to a private address (loopback)'],
    ['https://0x7f.1/', 'webhook URL points to a private address (loopback)'],
    ['https://10.0.0.5/', 'webhook URL points to a private address (private)'],
    ['https://169.254.169.254/latest', 'webhook URL points to a private address (link-local)'],
    ['https://[::1]/', 'webhook URL points to a private address (loopback)'],
    ['https://[::ffff:192.168.0.1]/', 'webhook URL points to a private address (private)'],
    ['https://[fd00::1]/', 'webhook URL points to a private address (unique-local)'],
    ['https://0.0.0.0/', 'webhook URL points to a private address (this network / unspecified)'],
  ])('refuses %s in production', (url, reason) => {
    expect(checkWebhookUrl(url)).toBe(reason);
  });

  it('accepts http only for localhost and 127.0.0.1 in development', () => {
    expect(checkWebhookUrl('http://localhost:3000/hook', dev)).toBeUndefined();
    expect(checkWebhookUrl('http://127.0.0.1:8080/', dev)).toBeUndefined();
    expect(checkWebhookUrl('https://10.0.0.5/', dev)).toBeUndefined();
    expect(checkWebhookUrl('http://10.0.0.5/', dev)).toBe(
      'webhook URL must use https (http only for localhost and 127.0.0.1)',
    );
    expect(checkWebhookUrl('http://hooks.example.com/', dev)).toBe(
      'webhook URL must use https (http only for localhost and 127.0.0.1)',
    );
    // allowHttp without allowPrivateAddresses still refuses the loopback host
    expect(checkWebhookUrl('http://localhost/', { allowHttp: true })).toBe(
      'webhook URL points to a private address (loopback)',
    );
  });
});
