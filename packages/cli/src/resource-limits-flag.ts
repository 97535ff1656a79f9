/**
 * `--resource-limits users=100,wallets=10,…`: the operator's per-organization limits, each
 * name one of `RESOURCE_KINDS` and each value a whole number. A bad list is a usage error that
 * names the flag and what was wrong, so a typo never runs a server without the limit meant.
 * @module
 */
import { RESOURCE_KINDS, type ResourceLimits } from '@keyhold/activities';

/**
 * The limits a `--resource-limits` value sets.
 * @throws Error naming the flag, for an unknown name, a bad number or a name given twice
 * @example
 * parseResourceLimits('wallets=10,subOrganizations=1000'); // { wallets: 10, subOrganizations: 1000 }
 */
export function parseResourceLimits(text: string): ResourceLimits {
  const limits: Record<string, number> = {};
  for (const entry of text.split(',')) {
    const [name = '', value, ...rest] = entry.trim().split('=');
    const kind = RESOURCE_KINDS.find((k) => k === name.trim());
    if (!kind || value === undefined || rest.length > 0) {
      throw new Error(
        `--resource-limits takes NAME=N pairs separated by commas, NAME one of ${RESOURCE_KINDS.join(', ')}; got "${entry.trim()}"`,
      );
    }
    if (!/^\d{1,9}$/.test(value.trim())) {
      throw new Error(`--resource-limits: ${kind} must be a whole number, got "${value.trim()}"`);
    }
    if (kind in limits) throw new Error(`--resource-limits: ${kind} is given twice`);
    limits[kind] = Number(value.trim());
  }
  return limits;
}
