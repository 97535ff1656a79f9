/**
 * The delegated-access rule at its source: a parent organization's user may submit in a
 * sub-organization only the kinds of PARENT_RUN_KINDS (the login and auth activities a
 * parent's backend runs for its end users); any other kind, and a user of any other
 * organization, is "organization mismatch". (The HTTP tests cover the kinds served today.)
 */
import { isKeyholdError, PARENT_RUN_KINDS } from '@keyhold/protocol';
import { describe, expect, it } from 'vitest';
import { requireSameOrganization } from './activity-proposal.js';
import type { Principal } from './principal.js';
import type { OrganizationRecord } from './records.js';

const subOrganization: OrganizationRecord = {
  organizationId: 'sub',
  name: 'sub',
  parentOrganizationId: 'parent',
  rootQuorum: { threshold: 1, userIds: ['u'] },
  createdAt: 0,
  updatedAt: 0,
};
const principalOf = (organizationId: string) => ({ organizationId }) as Principal;

const refusal = (run: () => void) => {
  try {
    run();
  } catch (error) {
    return isKeyholdError(error) ? error.key : error;
  }
  return undefined;
};

describe('requireSameOrganization', () => {
  it("lets a sub-organization's own user submit anything", () => {
    for (const kind of ['CREATE_WALLET', 'STAMP_LOGIN', 'OTP_LOGIN', undefined]) {
      expect(
        refusal(() => requireSameOrganization(principalOf('sub'), subOrganization, kind)),
      ).toBeUndefined();
    }
  });

  it("lets the parent's user submit the parent-run login kinds, and nothing else", () => {
    expect([...PARENT_RUN_KINDS].sort()).toEqual([
      'EMAIL_AUTH',
      'INIT_OTP_AUTH',
      'INIT_USER_EMAIL_RECOVERY',
      'OAUTH',
      'OAUTH_LOGIN',
      'OTP_AUTH',
      'OTP_LOGIN',
    ]);
    for (const kind of PARENT_RUN_KINDS) {
      expect(
        refusal(() => requireSameOrganization(principalOf('parent'), subOrganization, kind)),
      ).toBeUndefined();
    }
    for (const kind of [
      'CREATE_WALLET',
      'STAMP_LOGIN',
      'CREATE_READ_WRITE_SESSION',
      'INIT_OTP',
      'VERIFY_OTP',
      undefined,
    ]) {
      expect(
        refusal(() => requireSameOrganization(principalOf('parent'), subOrganization, kind)),
      ).toBe('ORGANIZATION_MISMATCH');
    }
  });

  it('refuses a user of any other organization, whatever the kind', () => {
    for (const kind of ['OTP_LOGIN', 'CREATE_WALLET']) {
      expect(
        refusal(() => requireSameOrganization(principalOf('sibling'), subOrganization, kind)),
      ).toBe('ORGANIZATION_MISMATCH');
    }
  });
});
