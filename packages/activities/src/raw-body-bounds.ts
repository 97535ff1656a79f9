/**
 * What a signed body may carry besides the values the schemas check. The raw text is kept as
 * the vote's message (the stamp verifies over exactly those bytes), so whatever `JSON.parse`
 * throws away — a value shadowed by a later duplicate key, padding between tokens, a number
 * spelled with a megabyte of digits — would be stored and echoed without any schema seeing
 * it. Those are refused here, on the text `JSON.parse` has already accepted.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';

/** Padding tolerated beyond the size of the content itself (pretty-printed bodies pass). */
export const WHITESPACE_ALLOWANCE = 16 * 1024;
/** Longer than any number a client writes (the API carries int64 values as strings). */
export const MAX_NUMBER_LENGTH = 32;
const DELIMITER = /[\s,\]}]/;
/** Longest member name quoted back in a refusal. */
const MAX_ECHOED_NAME = 64;

interface ObjectFrame {
  readonly keys: Set<string>;
  readonly path: string;
  /** The member whose value comes next (or came last). */
  key: string | undefined;
  expectingKey: boolean;
}
interface ArrayFrame {
  readonly keys: undefined;
  readonly path: string;
  index: number;
}
type Frame = ObjectFrame | ArrayFrame;

const pointerSegment = (name: string) =>
  (name.length > MAX_ECHOED_NAME ? `${name.slice(0, MAX_ECHOED_NAME)}…` : name)
    .replaceAll('~', '~0')
    .replaceAll('/', '~1');

/**
 * Refuses a duplicate member name (as protobuf JSON decoding does) with "duplicate field:
 * <path>", and padding beyond {@link WHITESPACE_ALLOWANCE} plus the content's own size or a
 * number longer than {@link MAX_NUMBER_LENGTH} with "bad request body".
 * @param text a body `JSON.parse` accepted
 * @throws KeyholdError DUPLICATE_FIELD, REQUEST_INVALID
 */
export function checkRawBodyBounds(text: string): void {
  const stack: Frame[] = [];
  let whitespace = 0;
  let i = 0;
  const top = () => stack[stack.length - 1];
  /** The pointer of the value that starts here (inside the top frame). */
  const valuePath = () => {
    const frame = top();
    if (!frame) return '';
    if (frame.keys) return `${frame.path}/${pointerSegment(frame.key ?? '')}`;
    return `${frame.path}/${frame.index}`;
  };
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      whitespace++;
      i++;
    } else if (c === 0x22 /* " */) {
      let end = i + 1;
      for (;;) {
        const q = text.indexOf('"', end);
        let backslashes = 0;
        while (text.charCodeAt(q - 1 - backslashes) === 0x5c) backslashes++;
        end = q + 1;
        if (backslashes % 2 === 0) break;
      }
      const frame = top();
      if (frame?.keys && frame.expectingKey) {
        const name = JSON.parse(text.slice(i, end)) as string;
        if (frame.keys.has(name)) {
          const field = `${frame.path}/${pointerSegment(name)}`;
          throw new KeyholdError(
            'DUPLICATE_FIELD',
            { field, reason: 'a member may appear once' },
            `duplicate field: ${field}`,
          );
        }
        frame.keys.add(name);
        frame.key = name;
        frame.expectingKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const path = valuePath();
      stack.push(
        c === 0x7b
          ? { keys: new Set(), path, key: undefined, expectingKey: true }
          : { keys: undefined, path, index: 0 },
      );
      i++;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      i++;
    } else if (c === 0x2c /* , */) {
      const frame = top();
      if (frame?.keys) frame.expectingKey = true;
      else if (frame) frame.index++;
      i++;
    } else if (c === 0x3a /* : */) {
      i++;
    } else {
      // A number or a literal (true, false, null): runs to the next delimiter.
      let end = i + 1;
      while (
        end < text.length &&
        end - i <= MAX_NUMBER_LENGTH &&
        !DELIMITER.test(text[end] as string)
      )
        end++;
      if (end - i > MAX_NUMBER_LENGTH) {
        throw new KeyholdError('REQUEST_INVALID', {
          field: valuePath(),
          reason: `a number may have at most ${MAX_NUMBER_LENGTH} characters`,
        });
      }
      i = end;
    }
  }
  if (whitespace > WHITESPACE_ALLOWANCE + (text.length - whitespace)) {
    throw new KeyholdError('REQUEST_INVALID', {
      reason: 'whitespace between tokens exceeds the content of the body',
    });
  }
}
