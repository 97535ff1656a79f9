/**
 * The browser tests' Chromium: Debian's `chromium` package, driven by `playwright-core`, the
 * pages' scripts bundled by esbuild, and a virtual authenticator for passkeys.
 * Without it a browser test file is skipped with a loud warning; with CI=true that is a
 * failure (`.ci/run` installs the package).
 * @module
 */
import { existsSync } from 'node:fs';
import { build } from 'esbuild';
import { type Browser, type CDPSession, chromium, type Page } from 'playwright-core';

/** Where Debian installs Chromium. */
export const CHROMIUM = '/usr/bin/chromium';

const inCi = (): boolean => {
  const ci = process.env.CI;
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
};

/**
 * Whether Chromium is installed; when it is not, warns that `test` (e.g. 'the browser frames
 * test') is skipped, or throws under CI.
 * @example
 * const withChromium = chromiumOrSkip('the browser passkey test');
 * describe.skipIf(!withChromium)('passkeys in Chromium', () => {});
 */
export function chromiumOrSkip(test: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (inCi()) throw new Error(`CI requires Chromium at ${CHROMIUM} (apt-get install chromium)`);
  const bar = '!'.repeat(78);
  console.warn(
    `\n${bar}\n!! ${CHROMIUM} is missing: SKIPPING ${test}.\n` +
      `!! Install it with \`apt-get install chromium\`; with CI=true this is a failure.\n${bar}\n`,
  );
  return false;
}

/**
 * Starts headless Chromium, with `localhost` resolved to 127.0.0.1 (the pages the tests serve
 * listen there; localhost is a secure context).
 * @example
 * const browser = await launchChromium();
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      // Root has no user namespace sandbox in containers.
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      '--host-resolver-rules=MAP localhost 127.0.0.1',
    ],
  });
}

/**
 * Bundles a test page's script (and the published clients it imports) for the browser: one IIFE.
 * @example
 * const script = await bundlePageScript(fileURLToPath(new URL('./page.ts', import.meta.url)));
 */
export async function bundlePageScript(entry: string): Promise<string> {
  const bundle = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'iife',
    logLevel: 'silent',
  });
  return bundle.outputFiles[0]!.text;
}

/**
 * Gives the page's browser context a virtual authenticator through the DevTools protocol
 * (`WebAuthn.addVirtualAuthenticator`: CTAP2, internal transport, resident keys, user
 * verification that always passes); the DevTools session and the authenticator's id.
 * @example
 * const { cdp, authenticatorId } = await addVirtualAuthenticator(page);
 */
export async function addVirtualAuthenticator(
  page: Page,
): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });
  return { cdp, authenticatorId };
}
