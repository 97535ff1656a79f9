import { describe, expect, it } from 'vitest';
import {
  checkPolicyFile,
  excerptAt,
  PolicyFileError,
  policiesOfDocument,
} from './policy-file-check.js';

describe('policy file check', () => {
  it('reads the three shapes of a policy file and refuses any other', () => {
    const policy = { effect: 'EFFECT_ALLOW' };
    expect(policiesOfDocument([policy, policy])).toEqual([policy, policy]);
    expect(policiesOfDocument({ policies: [policy] })).toEqual([policy]);
    expect(policiesOfDocument(policy)).toEqual([policy]);
    expect(() => policiesOfDocument({ policies: 1 })).toThrow(PolicyFileError);
    expect(() => policiesOfDocument('x')).toThrow(PolicyFileError);
    expect(() => checkPolicyFile('f.json', '[')).toThrow(/^f\.json is not JSON: /);
  });

  it('keeps tabs before the column so the caret lines up, and points past the end of a line', () => {
    expect(excerptAt("a == 'x'\n\twallet.idd", 2, 9)).toEqual(['  \twallet.idd', '  \t       ^']);
    expect(excerptAt('wallet.id ==', 1, 13)).toEqual(['  wallet.id ==', `  ${' '.repeat(12)}^`]);
  });

  it('counts failures, flags unknown fields and wrong types, and names each policy', () => {
    const report = checkPolicyFile(
      'p.json',
      JSON.stringify([
        { policyName: 'a', effect: 'EFFECT_DENY', conditon: 'true' },
        { policyName: 'b', effect: 'EFFECT_DENY', condition: 5 },
        { policyName: 'c', effect: 'EFFECT_ALLOW', consensus: "approvers.any(u, u.id == 'x')" },
        'not a policy',
      ]),
    );
    expect(report).toEqual({
      policies: 4,
      failed: 3,
      lines: [
        'p.json: policy 1 (a): unknown field "conditon" (a policy has policyName, effect, condition, consensus, time, notes)',
        'p.json: policy 2 (b): condition must be a string',
        'p.json: policy 3 (c): OK',
        'p.json: policy 4: a policy must be a JSON object',
      ],
    });
  });

  it('refuses, as CREATE_POLICY does, a keyword the named activity types never carry', () => {
    const condition = "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET' && eth.tx.to == '0x1'";
    const report = checkPolicyFile(
      'p.json',
      JSON.stringify([{ policyName: 'never', effect: 'EFFECT_DENY', condition }]),
    );
    expect(report.failed).toBe(1);
    expect(report.lines[0]).toContain(
      'p.json: policy 1 (never): condition line 1 column 51: eth.tx is never present for ACTIVITY_TYPE_CREATE_WALLET',
    );
    expect(report.lines[2]).toBe(`  ${' '.repeat(50)}^`);
  });
});
