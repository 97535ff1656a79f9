/**
 * User tags referenced by users. Tag records arrive with the policy engine; until then no
 * tag exists, so any referenced tag id is refused rather than stored dangling.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import type { ActivityContext } from './activity-handler.js';

export async function requireUserTags(
  _ctx: ActivityContext,
  tagIds: readonly string[] = [],
): Promise<string[]> {
  if (tagIds.length > 0) throw new KeyholdError('USER_TAG_NOT_FOUND', { userTagId: tagIds[0] });
  return [];
}
