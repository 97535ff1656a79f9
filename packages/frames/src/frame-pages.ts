/**
 * The HTML pages of the frames and the headers they are served with. Each page is
 * self-contained: its configuration (the pinned signer key, the allowed parent origins) as a
 * JSON data block, one inline style and one inline script, both allowed by hash in a
 * Content-Security-Policy that allows nothing else — no network (`connect-src 'none'`), no
 * images, no forms, no base URL — and `frame-ancestors` limited to the allowed origins. Pages
 * are never cached and send no referrer.
 * @module
 */
import { createHash } from 'node:crypto';
import type { FrameScripts } from './frame-scripts.js';

/** The paths Keyhold serves the frames at. */
export const FRAME_PATHS = {
  export: '/frames/export',
  import: '/frames/import',
} as const;

/** Which frame. */
export type FrameKind = keyof typeof FRAME_PATHS;

/** A page ready to serve: its status is 200. */
export interface FramePage {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface RenderFramePagesInput {
  readonly scripts: FrameScripts;
  /** Keyhold's signer key (uncompressed P-256 hex): the only key a frame accepts bundles from. */
  readonly signerPublicKey: string;
  /** Origins that may embed the frames and open their channel (see `parseFrameOrigins`). */
  readonly allowedOrigins: readonly string[];
}

const STYLE = [
  'body{margin:0;font:14px/1.4 system-ui,sans-serif;color:#222;background:transparent}',
  '#secret{display:block;box-sizing:border-box;width:100%;min-height:6em;padding:8px;',
  'border:1px solid #ccc;border-radius:6px;overflow-wrap:anywhere;white-space:pre-wrap;',
  'font-family:ui-monospace,monospace}',
  '#status{margin:6px 0 0;color:#555;font-size:12px}',
].join('');

const TITLES: Record<FrameKind, string> = { export: 'Keyhold export', import: 'Keyhold import' };

/** What holds the secret: shown text (export) or a text area the user types in (import). */
const SECRET_ELEMENTS: Record<FrameKind, string> = {
  export: '<div id="secret" aria-label="Exported secret"></div>',
  import:
    '<textarea id="secret" aria-label="Secret to import" autocomplete="off" autocapitalize="off" ' +
    'autocorrect="off" spellcheck="false"></textarea>',
};

const sha256Source = (text: string): string =>
  `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** `</script` cannot end the data block early: `<` is escaped in the JSON. */
const jsonForScript = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

function renderPage(kind: FrameKind, input: RenderFramePagesInput): FramePage {
  const script = input.scripts[kind];
  if (/<\/script/i.test(script)) throw new Error(`the ${kind} frame's script contains </script`);
  const config = jsonForScript({
    signerPublicKey: input.signerPublicKey.toLowerCase(),
    allowedOrigins: input.allowedOrigins,
  });
  const body =
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    `<title>${TITLES[kind]}</title><style>${STYLE}</style>` +
    `<script type="application/json" id="keyhold-frame-config">${config}</script>` +
    `</head><body>${SECRET_ELEMENTS[kind]}<p id="status" role="status"></p>` +
    `<script>${script}</script></body></html>`;
  const ancestors = input.allowedOrigins.length > 0 ? input.allowedOrigins.join(' ') : "'none'";
  const policy = [
    "default-src 'none'",
    `script-src ${sha256Source(script)}`,
    `style-src ${sha256Source(STYLE)}`,
    "connect-src 'none'",
    "img-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
    `frame-ancestors ${ancestors}`,
  ].join('; ');
  return {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': policy,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cross-origin-resource-policy': 'cross-origin',
    },
    body,
  };
}

/**
 * Renders both frames for one server, keyed by the path they are served at.
 * @example
 * const pages = renderFramePages({ scripts, signerPublicKey, allowedOrigins: ['http://localhost:*'] });
 * pages.get('/frames/export')?.body; // '<!doctype html>…'
 */
export function renderFramePages(input: RenderFramePagesInput): ReadonlyMap<string, FramePage> {
  return new Map([
    [FRAME_PATHS.export, renderPage('export', input)],
    [FRAME_PATHS.import, renderPage('import', input)],
  ]);
}
