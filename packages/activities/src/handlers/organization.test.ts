/** UPDATE_ROOT_QUORUM and UPDATE_ORGANIZATION_NAME against a handler context, no store. */
import type { IntentOf } from '@keyhold/protocol';
import { describe, expect, it } from 'vitest';
import type { OrganizationRecord, UserRecord } from '../records.js';
import { handlerContext } from './__fixtures__/handler-context.js';
import { updateRootQuorumHandler } from './organization.js';

const definition = handlerContext({ type: 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM' }).definition;
const settings = { allowPrivateWebhookDestinations: false };
const user = (userId: string) => ({ userId }) as UserRecord;

describe('UPDATE_ROOT_QUORUM', () => {
  it('refuses a threshold above the distinct quorum users before anything runs', () => {
    const p: IntentOf<'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM'> = { threshold: 2, userIds: ['u', 'u'] };
    expect(() => updateRootQuorumHandler.precheck?.(p, definition, settings)).toThrow(
      expect.objectContaining({ key: 'INVALID_QUORUM_THRESHOLD' }),
    );
  });

  it('fails for a user the organization does not have', async () => {
    const ctx = handlerContext({
      type: 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM',
      tx: { users: { get: async (_org, id) => (id === 'a' ? user('a') : undefined) } },
    });
    await expect(
      updateRootQuorumHandler.execute(ctx, { threshold: 1, userIds: ['a', 'b'] }),
    ).rejects.toMatchObject({ key: 'QUORUM_USERS_MISSING', context: { userId: 'b' } });
  });

  it('stores the quorum with each user once and answers an empty result', async () => {
    const updates: OrganizationRecord[] = [];
    const ctx = handlerContext({
      type: 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM',
      tx: {
        users: { get: async (_org, id) => user(id) },
        organizations: { update: async (org) => void updates.push(org) },
      },
    });
    const result = await updateRootQuorumHandler.execute(ctx, {
      threshold: 2,
      userIds: ['a', 'b', 'a'],
    });
    expect(result).toEqual({});
    expect(updates.map((o) => o.rootQuorum)).toEqual([{ threshold: 2, userIds: ['a', 'b'] }]);
    expect(updates[0]?.updatedAt).toBe(ctx.now);
  });
});
