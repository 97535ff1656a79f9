/**
 * The proof, in a real browser: Debian's chromium driven by `playwright-core`, with a
 * virtual authenticator set up through the DevTools protocol (`WebAuthn.addVirtualAuthenticator`:
 * CTAP2, internal transport, resident keys, user verification). A test page served on
 * http://localhost (a secure context) uses the published `@turnkey/http` and
 * `@turnkey/webauthn-stamper`, bundled by esbuild, to create a passkey; the backend step
 * creates the user's sub-organization with it through `@turnkey/sdk-server` (an API key); the
 * page then logs in with STAMP_LOGIN stamped by the passkey and naming the parent organization
 * (as `@turnkey/core` does; the session JWT names the sub-organization and `@turnkey/crypto`
 * verifies it with `notarizerPublicKey`), reads with the session key, creates a wallet and
 * signs with passkey stamps, and viem verifies the signature.
 *
 * Without /usr/bin/chromium the file is skipped with a loud warning; with CI=true that is a
 * failure (`.ci/run` installs the `chromium` package).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySessionJwtSignature } from '@turnkey/crypto';
import type { Browser, Page } from 'playwright-core';
import { type Hex, hashMessage, recoverMessageAddress, serializeSignature } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addVirtualAuthenticator,
  bundlePageScript,
  chromiumOrSkip,
  launchChromium,
} from './__fixtures__/chromium.js';
import { startTurnkeyServer, type TurnkeyServer } from './__fixtures__/turnkey-server.js';

const withChromium = chromiumOrSkip('the browser passkey test');

/** What the page answers for the passkey's actions (see `__fixtures__/passkey-page.mjs`). */
interface PageResult {
  session: string;
  sessionPublicKey: string;
  whoami: { organizationId: string; userId: string; username: string };
  walletStatus: string;
  address: string;
  signature: { r: string; s: string; v: string };
}

interface Registration {
  authenticatorName: string;
  challenge: string;
  attestation: {
    credentialId: string;
    clientDataJson: string;
    attestationObject: string;
    transports: string[];
  };
}

/** Serves the bundled test page on a free loopback port. */
async function servePage(): Promise<{ server: Server; origin: string }> {
  const script = await bundlePageScript(
    new URL('./__fixtures__/passkey-page.mjs', import.meta.url).pathname,
  );
  const html =
    '<!doctype html><html><head><meta charset="utf-8"><title>Keyhold passkeys</title></head>' +
    '<body><script src="/page.js"></script></body></html>';
  const server = createServer((request, response) => {
    if (request.url === '/page.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    } else {
      response.writeHead(200, { 'content-type': 'text/html' }).end(html);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://localhost:${(server.address() as AddressInfo).port}` };
}

describe.skipIf(!withChromium)('passkeys in Chromium with a virtual authenticator', () => {
  let keyhold: TurnkeyServer;
  let page: { server: Server; origin: string };
  let browser: Browser;
  let tab: Page;

  beforeAll(async () => {
    keyhold = await startTurnkeyServer();
    page = await servePage();
    browser = await launchChromium();
    tab = await browser.newPage();
    await addVirtualAuthenticator(tab);
    await tab.goto(page.origin);
    await tab.waitForFunction(() => 'keyholdPasskeys' in window);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => page?.server.close(resolve));
    await keyhold?.server.close();
  });

  it('creates a passkey, a sub-organization with it, logs in, a wallet and a signature viem verifies', async () => {
    const registration = (await tab.evaluate(
      (name) =>
        (
          window as unknown as {
            keyholdPasskeys: { createPasskey(name: string): Promise<unknown> };
          }
        ).keyholdPasskeys.createPasskey(name),
      'browser user',
    )) as Registration;
    expect(registration.attestation.transports).toContain('AUTHENTICATOR_TRANSPORT_INTERNAL');

    // The backend step: the parent's API key creates the user's sub-organization.
    const created = await keyhold.client.createSubOrganization({
      subOrganizationName: 'browser user',
      rootUsers: [
        {
          userName: 'browser user',
          apiKeys: [],
          authenticators: [registration as never],
          oauthProviders: [],
        },
      ],
      rootQuorumThreshold: 1,
    });
    expect(created.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const subOrganizationId = created.subOrganizationId;

    const message = 'Keyhold passkeys in a real browser';
    const digest = hashMessage(message);
    const result = (await tab.evaluate(
      ([url, parentOrganizationId, payload]) =>
        (
          window as unknown as {
            keyholdPasskeys: {
              loginWalletAndSignature(u: string, o: string, d: string): Promise<unknown>;
            };
          }
        ).keyholdPasskeys.loginWalletAndSignature(url!, parentOrganizationId!, payload!),
      [keyhold.server.url, keyhold.organizationId, digest],
    )) as PageResult;

    // STAMP_LOGIN at the parent: the session names the sub-organization's user.
    expect(
      await verifySessionJwtSignature(result.session, keyhold.server.keyhold.notarizerPublicKey),
    ).toBe(true);
    const claims = JSON.parse(Buffer.from(result.session.split('.')[1]!, 'base64').toString());
    expect(claims).toMatchObject({
      public_key: result.sessionPublicKey,
      session_type: 'SESSION_TYPE_READ_WRITE',
      user_id: created.rootUserIds![0],
      organization_id: subOrganizationId,
    });

    expect(result.whoami).toMatchObject({
      organizationId: subOrganizationId,
      userId: created.rootUserIds![0],
      username: 'browser user',
    });
    expect(result.walletStatus).toBe('ACTIVITY_STATUS_COMPLETED');
    const signer = await recoverMessageAddress({
      message,
      signature: serializeSignature({
        r: `0x${result.signature.r}` as Hex,
        s: `0x${result.signature.s}` as Hex,
        yParity: Number(result.signature.v),
      }),
    });
    expect(signer.toLowerCase()).toBe(result.address.toLowerCase());

    // The passkey the browser made is the sub-organization user's one authenticator.
    const { authenticators } = await keyhold.client.getAuthenticators({
      organizationId: subOrganizationId,
      userId: created.rootUserIds![0]!,
    });
    expect(authenticators.map((a) => a.credentialId)).toEqual([
      registration.attestation.credentialId,
    ]);
  });
});
