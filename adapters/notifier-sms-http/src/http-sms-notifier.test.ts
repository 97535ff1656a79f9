/**
 * The HTTP SMS notifier against a real HTTP server on loopback: the JSON body and the Basic
 * credentials it sends; a gateway that refuses, is absent or is too slow is
 * NotifierUnavailableError; email is refused.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NotifierChannelUnsupportedError, NotifierUnavailableError } from '@keyhold/activities';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpSmsNotifier, parseSmsGatewayUrl } from './http-sms-notifier.js';

const received: { path: string; authorization?: string; body: unknown }[] = [];
let server: Server;
let base: string;

const bodyOf = async (request: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
};

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const body = await bodyOf(request);
    received.push({ path: request.url ?? '', authorization: request.headers.authorization, body });
    if (request.url === '/slow') return setTimeout(() => response.end(), 2000);
    response.statusCode = request.url === '/refuse' ? 503 : 202;
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const sms = { channel: 'sms' as const, to: '+15555550100', text: 'Your Acme code is 123456' };

describe('httpSmsNotifier', () => {
  it('POSTs {to, text} with the URL credentials as Basic auth', async () => {
    const url = new URL(`${base}/send`);
    url.username = 'key';
    url.password = 's3cret';
    await httpSmsNotifier({ url: url.toString() }).send(sms);
    expect(received.at(-1)).toEqual({
      path: '/send',
      authorization: `Basic ${Buffer.from('key:s3cret').toString('base64')}`,
      body: { to: '+15555550100', text: 'Your Acme code is 123456' },
    });
  });

  it('a refusing, slow or absent gateway is NotifierUnavailableError, never the message', async () => {
    const refused = await httpSmsNotifier({ url: `${base}/refuse` })
      .send(sms)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(NotifierUnavailableError);
    expect(String(refused)).toContain('HTTP 503');
    expect(String(refused)).not.toContain('123456');
    const slow = await httpSmsNotifier({ url: `${base}/slow`, timeoutMs: 200 })
      .send(sms)
      .catch((e: unknown) => e);
    expect(slow).toBeInstanceOf(NotifierUnavailableError);
    const absent = await httpSmsNotifier({ url: 'http://127.0.0.1:1/send' })
      .send(sms)
      .catch((e: unknown) => e);
    expect(absent).toBeInstanceOf(NotifierUnavailableError);
  });

  it('refuses email, and URLs that are not http(s)', async () => {
    await expect(
      httpSmsNotifier({ url: `${base}/send` }).send({
        channel: 'email',
        to: 'a@example.com',
        subject: 's',
        text: 't',
        html: 'h',
        fromName: 'n',
      }),
    ).rejects.toThrow(NotifierChannelUnsupportedError);
    expect(() => parseSmsGatewayUrl('smtp://x')).toThrow(/https:\/\/ or http:\/\//);
  });
});
