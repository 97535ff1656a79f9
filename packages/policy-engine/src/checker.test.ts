import { describe, expect, it } from 'vitest';
import {
  CONDITION_EXAMPLES,
  CONSENSUS_EXAMPLES,
  TIME_EXAMPLES,
} from './__testing__/doc-examples.js';
import { checkPolicy } from './policy.js';
import { PolicyError, type PolicyField } from './policy-error.js';
import { TURNKEY_SCHEMA } from './schema.js';
import { typeToString } from './types.js';

function refusal(field: PolicyField, source: string): PolicyError {
  try {
    checkPolicy({ [field]: source });
  } catch (e) {
    if (e instanceof PolicyError) return e;
    throw e;
  }
  throw new Error(`expected the ${field} '${source}' to be refused`);
}

describe('checkPolicy', () => {
  it.each(CONDITION_EXAMPLES)('accepts the docs condition %s', (condition) => {
    expect(checkPolicy({ condition }).condition?.root.type.t).toMatch(/bool|any/);
  });
  it.each(CONSENSUS_EXAMPLES)('accepts the docs consensus %s', (consensus) => {
    expect(checkPolicy({ consensus }).consensus?.root.type).toEqual({ t: 'bool' });
  });
  it.each(TIME_EXAMPLES)('accepts the docs time gate %s', (time) => {
    expect(checkPolicy({ time }).time?.root.type).toEqual({ t: 'bool' });
  });

  it('treats absent, null and blank fields as absent', () => {
    expect(checkPolicy({ condition: '', consensus: '   ', time: null })).toEqual({});
  });

  it('types keywords, fields and functions', () => {
    const c = checkPolicy({
      condition: "eth.tx.contract_call_args['calls'].all(c, c[1] == 0)",
    }).condition;
    expect(c?.root).toMatchObject({
      k: 'all',
      target: {
        k: 'index',
        type: { t: 'any' },
        target: { k: 'field', target: { k: 'root', path: ['eth', 'tx'] } },
      },
      body: { k: 'cmp', left: { k: 'index', target: { k: 'var', slot: 0 } } },
    });
    expect(c?.slots).toBe(1);
    // .contains(v) is v in list; .count and .count() are the same thing
    expect(
      checkPolicy({ condition: "private_key.tags.contains('x')" }).condition?.root,
    ).toMatchObject({
      k: 'in',
      left: { k: 'const', value: 'x' },
      right: { k: 'field', name: 'tags' },
    });
    expect(
      checkPolicy({ condition: 'solana.tx.transfers.count == 1' }).condition?.root,
    ).toMatchObject({
      left: { k: 'count', type: { t: 'int' } },
    });
  });

  it('lets a lambda variable shadow a keyword or an outer variable', () => {
    const c = checkPolicy({
      condition: "wallets.any(wallet, wallet.label == 'x') && [[1]].all(x, x.all(x, x == 1))",
    }).condition;
    expect(c?.slots).toBe(2);
  });

  it('turns Timestamp() into a constant and validates CronSpan() when the policy is written', () => {
    const t = checkPolicy({ time: "time.now < Timestamp('2026-01-01T00:00:00.5Z')" }).time;
    expect(t?.root).toMatchObject({ right: { k: 'const', value: 1_767_225_600_500_000_000n } });
    const c = checkPolicy({ time: "CronSpan('0 9 * * 1-5', '1d12h', 'Asia/Kolkata')" }).time;
    expect(c?.root).toMatchObject({
      k: 'cronspan',
      span: { durationMs: 36 * 3_600_000, timeZone: 'Asia/Kolkata' },
    });
  });

  it.each<[PolicyField, string, number, RegExp]>([
    // unknown keywords and fields
    [
      'condition',
      "foo.id == 'x'",
      1,
      /unknown keyword 'foo'; a condition may use activity, wallet, wallets/,
    ],
    [
      'condition',
      "activity.foo == 'x'",
      10,
      /Activity has no field 'foo' \(fields: type, kind, resource, action, params\)/,
    ],
    [
      'condition',
      "eth.foo.to == 'x'",
      5,
      /unknown keyword 'eth.foo' \(known: eth.tx, eth.eip_712, eth.eip_7702_authorization\)/,
    ],
    ['condition', "eth == 'x'", 1, /'eth' is not a value; use eth.tx, eth.eip_712/],
    ['condition', "private_key.tags.foo == 'x'", 18, /list<string> has no field 'foo'/],
    [
      'condition',
      "eth.eip_712.domain['name'] == 'x'",
      19,
      /Eip712Domain is a struct: read its fields with '.name'/,
    ],
    [
      'condition',
      "solana.tx.instructions[0].parsed_instruction_data.named_account.source == 'x'",
      65,
      /read a map with \['source'\]/,
    ],
    ['condition', 'wallet.id.length == 1', 11, /a string has no field 'length'/],
    // keywords of another field
    [
      'consensus',
      "activity.type == 'x'",
      1,
      /'activity' is a condition keyword; a consensus may use only approvers, credentials/,
    ],
    [
      'consensus',
      "wallet.id == 'x' && approvers.count() > 0",
      1,
      /'wallet' is a condition keyword/,
    ],
    [
      'condition',
      'approvers.count() > 1',
      1,
      /'approvers' is a consensus keyword; a condition may use only activity/,
    ],
    ['condition', "time.now > Timestamp('2026-01-01T00:00:00Z')", 1, /'time' is a time keyword/],
    [
      'time',
      "activity.action == 'SIGN'",
      1,
      /'activity' is a condition keyword; a time expression may use only time.now/,
    ],
    ['time', 'approvers.count() > 1', 1, /'approvers' is a consensus keyword/],
    ['time', 'time.later > 1', 6, /unknown keyword 'time.later'/],
    // operand types
    [
      'condition',
      'activity.action == 1',
      17,
      /'==' compares two bools, ints, strings or timestamps of the same type, not string and int/,
    ],
    [
      'condition',
      "activity.action < 'b'",
      17,
      /'<' compares two ints or two timestamps, not string and string/,
    ],
    ['condition', "wallet == 'x'", 8, /not Wallet and string/],
    ['condition', "private_key.tags == ['a']", 18, /not list<string> and list<string>/],
    ['condition', "wallet.imported && 'yes'", 20, /each side of '&&' must be a bool, found string/],
    ['condition', '!activity.type', 2, /the operand of '!' must be a bool, found string/],
    ['condition', "1 in ['a']", 1, /'in' cannot look for a int in a list<string>/],
    ['condition', "'a' in activity.type", 8, /'in' needs a list, found string/],
    [
      'condition',
      'wallet in wallets',
      11,
      /compares bool, int, string or timestamp values, not Wallet/,
    ],
    [
      'condition',
      'private_key.tags.contains(1)',
      27,
      /contains\(\) cannot look for a int in a list<string>/,
    ],
    [
      'condition',
      "['a', 1].count() > 0",
      7,
      /list items must have one type: found int after string/,
    ],
    ['condition', "wallet.label[0..'x'] == 'a'", 17, /a slice end must be an int, found string/],
    ['condition', "wallet.label[2..1] == 'a'", 13, /ends before it starts/],
    ['condition', "wallets[-1].id == 'a'", 9, /a list index must not be negative/],
    ['condition', "wallets['a'].id == 'a'", 9, /a list index must be an int, found string/],
    ['condition', 'wallet.imported[0]', 16, /a bool cannot be indexed/],
    ['condition', 'wallet.imported[0..1]', 16, /only lists and strings can be sliced/],
    // functions
    ['condition', 'wallets.any(w)', 9, /any\(\) takes a variable name and a predicate/],
    [
      'condition',
      "wallets.any('w', true)",
      13,
      /the first argument of any\(\) must be a variable name/,
    ],
    [
      'condition',
      'wallets.all(w, w.label)',
      16,
      /the predicate of all\(\) must be a bool, found string/,
    ],
    ['condition', 'wallet.label.all(c, true)', 14, /all\(\) applies to lists, not to a string/],
    ['condition', 'wallets.count(1) > 0', 9, /count\(\) takes no arguments/],
    [
      'condition',
      'wallets.size() > 0',
      9,
      /unknown function 'size\(\)'; lists have all, any, filter, contains, count/,
    ],
    [
      'condition',
      "wallets.filter(w, w.imported).label == 'x'",
      31,
      /list<Wallet> has no field 'label'/,
    ],
    ['condition', 'now() > 1', 1, /unknown function 'now\(\)'/],
    [
      'condition',
      "Timestamp('2026-01-01T00:00:00Z') > 1",
      1,
      /Timestamp\(\) may only be used in the time field/,
    ],
    [
      'consensus',
      "CronSpan('* * * * *', '1h', 'UTC')",
      1,
      /CronSpan\(\) may only be used in the time field/,
    ],
    // the time field
    [
      'time',
      "time.now > Timestamp('2026-01-01T00:00:00-05:00')",
      22,
      /must have a zero UTC offset/,
    ],
    ['time', "time.now > Timestamp('2026-02-30T00:00:00Z')", 22, /not a valid calendar date/],
    ['time', "time.now > Timestamp('yesterday')", 22, /not an RFC 3339 timestamp/],
    [
      'time',
      'time.now > Timestamp(1)',
      22,
      /Timestamp\(\) needs an RFC 3339 time as a string literal/,
    ],
    ['time', 'time.now > 5', 10, /'>' compares two ints or two timestamps, not timestamp and int/],
    ['time', "CronSpan('*/5 * * * *', '1h', 'UTC')", 10, /step values/],
    ['time', "CronSpan('0 9 * * MON', '1h', 'UTC')", 10, /names \('MON'\) are not supported/],
    ['time', "CronSpan('0 0 9 * * 1', '1h', 'UTC')", 10, /5 fields/],
    ['time', "CronSpan('@daily', '1h', 'UTC')", 10, /macros/],
    ['time', "CronSpan('0 24 * * *', '1h', 'UTC')", 10, /hour '24' is outside 0-23/],
    ['time', "CronSpan('0 9 * * 7', '1h', 'UTC')", 10, /day-of-week '7' is outside 0-6/],
    ['time', "CronSpan('0 9 * * 5-1', '1h', 'UTC')", 10, /runs backwards/],
    ['time', "CronSpan('0 9 * * *', '8d', 'UTC')", 23, /longer than 7 days/],
    ['time', "CronSpan('0 9 * * *', '0h', 'UTC')", 23, /greater than zero/],
    ['time', "CronSpan('0 9 * * *', '1.5h', 'UTC')", 23, /not a duration/],
    ['time', "CronSpan('0 9 * * *', '30s', 'UTC')", 23, /not a duration/],
    ['time', "CronSpan('0 9 * * *', '1h', 'Mars/Olympus_Mons')", 29, /not an IANA time zone/],
    ['time', "CronSpan('0 9 * * *', '1h', '+05:00')", 29, /not an IANA time zone/],
    [
      'time',
      "CronSpan('0 9 * * *', '1h')",
      1,
      /takes a cron expression, a duration and a time zone/,
    ],
    // the result must be a bool
    [
      'condition',
      'activity.type',
      1,
      /a condition must be a bool expression, this one is a string/,
    ],
    [
      'consensus',
      'approvers.count()',
      1,
      /a consensus must be a bool expression, this one is a int/,
    ],
    ['time', 'time.now', 1, /a time expression must be a bool expression, this one is a timestamp/],
  ])('refuses the %s %s (column %i)', (field, source, column, detail) => {
    const e = refusal(field, source);
    expect(e.kind).toBe(field);
    expect(e.detail).toMatch(detail);
    expect(e.position.column).toBe(column);
  });

  it('accepts dynamic values where a bool, int or string is expected, to be checked when evaluated', () => {
    for (const condition of [
      'activity.params.flag',
      "activity.params.user_ids[0] == 'u'",
      'activity.params.n > 3',
      "activity.params.list.any(x, x['k'] == 1 && x.v)",
      "activity.params[0..2] == 'ab'",
      'activity.params.count() > 1',
    ]) {
      expect(() => checkPolicy({ condition }), condition).not.toThrow();
    }
  });

  it('types every keyword of wire-compat §5', () => {
    const shown = Object.fromEntries(
      Object.entries(TURNKEY_SCHEMA.condition).map(([k, t]) => [k, typeToString(t)]),
    );
    expect(shown).toEqual({
      activity: 'Activity',
      wallet: 'Wallet',
      wallets: 'list<Wallet>',
      wallet_account: 'WalletAccount',
      private_key: 'PrivateKey',
      eth: 'namespace eth',
      solana: 'namespace solana',
      tron: 'namespace tron',
      bitcoin: 'namespace bitcoin',
      tempo: 'namespace tempo',
    });
    expect(Object.keys(TURNKEY_SCHEMA.consensus)).toEqual(['approvers', 'credentials']);
  });
});
