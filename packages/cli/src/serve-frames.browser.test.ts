/**
 * Keyhold's own export and import frames in a real browser: Debian's chromium driven by
 * `playwright-core`, a parent page (served here on http://localhost) that uses the published
 * `@turnkey/iframe-stamper` 2.11.1, bundled by esbuild, pointed at the `exportFrameUrl` and
 * `importFrameUrl` of `keyhold serve`'s listening line. `@turnkey/sdk-server` makes the wallets
 * and runs EXPORT_WALLET / EXPORT_PRIVATE_KEY to the frame's key, and INIT_IMPORT_WALLET /
 * IMPORT_WALLET with the bundle the frame encrypted; viem derives the addresses from what the
 * frame shows or was typed. Refusals: a bundle signed by another key, or for another
 * organization or user; a parent of another origin (the browser enforces `frame-ancestors`,
 * and without CSP the frame's own check refuses its channel); a message from a window that
 * is not the parent. Screenshots go to `packages/cli/test-artifacts/frames/` (git-ignored).
 *
 * Without /usr/bin/chromium the file is skipped with a loud warning; with CI=true that is a
 * failure.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { generateApiKeyPair } from '@keyhold/server';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';
import { DEFAULT_ETHEREUM_ACCOUNTS } from '@turnkey/sdk-server';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { english, generateMnemonic, mnemonicToAccount, privateKeyToAddress } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bundlePageScript,
  chromiumOrSkip,
  launchChromium,
} from '../../server/src/__fixtures__/chromium.js';
import { type SdkClient, sdkClient } from '../../server/src/__fixtures__/turnkey-server.js';
import {
  keyholdProcess,
  keyholdServe,
  killKeyholdProcesses,
  listeningLine,
} from './__fixtures__/keyhold-process.js';

const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/frames/', import.meta.url));

const withChromium = chromiumOrSkip('the browser frames test');

/** What `window.framesParent` answers for a request to a frame. */
interface Settled<T> {
  value?: T;
  error?: string;
}

/** The parent page's API (see `__fixtures__/frames-parent-page.ts`). */
interface FramesParent {
  open(id: string, url: string): Promise<string>;
  opensWithin(id: string, url: string, ms: number): Promise<boolean>;
  injectWalletExportBundle(id: string, bundle: string, org: string): Promise<Settled<boolean>>;
  injectKeyExportBundle(
    id: string,
    bundle: string,
    org: string,
    keyFormat?: 'HEXADECIMAL' | 'SOLANA',
  ): Promise<Settled<boolean>>;
  injectImportBundle(
    id: string,
    bundle: string,
    org: string,
    user: string,
  ): Promise<Settled<boolean>>;
  extractWalletEncryptedBundle(id: string): Promise<Settled<string>>;
  extractKeyEncryptedBundle(
    id: string,
    keyFormat?: 'HEXADECIMAL' | 'SOLANA',
  ): Promise<Settled<string>>;
  applySettings(id: string, styles: Record<string, string>): Promise<Settled<boolean>>;
  postFromSibling(url: string): void;
}

/** Calls `window.framesParent[method](...args)` in the tab. */
function call<K extends keyof FramesParent>(
  tab: Page,
  method: K,
  ...args: Parameters<FramesParent[K]>
): Promise<Awaited<ReturnType<FramesParent[K]>>> {
  return tab.evaluate(
    ([name, parameters]) => {
      const parent = (window as unknown as { framesParent: Record<string, Function> }).framesParent;
      return parent[name as string]!(...(parameters as unknown[]));
    },
    [method, args] as const,
  ) as Promise<Awaited<ReturnType<FramesParent[K]>>>;
}

/** A sibling frame's page: posts the channel handshake to the parent's first frame. */
const SIBLING_HTML =
  '<!doctype html><html><body><script>' +
  'const channel = new MessageChannel();' +
  "parent.frames[0].postMessage({ type: 'TURNKEY_INIT_MESSAGE_CHANNEL' }, '*', [channel.port2]);" +
  '</script></body></html>';

/** Serves the parent page (and the sibling page) on a free loopback port. */
async function servePages(script: string): Promise<{ server: Server; port: number }> {
  const html =
    '<!doctype html><html><head><meta charset="utf-8"><title>Keyhold frames parent</title>' +
    '</head><body><h1>Parent page</h1><script src="/parent.js"></script></body></html>';
  const server = createServer((request, response) => {
    if (request.url === '/parent.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    } else if (request.url === '/sibling') {
      response.writeHead(200, { 'content-type': 'text/html' }).end(SIBLING_HTML);
    } else {
      response.writeHead(200, { 'content-type': 'text/html' }).end(html);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** A copy of `bundle` whose data is signed by `signingKey` and names `quorumPublic`. */
function resigned(bundle: string, signingKey: Uint8Array, quorumPublic: string): string {
  const envelope = JSON.parse(bundle) as Record<string, string>;
  const signature = p256.sign(sha256(hexToBytes(envelope.data!)), signingKey, {
    format: 'der',
    prehash: false,
  });
  return JSON.stringify({
    ...envelope,
    dataSignature: bytesToHex(signature),
    enclaveQuorumPublic: quorumPublic,
  });
}

describe.skipIf(!withChromium)('keyhold serve: the export and import frames in Chromium', () => {
  const root = generateApiKeyPair();
  let good: { server: Server; port: number };
  let evil: { server: Server; port: number };
  let line: {
    url: string;
    organizationId: string;
    userId: string;
    signerPublicKey: string;
    exportFrameUrl: string;
    importFrameUrl: string;
  };
  let api: SdkClient;
  let browser: Browser;
  let context: BrowserContext;
  let goodOrigin: string;
  let evilOrigin: string;

  const newTab = async (origin: string, within: BrowserContext = context): Promise<Page> => {
    const tab = await within.newPage();
    await tab.goto(origin);
    await tab.waitForFunction(() => 'framesParent' in window);
    return tab;
  };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const script = await bundlePageScript(
      fileURLToPath(new URL('./__fixtures__/frames-parent-page.ts', import.meta.url)),
    );
    good = await servePages(script);
    evil = await servePages(script);
    goodOrigin = `http://localhost:${good.port}`;
    evilOrigin = `http://127.0.0.1:${evil.port}`;
    const run = keyholdServe(root, ['--frame-origins', goodOrigin]);
    line = await listeningLine(run);
    api = sdkClient(line.url, line.organizationId, root);
    browser = await launchChromium();
    context = await browser.newContext();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    killKeyholdProcesses();
    await Promise.all(
      [good, evil].map((pages) => new Promise((resolve) => pages?.server.close(resolve))),
    );
  });

  it('puts the frames on the listening line', () => {
    expect(line.exportFrameUrl).toBe(`${line.url}/frames/export`);
    expect(line.importFrameUrl).toBe(`${line.url}/frames/import`);
  });

  it('exports a wallet to the export frame, which shows the mnemonic of its address', async () => {
    const wallet = await api.createWallet({
      walletName: 'exported in a frame',
      accounts: DEFAULT_ETHEREUM_ACCOUNTS,
    });
    expect(wallet.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const tab = await newTab(goodOrigin);
    const framePublicKey = await call(tab, 'open', 'export-frame', line.exportFrameUrl);
    expect(framePublicKey).toMatch(/^04[0-9a-f]{128}$/);
    await call(tab, 'applySettings', 'export-frame', { color: '#0a3d62', fontSize: '15px' });

    const exported = await api.exportWallet({
      walletId: wallet.walletId,
      targetPublicKey: framePublicKey,
    });
    expect(exported.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(
      await call(
        tab,
        'injectWalletExportBundle',
        'export-frame',
        exported.exportBundle,
        line.organizationId,
      ),
    ).toEqual({ value: true });

    const shown = await tab.frameLocator('#export-frame').locator('#secret').textContent();
    expect(mnemonicToAccount(shown!.trim()).address).toBe(wallet.addresses[0]);
    // The parent only ever saw `true`: the mnemonic is in the frame's document alone.
    expect(await tab.content()).not.toContain(shown!.trim());
    await tab.screenshot({ path: `${ARTIFACTS}export-wallet.png` });

    // The frame's key was used once: the same bundle again is refused.
    const again = await call(
      tab,
      'injectWalletExportBundle',
      'export-frame',
      exported.exportBundle,
      line.organizationId,
    );
    expect(again.error).toMatch(/no embedded key/);
    await tab.close();
  });

  it('exports a private key to the export frame, which shows it in hexadecimal', async () => {
    const created = await api.createPrivateKeys({
      privateKeys: [
        {
          privateKeyName: 'exported key',
          curve: 'CURVE_SECP256K1',
          addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
          privateKeyTags: [],
        },
      ],
    });
    const key = created.privateKeys[0]!;
    const tab = await newTab(goodOrigin);
    const framePublicKey = await call(tab, 'open', 'key-frame', line.exportFrameUrl);
    const exported = await api.exportPrivateKey({
      privateKeyId: key.privateKeyId!,
      targetPublicKey: framePublicKey,
    });
    expect(exported.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(
      await call(
        tab,
        'injectKeyExportBundle',
        'key-frame',
        exported.exportBundle,
        line.organizationId,
      ),
    ).toEqual({ value: true });
    const shown = (await tab.frameLocator('#key-frame').locator('#secret').textContent())!.trim();
    expect(shown).toMatch(/^[0-9a-f]{64}$/);
    expect(privateKeyToAddress(`0x${shown}`)).toBe(key.addresses![0]!.address);
    await tab.screenshot({ path: `${ARTIFACTS}export-private-key.png` });
    await tab.close();
  });

  it('imports a mnemonic typed into the import frame, encrypted there to the import bundle', async () => {
    const mnemonic = generateMnemonic(english);
    const tab = await newTab(goodOrigin);
    expect(await call(tab, 'open', 'import-frame', line.importFrameUrl)).toBe('');
    const { importBundle } = await api.initImportWallet({ userId: line.userId });
    expect(
      await call(
        tab,
        'injectImportBundle',
        'import-frame',
        importBundle,
        line.organizationId,
        line.userId,
      ),
    ).toEqual({ value: true });
    const secret = tab.frameLocator('#import-frame').locator('#secret');
    await secret.fill(mnemonic);
    await tab.screenshot({ path: `${ARTIFACTS}import-wallet-typed.png` });

    const extracted = await call(tab, 'extractWalletEncryptedBundle', 'import-frame');
    const encryptedBundle = extracted.value!;
    expect(Object.keys(JSON.parse(encryptedBundle)).sort()).toEqual([
      'ciphertext',
      'encappedPublic',
    ]);
    expect(encryptedBundle).not.toContain(mnemonic.split(' ')[0]!);
    // The frame forgets what was typed once it is encrypted.
    expect(await secret.inputValue()).toBe('');

    const imported = await api.importWallet({
      userId: line.userId,
      walletName: 'imported through a frame',
      encryptedBundle,
      accounts: DEFAULT_ETHEREUM_ACCOUNTS,
    });
    expect(imported.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(imported.addresses[0]).toBe(mnemonicToAccount(mnemonic).address);

    // Nothing to encrypt, or not a recovery phrase: refused in the frame.
    expect((await call(tab, 'extractWalletEncryptedBundle', 'import-frame')).error).toMatch(
      /nothing was entered/,
    );
    await secret.fill('not a recovery phrase at all');
    expect((await call(tab, 'extractWalletEncryptedBundle', 'import-frame')).error).toMatch(
      /not a valid recovery phrase/,
    );
    await tab.close();
  });

  it("exports a Solana key in Phantom's format, and imports a typed hex key", async () => {
    const created = await api.createPrivateKeys({
      privateKeys: [
        {
          privateKeyName: 'solana key',
          curve: 'CURVE_ED25519',
          addressFormats: ['ADDRESS_FORMAT_SOLANA'],
          privateKeyTags: [],
        },
      ],
    });
    const solana = created.privateKeys[0]!;
    const tab = await newTab(goodOrigin);
    const framePublicKey = await call(tab, 'open', 'solana-frame', line.exportFrameUrl);
    const exported = await api.exportPrivateKey({
      privateKeyId: solana.privateKeyId!,
      targetPublicKey: framePublicKey,
    });
    expect(
      await call(
        tab,
        'injectKeyExportBundle',
        'solana-frame',
        exported.exportBundle!,
        line.organizationId,
        'SOLANA',
      ),
    ).toEqual({ value: true });
    const shown = (await tab.frameLocator('#solana-frame').locator('#secret').textContent())!;
    const keypair = base58.decode(shown.trim());
    expect(keypair).toHaveLength(64);
    // seed ‖ public key, and the public key is the account's address.
    expect(base58.encode(ed25519.getPublicKey(keypair.slice(0, 32)))).toBe(
      solana.addresses![0]!.address,
    );
    expect(base58.encode(keypair.slice(32))).toBe(solana.addresses![0]!.address);

    const secretKey = secp256k1.utils.randomSecretKey();
    expect(await call(tab, 'open', 'key-import-frame', line.importFrameUrl)).toBe('');
    const { importBundle } = await api.initImportPrivateKey({ userId: line.userId });
    expect(
      await call(
        tab,
        'injectImportBundle',
        'key-import-frame',
        importBundle,
        line.organizationId,
        line.userId,
      ),
    ).toEqual({ value: true });
    await tab
      .frameLocator('#key-import-frame')
      .locator('#secret')
      .fill(`0x${bytesToHex(secretKey)}`);
    const extracted = await call(
      tab,
      'extractKeyEncryptedBundle',
      'key-import-frame',
      'HEXADECIMAL',
    );
    const imported = await api.importPrivateKey({
      userId: line.userId,
      privateKeyName: 'imported through a frame',
      encryptedBundle: extracted.value!,
      curve: 'CURVE_SECP256K1',
      addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
    });
    expect(imported.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(imported.addresses![0]!.address).toBe(privateKeyToAddress(`0x${bytesToHex(secretKey)}`));
    await tab.close();
  });

  it('refuses bundles signed by another key, or meant for another organization or user', async () => {
    const tab = await newTab(goodOrigin);
    const framePublicKey = await call(tab, 'open', 'export-frame', line.exportFrameUrl);
    const wallet = await api.createWallet({
      walletName: 'refused exports',
      accounts: DEFAULT_ETHEREUM_ACCOUNTS,
    });
    const { exportBundle } = await api.exportWallet({
      walletId: wallet.walletId,
      targetPublicKey: framePublicKey,
    });
    const otherKey = p256.utils.randomSecretKey();
    const otherPublic = bytesToHex(p256.getPublicKey(otherKey, false));
    const inject = (bundle: string, organizationId = line.organizationId) =>
      call(tab, 'injectWalletExportBundle', 'export-frame', bundle, organizationId);

    // Another signer, naming itself: the frame trusts only the key its page pins.
    expect((await inject(resigned(exportBundle, otherKey, otherPublic))).error).toBe(
      'the bundle is signed by a key this frame does not trust',
    );
    // Another signer, naming Keyhold's key: the signature does not verify under it.
    expect((await inject(resigned(exportBundle, otherKey, line.signerPublicKey))).error).toBe(
      'the bundle’s signature does not verify',
    );
    expect((await inject(exportBundle, '00000000-0000-4000-8000-000000000000')).error).toBe(
      'the bundle is for another organization',
    );
    expect((await inject('{"version":"v0"}')).error).toMatch(/unsupported bundle version/);
    await expect
      .poll(() => tab.frameLocator('#export-frame').locator('#status').textContent())
      .toMatch(/^Refused: unsupported bundle version/);
    expect(await tab.frameLocator('#export-frame').locator('#secret').textContent()).toBe('');
    await tab.screenshot({ path: `${ARTIFACTS}export-refused.png` });
    // After the refusals the frame's key still opens the genuine bundle.
    expect(await inject(exportBundle)).toEqual({ value: true });

    const importTab = await newTab(goodOrigin);
    await call(importTab, 'open', 'import-frame', line.importFrameUrl);
    const { importBundle } = await api.initImportWallet({ userId: line.userId });
    const injectImport = (bundle: string, userId = line.userId) =>
      call(importTab, 'injectImportBundle', 'import-frame', bundle, line.organizationId, userId);
    expect((await injectImport(resigned(importBundle, otherKey, otherPublic))).error).toBe(
      'the bundle is signed by a key this frame does not trust',
    );
    expect((await injectImport(importBundle, '00000000-0000-4000-8000-000000000000')).error).toBe(
      'the bundle is for another user',
    );
    // No bundle was accepted: there is no target to encrypt to.
    await importTab
      .frameLocator('#import-frame')
      .locator('#secret')
      .fill(generateMnemonic(english));
    expect((await call(importTab, 'extractWalletEncryptedBundle', 'import-frame')).error).toMatch(
      /no import bundle/,
    );
    await tab.close();
    await importTab.close();
  });

  it('refuses parents of other origins and messages from windows that are not the parent', async () => {
    // The browser refuses to embed the frame in another origin's page (frame-ancestors).
    const evilTab = await newTab(evilOrigin);
    expect(await call(evilTab, 'opensWithin', 'export-frame', line.exportFrameUrl, 3_000)).toBe(
      false,
    );
    // Chromium puts its error page in the frame's place: no Keyhold document, no script ran.
    const blocked = evilTab.frames().find((frame) => frame !== evilTab.mainFrame());
    expect(blocked?.url()).not.toBe(line.exportFrameUrl);
    expect(await blocked!.locator('#status').count()).toBe(0);
    await evilTab.close();

    // Without CSP (a proxy that strips it, an old browser), the frame's own check refuses the
    // channel of a parent whose origin is not allowed, and says so. Playwright plays the proxy.
    const noCsp = await browser.newContext();
    await noCsp.route(line.exportFrameUrl, async (route) => {
      const response = await route.fetch();
      const headers = { ...response.headers() };
      delete headers['content-security-policy'];
      await route.fulfill({ response, headers });
    });
    const strippedTab = await newTab(evilOrigin, noCsp);
    expect(await call(strippedTab, 'opensWithin', 'export-frame', line.exportFrameUrl, 3_000)).toBe(
      false,
    );
    await expect
      .poll(() => strippedTab.frameLocator('#export-frame').locator('#status').textContent())
      .toBe(`Refused a message from an origin that is not allowed: ${evilOrigin}`);
    await strippedTab.screenshot({ path: `${ARTIFACTS}refused-origin.png` });
    await noCsp.close();

    // In an allowed parent, a sibling frame of another origin posts its own channel to the
    // frame: refused, and the parent's channel still works.
    const tab = await newTab(goodOrigin);
    const framePublicKey = await call(tab, 'open', 'export-frame', line.exportFrameUrl);
    await call(tab, 'postFromSibling', `${evilOrigin}/sibling`);
    await expect
      .poll(() => tab.frameLocator('#export-frame').locator('#status').textContent())
      .toBe('Refused a message from a window that is not this frame’s parent');
    const wallet = await api.createWallet({
      walletName: 'after a sibling',
      accounts: DEFAULT_ETHEREUM_ACCOUNTS,
    });
    const { exportBundle } = await api.exportWallet({
      walletId: wallet.walletId,
      targetPublicKey: framePublicKey,
    });
    expect(
      await call(
        tab,
        'injectWalletExportBundle',
        'export-frame',
        exportBundle,
        line.organizationId,
      ),
    ).toEqual({ value: true });
    await tab.close();
  });
});

describe('keyhold serve --frame-origins', () => {
  afterAll(() => killKeyholdProcesses());

  it('is a usage error when an entry is not an origin', async () => {
    const run = keyholdProcess(['serve', '--memory', '--port', '0', '--frame-origins', 'nope']);
    expect(await run.exit()).toBe(2);
    expect(run.stderr()).toContain('--frame-origins: not an origin: "nope"');
  });

  it('serves no frame in production unless told which origins, nor with "none"', async () => {
    const production = keyholdProcess(
      ['serve', '--memory', '--port', '0', '--crypto-threads', '0', '--env', 'production'],
      { KEYHOLD_MASTER_KEY: bytesToHex(p256.utils.randomSecretKey()) },
    );
    const none = keyholdProcess([
      'serve',
      '--memory',
      '--port',
      '0',
      '--crypto-threads',
      '0',
      '--frame-origins',
      'none',
    ]);
    for (const run of [production, none]) {
      const line = await listeningLine(run);
      expect(line.exportFrameUrl).toBeUndefined();
      expect((await fetch(`${line.url}/frames/export`)).status).toBe(404);
    }
  });
});
