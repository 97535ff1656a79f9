/**
 * The browser tests' Chromium: Debian's `chromium` package, driven by `playwright-core`.
 * Without it a browser test file is skipped with a loud warning; with CI=true that is a
 * failure (`.ci/run` installs the package).
 * @module
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

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
