/**
 * get_smart_contract_interface: `{smartContractInterface}`; list_smart_contract_interfaces:
 * `{smartContractInterfaces}` of the organization, oldest first, each with its ABI or IDL.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import { smartContractInterfaceView } from '../views.js';
import type { QueryHandlerOf } from './query-handler.js';

export const getSmartContractInterface: QueryHandlerOf<'get_smart_contract_interface'> = async (
  ctx,
  body,
) => {
  const record = await ctx.tx.smartContractInterfaces.get(
    ctx.organization.organizationId,
    body.smartContractInterfaceId.toLowerCase(),
  );
  if (!record) {
    throw new KeyholdError('SMART_CONTRACT_INTERFACE_NOT_FOUND', {
      smartContractInterfaceId: body.smartContractInterfaceId,
    });
  }
  return { smartContractInterface: smartContractInterfaceView(record) };
};

export const listSmartContractInterfaces: QueryHandlerOf<'list_smart_contract_interfaces'> = async (
  ctx,
) => ({
  smartContractInterfaces: (
    await ctx.tx.smartContractInterfaces.list(ctx.organization.organizationId)
  ).map(smartContractInterfaceView),
});
