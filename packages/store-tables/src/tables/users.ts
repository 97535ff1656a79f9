/**
 * The users table.
 * @module
 */
import type { UserRecord } from '@keyhold/activities';
import type { TableSpec } from '../table-spec.js';

/**
 * Users of an organization, listed by `createdAt`, ties in insertion order.
 * @example
 * USERS.primaryKey.fields; // ['organizationId', 'userId']
 */
export const USERS: TableSpec<UserRecord> = {
  table: 'users',
  fields: [
    { field: 'organizationId', column: 'organization_id', type: 'text' },
    { field: 'userId', column: 'user_id', type: 'text' },
    { field: 'userName', column: 'user_name', type: 'text' },
    { field: 'userEmail', column: 'user_email', type: 'text', optional: true },
    { field: 'userPhoneNumber', column: 'user_phone_number', type: 'text', optional: true },
    { field: 'userTags', column: 'user_tags', type: 'text[]' },
    { field: 'createdAt', column: 'created_at', type: 'integer' },
    { field: 'updatedAt', column: 'updated_at', type: 'integer' },
  ],
  scope: 'organizationId',
  primaryKey: { name: 'user_pkey', sqlName: 'users_pkey', fields: ['organizationId', 'userId'] },
  createdAt: 'createdAt',
};
