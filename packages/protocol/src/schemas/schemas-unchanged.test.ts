/**
 * The JSON Schemas ajv compiles are the wire contract: typing the builders must not change a
 * byte of them. `__fixtures__/schemas.json` is the output of the builders before they were
 * made generic; a change here is a change to what Keyhold accepts, and needs its own review.
 * @module
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INTENT_SCHEMAS } from './intents.js';
import { QUERY_SCHEMAS } from './queries.js';

const fixture = JSON.parse(
  readFileSync(new URL('./__fixtures__/schemas.json', import.meta.url), 'utf8'),
) as { intents: Record<string, unknown>; queries: Record<string, unknown> };

describe('intent and query schemas', () => {
  it('are the recorded JSON, member for member and in the same order', () => {
    const now = JSON.stringify({ intents: INTENT_SCHEMAS, queries: QUERY_SCHEMAS }, null, 2);
    // Strict: a member set to `undefined` would vanish from JSON but not from ajv's view.
    expect({ intents: INTENT_SCHEMAS, queries: QUERY_SCHEMAS }).toStrictEqual(fixture);
    // Key order too: ajv's first error (and so the message a client sees) follows it.
    expect(now).toBe(JSON.stringify(fixture, null, 2));
  });

  it('cover the same activity types and queries as recorded', () => {
    expect(Object.keys(INTENT_SCHEMAS)).toEqual(Object.keys(fixture.intents));
    expect(Object.keys(QUERY_SCHEMAS)).toEqual(Object.keys(fixture.queries));
  });
});
