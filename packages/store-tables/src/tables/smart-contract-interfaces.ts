/**
 * The smart-contract interfaces table.
 * @module
 */
import type { SmartContractInterfaceRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * An organization's Ethereum ABIs and Solana IDLs (CREATE_SMART_CONTRACT_INTERFACE), one per
 * address key and type; SIGN_TRANSACTION finds them by `(organizationId, type, addressKey)`.
 * @example
 * SMART_CONTRACT_INTERFACES.unique?.[0]?.name; // 'smart_contract_interface_address'
 */
export const SMART_CONTRACT_INTERFACES: TableSpec<SmartContractInterfaceRecord> = {
  table: 'smart_contract_interfaces',
  fields: fieldColumns<SmartContractInterfaceRecord>({
    organizationId: 'text',
    smartContractInterfaceId: 'text',
    type: 'text',
    smartContractAddress: 'text',
    addressKey: 'text',
    smartContractInterface: 'text',
    label: 'text',
    notes: 'text',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
  scope: 'organizationId',
  primaryKey: {
    name: 'smart_contract_interface_pkey',
    sqlName: 'smart_contract_interfaces_pkey',
    fields: ['organizationId', 'smartContractInterfaceId'],
  },
  unique: [
    {
      name: 'smart_contract_interface_address',
      sqlName: 'smart_contract_interfaces_address_key',
      fields: ['organizationId', 'type', 'addressKey'],
    },
  ],
  createdAt: 'createdAt',
};
