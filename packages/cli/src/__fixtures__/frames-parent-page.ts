/// <reference lib="dom" />
/**
 * The parent page of the frames' browser test, bundled by esbuild: the published
 * `@turnkey/iframe-stamper` (2.11.1) pointed at Keyhold's frames, as the wallet kits use it.
 * The test drives it through `window.framesParent`; nothing here touches a secret (the frames
 * show and take those).
 */
import { IframeStamper, type KeyFormat } from '@turnkey/iframe-stamper';

const stampers = new Map<string, IframeStamper>();

function stamperOf(id: string): IframeStamper {
  const stamper = stampers.get(id);
  if (!stamper) throw new Error(`no frame ${id}`);
  return stamper;
}

/** Embeds the frame at `url` as element `id` and resolves with its PUBLIC_KEY_READY value. */
async function open(id: string, url: string): Promise<string> {
  const container = document.createElement('div');
  container.id = `${id}-container`;
  document.body.appendChild(container);
  const stamper = new IframeStamper({
    iframeUrl: url,
    iframeElementId: id,
    iframeContainer: container,
  });
  stampers.set(id, stamper);
  const publicKey = await stamper.init();
  const frame = document.getElementById(id) as HTMLIFrameElement;
  frame.style.width = '640px';
  frame.style.height = '160px';
  return publicKey;
}

/** Whether `open` resolves within `ms` (a refused frame never answers PUBLIC_KEY_READY). */
async function opensWithin(id: string, url: string, ms: number): Promise<boolean> {
  return Promise.race([
    open(id, url).then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms)),
  ]);
}

/** Settles a promise into its value or its error message (page.evaluate keeps neither class). */
const settled = <T>(promise: Promise<T>): Promise<{ value?: T; error?: string }> =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
  );

const framesParent = {
  open,
  opensWithin,
  injectWalletExportBundle: (id: string, bundle: string, organizationId: string) =>
    settled(stamperOf(id).injectWalletExportBundle(bundle, organizationId)),
  injectKeyExportBundle: (
    id: string,
    bundle: string,
    organizationId: string,
    keyFormat?: 'HEXADECIMAL' | 'SOLANA',
  ) => settled(stamperOf(id).injectKeyExportBundle(bundle, organizationId, keyFormat as KeyFormat)),
  injectImportBundle: (id: string, bundle: string, organizationId: string, userId: string) =>
    settled(stamperOf(id).injectImportBundle(bundle, organizationId, userId)),
  extractWalletEncryptedBundle: (id: string) =>
    settled(stamperOf(id).extractWalletEncryptedBundle()),
  extractKeyEncryptedBundle: (id: string, keyFormat?: 'HEXADECIMAL' | 'SOLANA') =>
    settled(stamperOf(id).extractKeyEncryptedBundle(keyFormat as KeyFormat)),
  applySettings: (id: string, styles: Record<string, string>) =>
    settled(stamperOf(id).applySettings({ styles })),
  /**
   * What another window can do: a frame of another origin inside this page posts the channel
   * handshake to Keyhold's frame (`frames[0]`) directly.
   */
  postFromSibling(siblingUrl: string): void {
    const sibling = document.createElement('iframe');
    sibling.src = siblingUrl;
    document.body.appendChild(sibling);
  },
};

(window as unknown as { framesParent: typeof framesParent }).framesParent = framesParent;
