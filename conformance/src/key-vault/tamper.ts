/**
 * Tampered copies of a sealed string, whatever its format: one character replaced by another of
 * the same kind (digit, lower-case, upper-case letter, `-`/`_`), so the string keeps the shape
 * of its format (hex stays hex, base64url stays base64url) but no longer names the same
 * secret; and truncations. The last character is never replaced: in unpadded base64 its low
 * bits may be unused, so a change there can leave the decoded bytes as they were.
 * @module
 */

const REPLACEMENT: Record<string, string> = { '-': '_', _: '-', '+': '/', '/': '+' };

/**
 * `sealed` with one character replaced by another of its kind: the one at `position` (modulo
 * the length less one), or the next one that has a replacement (separators such as `.` have
 * none). `undefined` when no character can be replaced.
 * @example
 * tamperAt('kp11.key.p256.00ff', 15); // 'kp11.key.p256.01ff'
 * tamperAt('kp11.key.p256.00ff', 4); // 'kp11.ley.p256.00ff' (the '.' at 4 is skipped)
 */
export function tamperAt(sealed: string, position: number): string | undefined {
  const span = sealed.length - 1;
  for (let offset = 0; offset < span; offset++) {
    const at = (position + offset) % span;
    const replaced = replacementOf(sealed[at]!);
    if (replaced !== undefined) return sealed.slice(0, at) + replaced + sealed.slice(at + 1);
  }
  return undefined;
}

/**
 * Shorter copies of `sealed`: without its last character, and cut to half its length.
 * @example
 * truncations('ksw1.abcdef'); // ['ksw1.abcde', 'ksw1.']
 */
export function truncations(sealed: string): string[] {
  return [sealed.slice(0, -1), sealed.slice(0, Math.floor(sealed.length / 2))];
}

function replacementOf(c: string): string | undefined {
  if (c in REPLACEMENT) return REPLACEMENT[c];
  const code = c.charCodeAt(0);
  const cycle = (base: string, size: number) =>
    String.fromCharCode(base.charCodeAt(0) + ((code - base.charCodeAt(0) + 1) % size));
  if (c >= '0' && c <= '9') return cycle('0', 10);
  // a–f stay within a–f, so lower-case hex stays hex.
  if (c >= 'a' && c <= 'f') return cycle('a', 6);
  if (c >= 'g' && c <= 'z') return cycle('g', 20);
  if (c >= 'A' && c <= 'F') return cycle('A', 6);
  if (c >= 'G' && c <= 'Z') return cycle('G', 20);
  return undefined;
}
