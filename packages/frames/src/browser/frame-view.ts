/// <reference lib="dom" />
/**
 * The few elements a frame shows: the secret (export) or the text area (import), a status
 * line, and the styles a parent may set through `APPLY_SETTINGS`. Styles are set through the
 * CSSOM (`element.style[property]`), one allow-listed property at a time with a plain value,
 * so a setting cannot add a property, a selector or a URL.
 * @module
 */

/** The element that shows the exported secret, or takes the secret to import. */
export const SECRET_ELEMENT_ID = 'secret';
/** The element that says what the frame did or refused. */
export const STATUS_ELEMENT_ID = 'status';

const STYLE_PROPERTIES = new Set([
  'padding',
  'margin',
  'borderWidth',
  'borderStyle',
  'borderColor',
  'borderRadius',
  'fontSize',
  'fontWeight',
  'fontFamily',
  'color',
  'backgroundColor',
  'width',
  'height',
  'maxWidth',
  'maxHeight',
  'lineHeight',
  'textAlign',
  'overflowWrap',
  'wordWrap',
  'resize',
]);

/** A value with no quote, semicolon, brace, backslash or URL. */
const PLAIN_STYLE_VALUE = /^[-#a-zA-Z0-9 .,%()]{1,100}$/;

/** Shows `text` in the status line (and keeps the last one for tests and screenshots). */
export function showStatus(text: string): void {
  const status = document.getElementById(STATUS_ELEMENT_ID);
  if (status) status.textContent = text;
}

/** The element of the secret. */
export function secretElement(): HTMLElement {
  const element = document.getElementById(SECRET_ELEMENT_ID);
  if (!element) throw new Error('the page has no secret element');
  return element;
}

/**
 * Applies `APPLY_SETTINGS`'s value (`JSON.stringify({styles: {...}})`) to the secret element;
 * returns the properties it set. Properties outside the allow-list, and values that are not
 * plain, are skipped rather than refused: the wallet kit awaits this before it shows the frame,
 * and a look it cannot have is no reason to stop an export.
 */
export function applySettings(value: unknown): string[] {
  const settings = JSON.parse(typeof value === 'string' ? value : '{}') as {
    styles?: Record<string, unknown>;
  };
  const element = secretElement();
  const applied: string[] = [];
  for (const [property, styleValue] of Object.entries(settings.styles ?? {})) {
    if (!STYLE_PROPERTIES.has(property)) continue;
    if (typeof styleValue !== 'string' || !PLAIN_STYLE_VALUE.test(styleValue)) continue;
    element.style.setProperty(
      property.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`),
      styleValue,
    );
    applied.push(property);
  }
  return applied;
}
