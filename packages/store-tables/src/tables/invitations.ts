/**
 * The invitations table.
 * @module
 */
import type { InvitationRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * Invitations an organization sent (CREATE_INVITATIONS), listed by `createdAt`. The invitation
 * key's private half went only to the mailbox: nothing here is secret.
 * @example
 * INVITATIONS.primaryKey.fields; // ['organizationId', 'invitationId']
 */
export const INVITATIONS: TableSpec<InvitationRecord> = {
  table: 'invitations',
  fields: fieldColumns<InvitationRecord>({
    organizationId: 'text',
    invitationId: 'text',
    receiverUserName: 'text',
    receiverEmail: 'text',
    receiverUserTags: 'text[]',
    accessType: 'text',
    status: 'text',
    senderUserId: 'text',
    userId: 'text',
    apiKeyId: 'text',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
  scope: 'organizationId',
  primaryKey: {
    name: 'invitation_pkey',
    sqlName: 'invitations_pkey',
    fields: ['organizationId', 'invitationId'],
  },
  createdAt: 'createdAt',
};
