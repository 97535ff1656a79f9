import { ACTIVITY_DEFINITIONS, isKeyholdError, KeyholdError } from '@keyhold/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertKeywordsAvailable,
  KEYWORDS_BY_KIND,
  keywordsOfActivityType,
} from './keyword-availability.js';
import { checkPolicyTexts } from './policy-errors.js';

/** The refusal's detail, or undefined when the condition is accepted. */
function refusal(condition: string): string | undefined {
  try {
    checkPolicyTexts({ condition });
    return undefined;
  } catch (error) {
    if (!isKeyholdError(error)) throw error;
    expect(error.key).toBe('INVALID_POLICY_CONDITION');
    return String(error.context.detail);
  }
}

describe('keywords an activity type can never carry are refused at write time', () => {
  it('refuses eth.tx for CREATE_WALLET, saying which keyword, which types and where', () => {
    const condition = "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET' && eth.tx.to == '0x1'";
    let error: unknown;
    try {
      checkPolicyTexts({ condition }, { policyIndex: 2 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KeyholdError);
    expect((error as KeyholdError).context).toMatchObject({
      policyIndex: 2,
      field: 'condition',
      line: 1,
      column: condition.indexOf('eth.tx') + 1,
    });
    expect(String((error as KeyholdError).context.detail)).toContain(
      'eth.tx is never present for ACTIVITY_TYPE_CREATE_WALLET',
    );
  });

  it.each([
    // Named by kind, action, resource, and `in` lists; operands in either order.
    ["activity.kind == 'CREATE_USERS' && wallet.id == 'w'", 'wallet'],
    ["'EXPORT_PRIVATE_KEY' == activity.kind && wallet_account.address == 'a'", 'wallet_account'],
    ["activity.resource == 'USER' && eth.eip_712.primary_type == 'Mail'", 'eth.eip_712'],
    [
      "activity.type in ['ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', 'ACTIVITY_TYPE_SIGN_RAW_PAYLOADS'] && solana.tx.instructions.count() > 0",
      'solana.tx',
    ],
    ["activity.kind == 'SIGN_TRANSACTION' && eth.eip_712.primary_type == 'Mail'", 'eth.eip_712'],
    ["activity.kind == 'DELETE_WALLETS' && private_key.id == 'k'", 'private_key'],
  ])('refuses %s', (condition, keyword) => {
    expect(refusal(condition)).toContain(`${keyword} is never present for`);
  });

  it.each([
    // A type that carries it.
    "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.to == '0x1'",
    "activity.action == 'SIGN' && eth.eip_712.primary_type == 'Mail'",
    "activity.kind in ['DELETE_WALLETS', 'CREATE_USERS'] && wallet.id == 'w'",
    // Nothing required of every match: `||`, `!=`, no activity clause.
    "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET' || eth.tx.to == '0x1'",
    "activity.type != 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.to == '0x1'",
    "eth.tx.to == '0x1'",
    // A lambda variable named like a keyword is not the keyword.
    "activity.kind == 'CREATE_USERS' && activity.params.user_ids.all(wallet, wallet != '')",
    // Only types not served yet: their keywords are not known, so not checked.
    "activity.type == 'ACTIVITY_TYPE_SOL_SEND_TRANSACTION' && wallet.id == 'w'",
  ])('accepts %s', (condition) => {
    expect(refusal(condition)).toBeUndefined();
  });

  it('property: a condition on a served type and a keyword is refused exactly when the kind does not carry it', () => {
    const keywords = [
      'wallet',
      'wallet_account',
      'private_key',
      'eth.tx',
      'eth.eip_712',
      'solana.tx',
    ];
    const read: Record<string, string> = {
      wallet: "wallet.id == 'w'",
      wallet_account: "wallet_account.address == 'a'",
      private_key: "private_key.id == 'k'",
      'eth.tx': "eth.tx.to == '0x1'",
      'eth.eip_712': "eth.eip_712.primary_type == 'Mail'",
      'solana.tx': 'solana.tx.instructions.count() > 0',
    };
    fc.assert(
      fc.property(
        fc.constantFrom(...ACTIVITY_DEFINITIONS),
        fc.constantFrom(...keywords),
        (definition, keyword) => {
          const condition = `activity.type == '${definition.type}' && ${read[keyword]}`;
          const carried = (KEYWORDS_BY_KIND[definition.kind] ?? []) as readonly string[];
          expect(refusal(condition) === undefined).toBe(carried.includes(keyword));
          expect(keywordsOfActivityType(definition.type)).toEqual(
            KEYWORDS_BY_KIND[definition.kind] ?? [],
          );
        },
      ),
    );
  });

  it('keeps the caller context and ignores an absent condition', () => {
    expect(() => assertKeywordsAvailable(undefined)).not.toThrow();
    expect(() => assertKeywordsAvailable('  ')).not.toThrow();
  });
});
