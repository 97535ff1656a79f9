/**
 * The two tag tables: user tags and private-key tags, alike but for their names.
 * @module
 */
import type { TagRecord } from '@keyhold/activities';
import type { TableSpec } from '../table-spec.js';

/** A tag table, named `<kind>_tags` with constraints `<kind>_tag_pkey` and `<kind>_tag_name`. */
function tagTable(kind: 'user' | 'private_key'): TableSpec<TagRecord> {
  const table = `${kind}_tags`;
  return {
    table,
    fields: [
      { field: 'organizationId', column: 'organization_id', type: 'text' },
      { field: 'tagId', column: 'tag_id', type: 'text' },
      { field: 'tagName', column: 'tag_name', type: 'text' },
      { field: 'createdAt', column: 'created_at', type: 'integer' },
      { field: 'updatedAt', column: 'updated_at', type: 'integer' },
    ],
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
