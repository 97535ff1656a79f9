/**
 * The handler map is typed by the protocol's schemas: these tests are checked by `tsc -p
 * tsconfig.check.json` (each `@ts-expect-error` must meet an error, or the typecheck fails)
 * and run by vitest, which checks that the run-time catalogue and the type-level kinds agree.
 */
import {
  ACTIVITY_DEFINITIONS,
  type ActivityResults,
  INTENT_SCHEMAS,
  type IntentOf,
  type IntentOfKind,
  type KindOf,
  type ResultOfKind,
  type TypesOfKind,
  VOTE_KINDS,
} from '@keyhold/protocol';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ActivityHandlerMap, HandledKind, HandlerOf } from './activity-handler.js';
import { ACTIVITY_HANDLERS, HANDLERS_BY_KIND } from './index.js';

describe('the handler map (types)', () => {
  it('does not compile with a served kind left out', () => {
    const withoutSignTransaction = (): ActivityHandlerMap => {
      const { SIGN_TRANSACTION: _left, ...rest } = HANDLERS_BY_KIND;
      // @ts-expect-error SIGN_TRANSACTION is served, so the map must have its handler
      return rest;
    };
    expectTypeOf(withoutSignTransaction).returns.toEqualTypeOf<ActivityHandlerMap>();
  });

  it("does not compile with another kind's handler in a slot", () => {
    const swapped = (): ActivityHandlerMap => ({
      ...HANDLERS_BY_KIND,
      // @ts-expect-error CREATE_WALLET's handler takes and answers something else
      DELETE_POLICY: HANDLERS_BY_KIND.CREATE_WALLET,
    });
    expectTypeOf(swapped).returns.toEqualTypeOf<ActivityHandlerMap>();
  });

  it('does not compile with a handler that expects more than its intent guarantees', () => {
    const handler: HandlerOf<'DELETE_POLICY'> = {
      // @ts-expect-error `force` is no member of DELETE_POLICY's intent
      execute: async (_ctx, p: { policyId: string; force: boolean }) => ({ policyId: p.policyId }),
    };
    expectTypeOf(handler).toEqualTypeOf<HandlerOf<'DELETE_POLICY'>>();
  });

  it('does not compile with a handler that answers the wrong result', () => {
    const handler: HandlerOf<'DELETE_POLICY'> = {
      // @ts-expect-error DELETE_POLICY answers `{ policyId }`, not `{ policyIds }`
      execute: async (_ctx, p) => ({ policyIds: [p.policyId] }),
    };
    expectTypeOf(handler).toEqualTypeOf<HandlerOf<'DELETE_POLICY'>>();
  });

  it('gives a kind the union of its versions', () => {
    expectTypeOf<KindOf<'ACTIVITY_TYPE_CREATE_USERS_V3'>>().toEqualTypeOf<'CREATE_USERS'>();
    expectTypeOf<KindOf<'ACTIVITY_TYPE_UPDATE_WALLET'>>().toEqualTypeOf<'UPDATE_WALLET'>();
    // A `_V` inside a word is no version (a future VERIFY_OTP_V2 is kind VERIFY_OTP).
    expectTypeOf<KindOf<'ACTIVITY_TYPE_VERIFY_OTP_V2'>>().toEqualTypeOf<'VERIFY_OTP'>();
    expectTypeOf<KindOf<'ACTIVITY_TYPE_A_VB_V12'>>().toEqualTypeOf<'A_VB'>();
    expectTypeOf<TypesOfKind<'SIGN_RAW_PAYLOAD'>>().toEqualTypeOf<
      'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD' | 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'
    >();
    expectTypeOf<IntentOfKind<'SIGN_RAW_PAYLOAD'>>().toEqualTypeOf<
      IntentOf<'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD'> | IntentOf<'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'>
    >();
    expectTypeOf<IntentOf<'ACTIVITY_TYPE_DELETE_POLICY'>>().toEqualTypeOf<{ policyId: string }>();
    expectTypeOf<ResultOfKind<'CREATE_PRIVATE_KEYS'>>().toEqualTypeOf<
      | ActivityResults['ACTIVITY_TYPE_CREATE_PRIVATE_KEYS']
      | ActivityResults['ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2']
    >();
  });

  it('has a result type for exactly the handled activity types', () => {
    expectTypeOf<keyof ActivityResults>().toEqualTypeOf<TypesOfKind<HandledKind>>();
  });
});

describe('the handler map (run time)', () => {
  const handled = ACTIVITY_DEFINITIONS.filter((d) => !VOTE_KINDS.has(d.kind));

  it('has an intent schema for every activity type of the catalogue, and no other', () => {
    expect(Object.keys(INTENT_SCHEMAS).sort()).toEqual(
      ACTIVITY_DEFINITIONS.map((d) => d.type).sort(),
    );
  });

  it("names each type's kind as the catalogue does", () => {
    // KindOf strips the prefix and a trailing _V<digits>; the catalogue's kind must agree.
    for (const d of ACTIVITY_DEFINITIONS) {
      expect(d.type.replace(/^ACTIVITY_TYPE_/, '').replace(/_V\d+$/, '')).toBe(d.kind);
    }
  });

  it('has one handler per handled kind and none for the votes', () => {
    expect(Object.keys(HANDLERS_BY_KIND).sort()).toEqual(
      [...new Set(handled.map((d) => d.kind))].sort(),
    );
    for (const kind of VOTE_KINDS) expect(Object.hasOwn(ACTIVITY_HANDLERS, kind)).toBe(false);
    for (const d of handled)
      expect(ACTIVITY_HANDLERS[d.kind]).toBe(HANDLERS_BY_KIND[d.kind as HandledKind]);
  });
});
