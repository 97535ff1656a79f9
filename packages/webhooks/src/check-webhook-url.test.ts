import { describe, expect, it } from 'vitest';
import { checkWebhookUrl } from './check-webhook-url.js';

const priv = { allowPrivateAddresses: true };

describe('checkWebhookUrl', () => {
  it.each([
    'https://hooks.example.com/keyhold',
    'https://hooks.example.com:8443/a?token=x',
    'https://HOOKS.Example.com./x',
    'https://8.8.8.8/hook',
    'https://[2606:4700::1]/hook',
    'https://[::ffff:8.8.8.8]/hook',
  ])('accepts %s in every mode', (url) => {
    expect(checkWebhookUrl(url)).toBeUndefined();
    expect(checkWebhookUrl(url, priv)).toBeUndefined();
  });

  // Every URL here can never be delivered to without private destinations allowed.
  it.each([
    ['not a url', 'not an absolute URL'],
    ['hooks.example.com/keyhold', 'not an absolute URL'],
    ['', 'not an absolute URL'],
    [`https://e.com/${'a'.repeat(2048)}`, 'longer than 2048 characters'],
    ['https://user:pw@hooks.example.com/', 'credentials in the URL are not accepted'],
    ['https://token@hooks.example.com/', 'credentials in the URL are not accepted'],
    ['https://:pw@hooks.example.com/', 'credentials in the URL are not accepted'],
    ['http://hooks.example.com/', 'http:// is not accepted: use https://'],
    ['http://127.0.0.1:8080/hook', 'http:// is not accepted: use https://'],
    ['http://localhost:8080/hook', 'http:// is not accepted: use https://'],
    ['ftp://hooks.example.com/', 'scheme ftp: is not accepted: use https://'],
    ['javascript:alert(1)', 'scheme javascript: is not accepted: use https://'],
    ['file:///etc/passwd', 'scheme file: is not accepted: use https://'],
    ['https://127.0.0.1/', 'host 127.0.0.1 is not a public address (loopback)'],
    ['https://127.1:8443/', 'host 127.0.0.1 is not a public address (loopback)'],
    ['https://0x7f.1/', 'host 127.0.0.1 is not a public address (loopback)'],
    ['https://2130706433/', 'host 127.0.0.1 is not a public address (loopback)'],
    ['https://0177.0.0.1/', 'host 127.0.0.1 is not a public address (loopback)'],
    ['https://127.0.0.1./', 'host 127.0.0.1 is not a public address (loopback)'],
    ['https://[::1]:8443/', 'host [::1] is not a public address (loopback)'],
    ['https://[0:0:0:0:0:0:0:1]/', 'host [::1] is not a public address (loopback)'],
    ['https://[::ffff:127.0.0.1]/', 'host [::ffff:7f00:1] is not a public address (loopback)'],
    ['https://[::ffff:192.168.0.1]/', 'host [::ffff:c0a8:1] is not a public address (private)'],
    ['https://10.0.0.5/', 'host 10.0.0.5 is not a public address (private)'],
    ['https://172.16.3.4/', 'host 172.16.3.4 is not a public address (private)'],
    ['https://192.168.1.1/', 'host 192.168.1.1 is not a public address (private)'],
    ['https://100.64.0.1/', 'host 100.64.0.1 is not a public address (carrier-grade NAT)'],
    ['https://169.254.169.254/latest', 'host 169.254.169.254 is not a public address (link-local)'],
    ['https://[fe80::1]/', 'host [fe80::1] is not a public address (link-local)'],
    ['https://[fd00::1]/', 'host [fd00::1] is not a public address (unique-local)'],
    ['https://192.0.2.7/', 'host 192.0.2.7 is not a public address (documentation)'],
    ['https://0/', 'host 0.0.0.0 can never receive a delivery (this network / unspecified)'],
    ['https://0.0.0.0/', 'host 0.0.0.0 can never receive a delivery (this network / unspecified)'],
    ['https://[::]/', 'host [::] can never receive a delivery (unspecified)'],
    ['https://224.0.0.1/', 'host 224.0.0.1 can never receive a delivery (multicast)'],
    ['https://[ff02::1]/', 'host [ff02::1] can never receive a delivery (multicast)'],
    [
      'https://255.255.255.255/',
      'host 255.255.255.255 can never receive a delivery (reserved / broadcast)',
    ],
    ['https://localhost/', 'host localhost is a local name, not a public one'],
    ['https://LocalHost.:8443/', 'host localhost is a local name, not a public one'],
    ['https://api.localhost/', 'host api.localhost is a local name, not a public one'],
    ['https://printer.local/', 'host printer.local is a local name, not a public one'],
    [
      'https://metadata.google.internal/',
      'host metadata.google.internal is a local name, not a public one',
    ],
    ['https://receiver:8443/', 'host receiver is a local name, not a public one'],
  ])('refuses %s', (url, reason) => {
    expect(checkWebhookUrl(url)).toBe(reason);
  });

  it('with private destinations allowed: private hosts, local names, and http to loopback only', () => {
    for (const url of [
      'https://127.1:8443/',
      'https://[::1]:8443/',
      'https://10.0.0.5/',
      'https://[fd00::1]/',
      'https://169.254.169.254/',
      'https://localhost/',
      'https://receiver:8443/',
      'https://printer.local/',
      'https://api.internal/',
      'http://localhost:3000/hook',
      'http://api.localhost/hook',
      'http://127.0.0.1:8080/',
      'http://127.1:8080/',
      'http://[::1]:8080/',
      'http://[::ffff:127.0.0.1]:8080/',
      'http://receiver:8080/',
    ]) {
      expect([url, checkWebhookUrl(url, priv)]).toEqual([url, undefined]);
    }
    for (const url of ['http://10.0.0.5/', 'http://hooks.example.com/', 'http://printer.local/']) {
      expect(checkWebhookUrl(url, priv)).toBe(
        'http:// is accepted only for loopback hosts: use https://',
      );
    }
    // Never deliverable, whatever is allowed.
    expect(checkWebhookUrl('https://0/', priv)).toMatch(/can never receive a delivery/);
    expect(checkWebhookUrl('https://[ff02::1]/', priv)).toMatch(/can never receive a delivery/);
    expect(checkWebhookUrl('https://u:p@localhost/', priv)).toBe(
      'credentials in the URL are not accepted',
    );
    expect(checkWebhookUrl('ftp://localhost/', priv)).toBe(
      'scheme ftp: is not accepted: use https://',
    );
  });
});
