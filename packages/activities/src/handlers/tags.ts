/**
 * User tags and private-key tags: CREATE_USER_TAG, UPDATE_USER_TAG, DELETE_USER_TAGS and the
 * private-key equivalents. A tag is a named record; membership is the tag id in the tagged
 * record (`userTags`, `privateKeyTags`), which is what policies read (`approvers[].tags`,
 * `private_key.tags`). Names are unique per organization and kind.
 * @module
 */
import { KeyholdError, type MessageKey } from '@keyhold/protocol';
import { type NamedRecordRepository, StoreConflictError } from '../ports/store.js';
import type { PrivateKeyRecord, TagRecord, UserRecord } from '../records.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';

/** What differs between user tags and private-key tags. */
interface TagKind<M> {
  repository(ctx: ActivityContext): NamedRecordRepository<TagRecord>;
  constraint: string;
  notFound: MessageKey;
  notUnique: MessageKey;
  /** The detail naming a tag id, e.g. `userTagId`. */
  tagIdField: string;
  tagNameField: string;
  members: {
    get(ctx: ActivityContext, id: string): Promise<M | undefined>;
    list(ctx: ActivityContext): Promise<M[]>;
    idOf(member: M): string;
    tagsOf(member: M): string[];
    save(ctx: ActivityContext, member: M, tags: string[]): Promise<void>;
    notFound(id: string): KeyholdError;
  };
}

const USER_TAGS: TagKind<UserRecord> = {
  repository: (ctx) => ctx.tx.userTags,
  constraint: 'user_tag_name',
  notFound: 'USER_TAG_NOT_FOUND',
  notUnique: 'USER_TAG_NAME_NOT_UNIQUE',
  tagIdField: 'userTagId',
  tagNameField: 'userTagName',
  members: {
    get: (ctx, id) => ctx.tx.users.get(ctx.organization.organizationId, id),
    list: (ctx) => ctx.tx.users.list(ctx.organization.organizationId),
    idOf: (u) => u.userId,
    tagsOf: (u) => u.userTags,
    save: (ctx, u, userTags) => ctx.tx.users.update({ ...u, userTags, updatedAt: ctx.now }),
    notFound: (userId) => new KeyholdError('USER_NOT_FOUND', { userId }),
  },
};

const PRIVATE_KEY_TAGS: TagKind<PrivateKeyRecord> = {
  repository: (ctx) => ctx.tx.privateKeyTags,
  constraint: 'private_key_tag_name',
  notFound: 'PRIVATE_KEY_TAG_NOT_FOUND',
  notUnique: 'PRIVATE_KEY_TAG_NAME_NOT_UNIQUE',
  tagIdField: 'privateKeyTagId',
  tagNameField: 'privateKeyTagName',
  members: {
    get: (ctx, id) => ctx.tx.privateKeys.get(ctx.organization.organizationId, id),
    list: (ctx) => ctx.tx.privateKeys.list(ctx.organization.organizationId),
    idOf: (k) => k.privateKeyId,
    tagsOf: (k) => k.privateKeyTags,
    save: (ctx, k, privateKeyTags) =>
      ctx.tx.privateKeys.update({ ...k, privateKeyTags, updatedAt: ctx.now }),
    notFound: (privateKeyId) => new KeyholdError('PRIVATE_KEY_NOT_FOUND', { privateKeyId }),
  },
};

const lower = (ids: readonly string[] = []) => [...new Set(ids.map((id) => id.toLowerCase()))];

/** The existing tag ids among `tagIds` (deduplicated, lower-cased), or a NOT_FOUND refusal. */
async function requireTags<M>(
  kind: TagKind<M>,
  ctx: ActivityContext,
  tagIds: readonly string[] = [],
): Promise<string[]> {
  const ids = lower(tagIds);
  const repository = kind.repository(ctx);
  for (const tagId of ids) {
    if (!(await repository.get(ctx.organization.organizationId, tagId))) {
      throw new KeyholdError(kind.notFound, { [kind.tagIdField]: tagId });
    }
  }
  return ids;
}

/** The members named by `ids`, each existing, or the member's NOT_FOUND refusal. */
async function requireMembers<M>(
  kind: TagKind<M>,
  ctx: ActivityContext,
  ids: readonly string[] = [],
): Promise<M[]> {
  const members: M[] = [];
  for (const id of lower(ids)) {
    const member = await kind.members.get(ctx, id);
    if (!member) throw kind.members.notFound(id);
    members.push(member);
  }
  return members;
}

async function writeTag<M>(
  kind: TagKind<M>,
  tagName: string,
  write: () => Promise<void>,
): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (StoreConflictError.is(error) && error.constraint === kind.constraint) {
      throw new KeyholdError(kind.notUnique, { [kind.tagNameField]: tagName });
    }
    throw error;
  }
}

async function createTag<M>(
  kind: TagKind<M>,
  ctx: ActivityContext,
  tagName: string,
  memberIds: readonly string[] = [],
): Promise<{ tagId: string; memberIds: string[] }> {
  const orgId = ctx.organization.organizationId;
  const repository = kind.repository(ctx);
  if (await repository.findByName(orgId, tagName)) {
    throw new KeyholdError(kind.notUnique, { [kind.tagNameField]: tagName });
  }
  const members = await requireMembers(kind, ctx, memberIds);
  const tag: TagRecord = {
    organizationId: orgId,
    tagId: ctx.ids.uuid(),
    tagName,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  };
  await writeTag(kind, tagName, () => repository.insert(tag));
  for (const member of members) {
    await kind.members.save(ctx, member, [...kind.members.tagsOf(member), tag.tagId]);
  }
  return { tagId: tag.tagId, memberIds: members.map(kind.members.idOf) };
}

async function updateTag<M>(
  kind: TagKind<M>,
  ctx: ActivityContext,
  p: { tagId: string; newName?: string; add?: string[]; remove?: string[] },
): Promise<string> {
  const orgId = ctx.organization.organizationId;
  const repository = kind.repository(ctx);
  const tagId = p.tagId.toLowerCase();
  const tag = await repository.get(orgId, tagId);
  if (!tag) throw new KeyholdError(kind.notFound, { [kind.tagIdField]: p.tagId });
  if (p.newName !== undefined && p.newName !== tag.tagName) {
    if (await repository.findByName(orgId, p.newName)) {
      throw new KeyholdError(kind.notUnique, { [kind.tagNameField]: p.newName });
    }
    const renamed = { ...tag, tagName: p.newName, updatedAt: ctx.now };
    await writeTag(kind, p.newName, () => repository.update(renamed));
  }
  const add = await requireMembers(kind, ctx, p.add);
  const remove = await requireMembers(kind, ctx, p.remove);
  const removed = new Set(remove.map(kind.members.idOf));
  for (const member of add) {
    if (removed.has(kind.members.idOf(member))) continue;
    const tags = kind.members.tagsOf(member);
    if (!tags.includes(tagId)) await kind.members.save(ctx, member, [...tags, tagId]);
  }
  for (const member of remove) {
    const tags = kind.members.tagsOf(member);
    if (tags.includes(tagId)) {
      await kind.members.save(
        ctx,
        member,
        tags.filter((t) => t !== tagId),
      );
    }
  }
  return tagId;
}

async function deleteTags<M>(
  kind: TagKind<M>,
  ctx: ActivityContext,
  tagIds: readonly string[],
): Promise<{ tagIds: string[]; memberIds: string[] }> {
  const ids = await requireTags(kind, ctx, tagIds);
  const gone = new Set(ids);
  const memberIds: string[] = [];
  for (const member of await kind.members.list(ctx)) {
    const tags = kind.members.tagsOf(member);
    if (!tags.some((t) => gone.has(t))) continue;
    await kind.members.save(
      ctx,
      member,
      tags.filter((t) => !gone.has(t)),
    );
    memberIds.push(kind.members.idOf(member));
  }
  for (const tagId of ids)
    await kind.repository(ctx).delete(ctx.organization.organizationId, tagId);
  return { tagIds: ids, memberIds };
}

/** Existing user tag ids for CREATE_USERS / UPDATE_USER (deduplicated), or USER_TAG_NOT_FOUND. */
export function requireUserTags(ctx: ActivityContext, tagIds?: readonly string[]) {
  return requireTags(USER_TAGS, ctx, tagIds);
}

/** Existing private-key tag ids for CREATE_PRIVATE_KEYS, or PRIVATE_KEY_TAG_NOT_FOUND. */
export function requirePrivateKeyTags(ctx: ActivityContext, tagIds?: readonly string[]) {
  return requireTags(PRIVATE_KEY_TAGS, ctx, tagIds);
}

export const createUserTagHandler: HandlerOf<'CREATE_USER_TAG'> = {
  async execute(ctx, p) {
    const { tagId, memberIds } = await createTag(USER_TAGS, ctx, p.userTagName, p.userIds);
    return { userTagId: tagId, userIds: memberIds };
  },
};

export const updateUserTagHandler: HandlerOf<'UPDATE_USER_TAG'> = {
  async execute(ctx, p) {
    const userTagId = await updateTag(USER_TAGS, ctx, {
      tagId: p.userTagId,
      ...(p.newUserTagName !== undefined ? { newName: p.newUserTagName } : {}),
      ...(p.addUserIds ? { add: p.addUserIds } : {}),
      ...(p.removeUserIds ? { remove: p.removeUserIds } : {}),
    });
    return { userTagId };
  },
};

export const deleteUserTagsHandler: HandlerOf<'DELETE_USER_TAGS'> = {
  async execute(ctx, p) {
    const { tagIds, memberIds } = await deleteTags(USER_TAGS, ctx, p.userTagIds);
    return { userTagIds: tagIds, userIds: memberIds };
  },
};

export const createPrivateKeyTagHandler: HandlerOf<'CREATE_PRIVATE_KEY_TAG'> = {
  async execute(ctx, p) {
    const { tagId, memberIds } = await createTag(
      PRIVATE_KEY_TAGS,
      ctx,
      p.privateKeyTagName,
      p.privateKeyIds,
    );
    return { privateKeyTagId: tagId, privateKeyIds: memberIds };
  },
};

export const updatePrivateKeyTagHandler: HandlerOf<'UPDATE_PRIVATE_KEY_TAG'> = {
  async execute(ctx, p) {
    const privateKeyTagId = await updateTag(PRIVATE_KEY_TAGS, ctx, {
      tagId: p.privateKeyTagId,
      ...(p.newPrivateKeyTagName !== undefined ? { newName: p.newPrivateKeyTagName } : {}),
      ...(p.addPrivateKeyIds ? { add: p.addPrivateKeyIds } : {}),
      ...(p.removePrivateKeyIds ? { remove: p.removePrivateKeyIds } : {}),
    });
    return { privateKeyTagId };
  },
};

export const deletePrivateKeyTagsHandler: HandlerOf<'DELETE_PRIVATE_KEY_TAGS'> = {
  async execute(ctx, p) {
    const { tagIds, memberIds } = await deleteTags(PRIVATE_KEY_TAGS, ctx, p.privateKeyTagIds);
    return { privateKeyTagIds: tagIds, privateKeyIds: memberIds };
  },
};
