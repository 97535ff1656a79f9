import { describe, expect, it } from 'vitest';
import type { StoreTransaction } from '../ports/store.js';
import type {
  GasUsageConfigRecord,
  OrganizationRecord,
  SendTransactionRecord,
} from '../records.js';
import { gasLimitsOf, gasUsageOf, microUsd, usdOf } from './gas-sponsorship.js';

describe('USD amounts of gas sponsorship', () => {
  it('reads decimal strings to micro-dollars and writes them back with six decimals', () => {
    expect(microUsd('0')).toBe(0n);
    expect(microUsd('25')).toBe(25_000_000n);
    expect(microUsd('0.2')).toBe(200_000n);
    expect(microUsd('12.345678')).toBe(12_345_678n);
    expect(usdOf(126_000n)).toBe('0.126000');
    expect(usdOf(25_000_000n)).toBe('25.000000');
    expect(usdOf(microUsd('999999999999.999999'))).toBe('999999999999.999999');
  });
});

describe('the limits and usage that apply to an organization', () => {
  const config = (organizationId: string, enabled = true): GasUsageConfigRecord => ({
    organizationId,
    gasUsageConfigId: `gas-${organizationId}`,
    orgWindowLimitUsd: '10.000000',
    subOrgWindowLimitUsd: '1.000000',
    windowDurationMinutes: 60,
    enabled,
    createdAt: 0,
    updatedAt: 0,
  });
  const sent = (organizationId: string, createdAt: number, sponsoredUsd?: string) =>
    ({
      organizationId,
      createdAt,
      ...(sponsoredUsd ? { sponsoredUsd } : {}),
    }) as SendTransactionRecord;
  /** The two repositories the sponsorship reads. */
  function tx(configs: GasUsageConfigRecord[], sends: SendTransactionRecord[]) {
    return {
      gasUsageConfigs: {
        list: async (org: string) => configs.filter((c) => c.organizationId === org),
      },
      sendTransactions: {
        list: async (org: string) => sends.filter((s) => s.organizationId === org),
      },
    } as unknown as StoreTransaction;
  }
  const org = (organizationId: string, parentOrganizationId?: string) =>
    ({
      organizationId,
      ...(parentOrganizationId ? { parentOrganizationId } : {}),
    }) as OrganizationRecord;

  it('an organization has its own limit; a sub-organization without one has its parent’s sub-organization limit', async () => {
    const store = tx([config('parent'), config('own-sub', false)], []);
    expect(await gasLimitsOf(store, org('parent'))).toEqual({
      windowLimitUsd: '10.000000',
      windowDurationMinutes: 60,
      enabled: true,
    });
    expect(await gasLimitsOf(store, org('sub', 'parent'))).toEqual({
      windowLimitUsd: '1.000000',
      windowDurationMinutes: 60,
      enabled: true,
    });
    expect((await gasLimitsOf(store, org('own-sub', 'parent')))?.enabled).toBe(false);
    expect(await gasLimitsOf(store, org('lonely'))).toBeUndefined();
  });

  it('usage counts the sponsored sends of the window only', async () => {
    const now = 10 * 3_600_000;
    const store = tx(
      [],
      [
        sent('o', now - 30 * 60_000, '0.126'),
        sent('o', now - 59 * 60_000, '0.5'),
        sent('o', now - 61 * 60_000, '7'), // before the window
        sent('o', now - 1_000), // not sponsored
        sent('other', now, '3'),
      ],
    );
    expect(usdOf(await gasUsageOf(store, 'o', 60, now))).toBe('0.626000');
  });
});
