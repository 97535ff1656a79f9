/**
 * The two tag tables: user tags and private-key tags, alike but for their names.
 * @module
 */
import type { TagRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/** A tag table, named `<kind>_tags` with constraints `<kind>_tag_pkey` and `<kind>_tag_name`. */
function tagTable(kind: 'user' | 'private_key'): TableSpec<TagRecord> {
  const table = `${kind}_tags`;
  return {
    table,
    fields: fieldColumns<TagRecord>({
      organizationId: 'text',
      tagId: 'text',
      tagName: 'text',
      createdAt: 'integer',
      updatedAt: 'integer',
    }),
    scope: 'organizationId',
    primaryKey: {
      name: `${kind}_tag_pkey`,
      sqlName: `${table}_pkey`,
      fields: ['organizationId', 'tagId'],
    },
    unique: [
      {
        name: `${kind}_tag_name`,
        sqlName: `${table}_name_key`,
        fields: ['organizationId', 'tagName'],
        checkedOnUpdate: true,
      },
    ],
    createdAt: 'createdAt',
  };
}

/**
 * User tags of an organization; names unique in it, checked on rename too.
 * @example
 * USER_TAGS.unique?.[0]?.name; // 'user_tag_name'
 */
export const USER_TAGS: TableSpec<TagRecord> = tagTable('user');

/**
 * Private-key tags of an organization; names unique in it, checked on rename too.
 * @example
 * PRIVATE_KEY_TAGS.primaryKey.name; // 'private_key_tag_pkey'
 */
export const PRIVATE_KEY_TAGS: TableSpec<TagRecord> = tagTable('private_key');
