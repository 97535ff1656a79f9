import { KeyholdError } from '@keyhold/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRawBodyBounds, MAX_NUMBER_LENGTH, WHITESPACE_ALLOWANCE } from './raw-body-bounds.js';

function refusal(text: string): KeyholdError {
  JSON.parse(text); // the check only ever sees text JSON.parse accepted
  try {
    checkRawBodyBounds(text);
  } catch (error) {
    if (error instanceof KeyholdError) return error;
    throw error;
  }
  throw new Error(`accepted: ${text.slice(0, 80)}`);
}

describe('checkRawBodyBounds', () => {
  it('refuses a duplicate member, naming its path, however the name is escaped', () => {
    const top = refusal('{"type":"a","parameters":{},"type":"b"}');
    expect(top.key).toBe('DUPLICATE_FIELD');
    expect(top.message).toBe('duplicate field: /type');

    const hidden = `{"parameters":{"accounts":[{},{"path":"${'x'.repeat(1000)}","p\\u0061th":"m"}]}}`;
    expect(refusal(hidden).message).toBe('duplicate field: /parameters/accounts/1/path');
    expect(refusal(hidden).toStatus().details[0]).toMatchObject({
      errorCode: 'DUPLICATE_FIELD',
      field: '/parameters/accounts/1/path',
    });
  });

  it('tells keys from values and strings from structure', () => {
    for (const text of [
      '{"a":"a","b":{"a":1},"c":[{"a":1},{"a":2}]}',
      '{"a":"} , \\" { [ \\\\","b":"\\\\\\"","c":"a"}',
      '{"a":[[],{}],"b":{"c":{"d":[1,2,{"a":1}]}},"e":null}',
      '{"n":-1.5e10,"t":true,"f":false,"z":null,"s":""}',
    ]) {
      expect(() => checkRawBodyBounds(text), text).not.toThrow();
    }
  });

  it('refuses padding beyond the allowance plus the content, not pretty printing', () => {
    const body = { parameters: { walletName: 'w', accounts: [{ curve: 'c', path: 'p' }] } };
    expect(() => checkRawBodyBounds(JSON.stringify(body, null, 8))).not.toThrow();
    const content = JSON.stringify(body);
    const padded = `${content.slice(0, -1)}${' '.repeat(WHITESPACE_ALLOWANCE + content.length + 1)}}`;
    expect(refusal(padded).key).toBe('REQUEST_INVALID');
    const justEnough = `${content.slice(0, -1)}${' '.repeat(WHITESPACE_ALLOWANCE + content.length)}}`;
    expect(() => checkRawBodyBounds(justEnough)).not.toThrow();
  });

  it('refuses a number spelled with more than the longest length a client writes', () => {
    const ok = `{"rootQuorumThreshold":1.${'0'.repeat(MAX_NUMBER_LENGTH - 2)}}`;
    expect(() => checkRawBodyBounds(ok)).not.toThrow();
    const padded = `{"p":{"rootQuorumThreshold":1.${'0'.repeat(1_000_000)}}}`;
    const error = refusal(padded);
    expect(error.key).toBe('REQUEST_INVALID');
    expect(error.context.field).toBe('/p/rootQuorumThreshold');
  });

  it('accepts whatever JSON.stringify writes (compact or indented)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 })), (value) => {
        checkRawBodyBounds(JSON.stringify(value));
        checkRawBodyBounds(JSON.stringify(value, null, 2));
      }),
      { numRuns: 300 },
    );
  });
});
