/**
 * The proof, in a real browser: Debian's chromium driven by `playwright-core` opens
 * this example app — `@turnkey/react-wallet-kit`, unchanged, bundled by esbuild — pointed at a
 * `keyhold serve --dev` started here through the CLI (its `url`, `authProxyUrl` and frame URLs
 * from the listening line; the `authProxyConfigId` from ENABLE_AUTH_PROXY and
 * UPDATE_AUTH_PROXY_CONFIG with the root key; Keyhold's keys pinned in the bundle in place of
 * Turnkey's, see `pinKeyholdKeys`), which mails its codes to a real SMTP server
 * (`smtp-server`) started here too. What the kit made is read back with the root key.
 *
 * - Email: sign up with a code read from the mail, log out, log in again (same user and
 *   sub-organization); create a wallet, sign a message that viem verifies against the wallet's
 *   address, export the wallet through Keyhold's self-hosted frame and derive the same address
 *   from the mnemonic it shows.
 * - Passkey: a DevTools-protocol virtual authenticator (CTAP2, resident keys, user
 *   verification); sign up, log out, log in with it.
 *
 * Screenshots of the main screens go to `examples/wallet-kit/artifacts/` (git-ignored).
 * Without /usr/bin/chromium the file is skipped with a loud warning; with CI=true that is a
 * failure (`.ci/run` installs the `chromium` package).
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Turnkey } from '@turnkey/sdk-server';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type Hex, recoverMessageAddress, serializeSignature } from 'viem';
import { english, mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type SmtpMailbox,
  startSmtpMailbox,
} from '../../../adapters/notifier-smtp/src/testing/smtp-mailbox.js';
import {
  keyholdProcess,
  killKeyholdProcesses,
} from '../../../packages/cli/src/__fixtures__/keyhold-process.js';
import {
  addVirtualAuthenticator,
  chromiumOrSkip,
  launchChromium,
} from '../../../packages/server/src/__fixtures__/chromium.js';
import { type AppServer, buildApp, serveApp } from './app-server.js';
import { enableAuthProxy } from './enable-auth-proxy.js';
import { MESSAGE } from './message.js';
import {
  pinnedKeysOf,
  rootCredentialOf,
  type WalletKitConfig,
  walletKitConfigFrom,
} from './wallet-kit-config.js';

const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));

const withChromium = chromiumOrSkip('the wallet-kit browser test');

/** The kit's UI steps wait on Keyhold and on React: generous on a loaded 2-core machine. */
const UI_TIMEOUT = 30_000;

let mailbox: SmtpMailbox;
let config: WalletKitConfig;
let app: AppServer;
let browser: Browser;
/** The parent organization's root user (the `--dev` key): it reads what the kit made. */
let root: ReturnType<Turnkey['apiClient']>;

/** A fresh browser profile (its own IndexedDB and local storage): a new visitor. */
async function visitor(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(UI_TIMEOUT);
  // The page's errors, in the test's output: what the kit reports when a step fails.
  page.on('pageerror', (error) => console.error('page error:', error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') console.error('page console:', message.text());
  });
  page.on('requestfailed', (request) =>
    console.error(`page request failed: ${request.url()} ${request.failure()?.errorText}`),
  );
  page.on('response', async (response) => {
    if (response.status() >= 400) {
      const body = await response.text().catch(() => '');
      console.error(`page request: ${response.status()} ${response.url()} ${body.slice(0, 500)}`);
    }
  });
  await page.goto(app.url);
  return { context, page };
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });

/** The page's failure line, if an action failed, so a test fails with the kit's message. */
async function expectVisible(page: Page, testId: string): Promise<string> {
  const target = page.getByTestId(testId);
  const failure = page.getByTestId('failure');
  await Promise.race([
    target.waitFor(),
    failure.waitFor().then(async () => {
      throw new Error(`the app failed: ${await failure.textContent()}`);
    }),
  ]);
  return (await target.textContent()) ?? '';
}

/** Waits for the next mail to `to` after `seen` mails, and returns the code in it. */
async function codeMailedTo(to: string, seen: number): Promise<string> {
  const deadline = Date.now() + UI_TIMEOUT;
  for (;;) {
    const mail = mailbox.received.slice(seen).find((m) => m.to.includes(to));
    if (mail) {
      const code = /code is ([0-9A-Za-z]{4,12})/.exec(mail.raw)?.[1];
      if (!code) throw new Error(`no code in the mail:\n${mail.raw}`);
      return code;
    }
    if (Date.now() > deadline) throw new Error(`no mail to ${to}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Log in or sign up by email through the kit's modal, with the code from the mail. */
async function emailLogin(page: Page, email: string, screenshot?: string): Promise<void> {
  const seen = mailbox.received.length;
  await page.getByTestId('login').click();
  const input = page.getByPlaceholder('Enter your email');
  await input.fill(email);
  if (screenshot) await shot(page, `${screenshot}-email`);
  await input.press('Enter');
  const code = await codeMailedTo(email, seen);
  await page.getByText(/-digit code we sent to/).waitFor();
  if (screenshot) await shot(page, `${screenshot}-code`);
  // The kit's code boxes move the focus along as each character is typed.
  await page.locator('input').first().focus();
  await page.keyboard.type(code);
}

describe.skipIf(!withChromium)('the React Wallet Kit against keyhold serve, in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    mailbox = await startSmtpMailbox({ username: 'keyhold', password: 'pw' });
    const keyhold = keyholdProcess([
      'serve',
      '--dev',
      '--port',
      '0',
      '--memory',
      '--crypto-threads',
      '0',
      '--smtp',
      mailbox.url,
      '--email-from',
      'login@keyhold.test',
    ]);
    const line = await keyhold.firstLine();
    if (line === undefined) throw new Error(`keyhold serve did not start:\n${keyhold.stderr()}`);
    const listening = JSON.parse(line);
    app = await serveApp(await buildApp(pinnedKeysOf(listening)));
    const configId = await enableAuthProxy(rootCredentialOf(listening), {
      allowedOrigins: [app.url],
      appName: 'Keyhold wallet test',
    });
    config = walletKitConfigFrom(listening, configId);
    root = new Turnkey({
      apiBaseUrl: listening.url,
      defaultOrganizationId: listening.organizationId,
      apiPublicKey: listening.apiPublicKey,
      apiPrivateKey: listening.apiPrivateKey,
    }).apiClient();
    app.publish(config);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    killKeyholdProcesses();
    await mailbox?.close();
  });

  it('email: signs up with the mailed code, logs out, logs in again; a wallet signs and exports', async () => {
    const email = 'alice@example.test';
    const { context, page } = await visitor();
    await shot(page, '01-start');

    await emailLogin(page, email, '02-sign-up');
    const userId = await expectVisible(page, 'user-id');
    const organizationId = await page.getByTestId('organization-id').textContent();
    expect(organizationId).not.toBe(config.organizationId); // the user's own sub-organization
    // Keyhold holds the user, with the address the code was mailed to.
    const { user } = await root.getUser({ organizationId: organizationId!, userId });
    expect(user.userEmail).toBe(email);
    await shot(page, '03-signed-up');

    await page.getByTestId('logout').click();
    await expectVisible(page, 'login');
    await emailLogin(page, email);
    expect(await expectVisible(page, 'user-id')).toBe(userId);
    expect(await page.getByTestId('organization-id').textContent()).toBe(organizationId);

    await page.getByTestId('create-wallet').click();
    const address = (await expectVisible(page, 'address')) as Hex;
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    await shot(page, '04-wallet');

    await page.getByTestId('sign').click();
    await page.getByRole('button', { name: 'Sign', exact: true }).click();
    const { r, s, v } = JSON.parse(await expectVisible(page, 'signature'));
    const signer = await recoverMessageAddress({
      message: MESSAGE,
      signature: serializeSignature({ r: `0x${r}`, s: `0x${s}`, yParity: Number(`0x${v}`) }),
    });
    expect(signer).toBe(address);
    await shot(page, '05-signed');

    await page.getByTestId('export').click();
    const frame = page.frameLocator('iframe[id="turnkey-default-iframe-element-id"]');
    // The kit's Export button is live before its frame has answered with its key (the key the
    // bundle is encrypted to): wait, as a person would, until the kit has styled the frame's
    // secret box, its last step once the frame is ready.
    await frame.locator('#secret[style*="font-size"]').waitFor({ state: 'attached' });
    await page.getByRole('button', { name: 'Export Wallet', exact: true }).click();
    // The frame shows the mnemonic: the line of its text made of 12 or more BIP-39 words.
    let mnemonic: string | undefined;
    const deadline = Date.now() + UI_TIMEOUT;
    while (mnemonic === undefined && Date.now() < deadline) {
      // innerText, not textContent: the rendered lines, as the user sees them.
      const body = frame.locator('body');
      // biome-ignore lint/performance/useDomNodeTextContent: Playwright's locator, not a DOM node
      const text = await body.innerText().catch(() => '');
      mnemonic = text
        .split('\n')
        .map((line) => line.trim().split(/\s+/))
        .find((words) => words.length >= 12 && words.every((w) => english.includes(w)))
        ?.join(' ');
      if (mnemonic === undefined) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(mnemonic, 'the export frame shows a mnemonic').toBeDefined();
    // The kit shows the frame (and its Done button) once the bundle is in; the modal animates.
    await page.getByRole('button', { name: 'Done', exact: true }).waitFor();
    await page.waitForTimeout(500);
    await shot(page, '06-export');
    expect(mnemonicToAccount(mnemonic!).address).toBe(address);
    await context.close();
  }, 180_000);

  it('passkey: signs up with a virtual authenticator, logs out, logs in with it', async () => {
    const { context, page } = await visitor();
    const { cdp, authenticatorId } = await addVirtualAuthenticator(page);

    await page.getByTestId('login').click();
    await shot(page, '07-passkey-modal');
    await page.getByRole('button', { name: 'Sign up with passkey' }).click();
    const userId = await expectVisible(page, 'user-id');
    const organizationId = await page.getByTestId('organization-id').textContent();
    expect(organizationId).not.toBe(config.organizationId);
    // Keyhold holds the passkey the virtual authenticator made, and only that one.
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    const { authenticators } = await root.getAuthenticators({
      organizationId: organizationId!,
      userId,
    });
    expect(authenticators.map((a) => a.credentialId)).toEqual(
      credentials.map((c) => Buffer.from(c.credentialId, 'base64').toString('base64url')),
    );
    await shot(page, '08-passkey-signed-up');

    await page.getByTestId('logout').click();
    await page.getByTestId('login').click();
    await page.getByRole('button', { name: 'Log in with passkey' }).click();
    expect(await expectVisible(page, 'user-id')).toBe(userId);
    expect(await page.getByTestId('organization-id').textContent()).toBe(organizationId);
    await context.close();
  }, 120_000);
});
