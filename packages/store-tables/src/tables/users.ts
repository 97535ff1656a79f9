/**
 * The users table.
 * @module
 */
import type { UserRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * Users of an organization, listed by `createdAt`, ties in insertion order.
 * @example
 * USERS.primaryKey.fields; // ['organizationId', 'userId']
 */
export const USERS: TableSpec<UserRecord> = {
  table: 'users',
  fields: fieldColumns<UserRecord>({
    organizationId: 'text',
    userId: 'text',
    userName: 'text',
    userEmail: 'text?',
    userPhoneNumber: 'text?',
    userTags: 'text[]',
    emailVerifiedAt: 'integer?',
    phoneNumberVerifiedAt: 'integer?',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
  scope: 'organizationId',
  primaryKey: { name: 'user_pkey', sqlName: 'users_pkey', fields: ['organizationId', 'userId'] },
  createdAt: 'createdAt',
};
