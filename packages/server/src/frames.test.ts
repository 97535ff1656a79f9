/**
 * The self-hosted frames as `handle()` serves them, through both HTTP adapters alike
 * (`startServer` with Express and with Koa in front of one Keyhold): the pages pin this
 * instance's signer key and its allowed origins; their CSP allows exactly their inline script
 * and style, no network, and only those origins as ancestors. Anything but GET or HEAD is a
 * 404 Status body, and without `frames` nothing is served. (What the frames do is the browser
 * test of `keyhold serve`: packages/cli/src/serve-frames.browser.test.ts.)
 */
import { createHash } from 'node:crypto';
import { type RunningServer, startServer } from '@keyhold/cli';
import { bundleFrameScripts, FRAME_PATHS } from '@keyhold/frames';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyhold } from './keyhold.js';
import { silentLogger } from './logger.js';

const ORIGINS = ['https://wallet.example.com', 'http://localhost:*'];

const hashOf = (text: string): string =>
  `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

describe('the frames over HTTP', () => {
  let servers: RunningServer[];

  beforeAll(async () => {
    const keyhold = createKeyhold({
      logger: silentLogger,
      frames: { scripts: await bundleFrameScripts(), allowedOrigins: ORIGINS },
    });
    servers = await Promise.all(
      (['express', 'koa'] as const).map((http) =>
        startServer({ http, keyhold, port: 0, logger: silentLogger }),
      ),
    );
  }, 60_000);

  afterAll(async () => {
    // One Keyhold behind both: close the servers, the second closes what is left.
    for (const server of servers ?? []) await server.close().catch(() => {});
  });

  it('serves both pages alike on Express and Koa, pinned to the signer key', async () => {
    for (const path of Object.values(FRAME_PATHS)) {
      const [viaExpress, viaKoa] = await Promise.all(
        servers.map((server) => fetch(`${server.url}${path}`)),
      );
      const body = await viaExpress!.text();
      expect(await viaKoa!.text()).toBe(body);
      for (const name of ['content-type', 'content-security-policy', 'cache-control']) {
        expect(viaKoa!.headers.get(name)).toBe(viaExpress!.headers.get(name));
      }
      expect(viaExpress!.status).toBe(200);
      const config = JSON.parse(
        /<script type="application\/json" id="keyhold-frame-config">(.*?)<\/script>/.exec(
          body,
        )![1]!,
      );
      expect(config).toEqual({
        signerPublicKey: servers[0]!.keyhold.signerPublicKey,
        allowedOrigins: ORIGINS,
      });
    }
  });

  it('sends headers fit for a frame holding secrets', async () => {
    const response = await fetch(`${servers[0]!.url}${FRAME_PATHS.export}`);
    const body = await response.text();
    const script = /<script>(.*)<\/script><\/body>/s.exec(body)![1]!;
    const style = /<style>(.*?)<\/style>/s.exec(body)![1]!;
    const policy = Object.fromEntries(
      response.headers
        .get('content-security-policy')!
        .split('; ')
        .map((directive) => {
          const [name, ...values] = directive.split(' ');
          return [name, values.join(' ')];
        }),
    );
    expect(policy).toEqual({
      'default-src': "'none'",
      'script-src': hashOf(script),
      'style-src': hashOf(style),
      'connect-src': "'none'",
      'img-src': "'none'",
      'form-action': "'none'",
      'base-uri': "'none'",
      'frame-ancestors': ORIGINS.join(' '),
    });
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    // Framed on purpose: no X-Frame-Options, which would forbid what frame-ancestors allows.
    expect(response.headers.get('x-frame-options')).toBeNull();
  });

  it('answers other methods with a 404 Status body, never a 5xx', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const response = await fetch(`${servers[1]!.url}${FRAME_PATHS.import}`, {
        method,
        body: method === 'DELETE' ? null : '<script>',
      });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ code: 5 });
    }
    const head = await fetch(`${servers[0]!.url}${FRAME_PATHS.import}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await fetch(`${servers[0]!.url}/frames/other`).then((r) => r.status)).toBe(404);
  });

  it('serves no frame unless asked to', async () => {
    const plain = createKeyhold({ logger: silentLogger });
    const response = await plain.handle({
      method: 'GET',
      path: FRAME_PATHS.export,
      headers: {},
      rawBody: new Uint8Array(),
    });
    expect(response.status).toBe(404);
    await plain.close();
  });
});
