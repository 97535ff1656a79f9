/**
 * Smart-contract interfaces: CREATE_SMART_CONTRACT_INTERFACE keeps an Ethereum ABI or a Solana
 * (Anchor) IDL for one contract address or program id of the organization;
 * DELETE_SMART_CONTRACT_INTERFACE removes it. With an interface uploaded, SIGN_TRANSACTION's
 * policies read the decoded call (`eth.tx.function_name`, `function_signature`,
 * `contract_call_args`; see `decision/contract-calls.ts`).
 *
 * Refusals store nothing: the precheck refuses an address that is not one of the type and an
 * ABI or IDL that does not check (its reason in the details: not JSON, over 400 KiB, a type
 * outside the ABI grammar, tuples or arrays beyond the decoder's bounds, two functions with one
 * selector …); `verify` refuses a second interface for the same address and type (delete the
 * first to replace it), more than `MAX_SMART_CONTRACT_INTERFACES` interfaces or
 * `MAX_SMART_CONTRACT_INTERFACE_BYTES` of them in one organization, and an unknown id to delete.
 * @module
 */
import {
  CONTRACT_INTERFACE_MAX_BYTES,
  ContractInterfaceError,
  type ContractInterfaceType,
  checkContractInterface,
  contractAddressKey,
} from '@keyhold/keys';
import { KeyholdError } from '@keyhold/protocol';
import { StoreConflictError } from '../ports/store.js';
import type { HandlerOf, ProposalContext } from './activity-handler.js';

/** The most interfaces one organization may keep. */
export const MAX_SMART_CONTRACT_INTERFACES = 100;
/** The most bytes of ABIs and IDLs one organization may keep (a listing returns them all). */
export const MAX_SMART_CONTRACT_INTERFACE_BYTES = 8 * 1024 * 1024;

const byteLength = (text: string) => new TextEncoder().encode(text).length;

/** The address key of the request, or INVALID_SMART_CONTRACT_ADDRESS. */
function addressKeyOf(type: ContractInterfaceType, address: string): string {
  const key = contractAddressKey(type, address);
  if (key === undefined) {
    throw new KeyholdError('INVALID_SMART_CONTRACT_ADDRESS', {
      field: '/parameters/smartContractAddress',
      type,
    });
  }
  return key;
}

async function refuseOverLimits(
  ctx: ProposalContext,
  type: ContractInterfaceType,
  addressKey: string,
  size: number,
): Promise<void> {
  const { organizationId } = ctx.organization;
  if (await ctx.tx.smartContractInterfaces.findByAddress(organizationId, type, addressKey)) {
    throw new KeyholdError('SMART_CONTRACT_INTERFACE_EXISTS', { type });
  }
  const existing = await ctx.tx.smartContractInterfaces.list(organizationId);
  const bytes = existing.reduce((sum, r) => sum + byteLength(r.smartContractInterface), size);
  if (
    existing.length >= MAX_SMART_CONTRACT_INTERFACES ||
    bytes > MAX_SMART_CONTRACT_INTERFACE_BYTES
  ) {
    throw new KeyholdError('TOO_MANY_SMART_CONTRACT_INTERFACES', {
      maxInterfaces: MAX_SMART_CONTRACT_INTERFACES,
      maxBytes: MAX_SMART_CONTRACT_INTERFACE_BYTES,
    });
  }
}

export const createSmartContractInterfaceHandler: HandlerOf<'CREATE_SMART_CONTRACT_INTERFACE'> = {
  precheck(p) {
    addressKeyOf(p.type, p.smartContractAddress);
    if (byteLength(p.smartContractInterface) > CONTRACT_INTERFACE_MAX_BYTES) {
      throw new KeyholdError('INVALID_SMART_CONTRACT_INTERFACE', {
        field: '/parameters/smartContractInterface',
        reason: `over ${CONTRACT_INTERFACE_MAX_BYTES} bytes`,
      });
    }
    try {
      checkContractInterface(p.type, p.smartContractInterface);
    } catch (error) {
      if (!(error instanceof ContractInterfaceError)) throw error;
      throw new KeyholdError('INVALID_SMART_CONTRACT_INTERFACE', {
        field: '/parameters/smartContractInterface',
        reason: error.reason,
      });
    }
  },
  async verify(ctx, p) {
    await refuseOverLimits(
      ctx,
      p.type,
      addressKeyOf(p.type, p.smartContractAddress),
      byteLength(p.smartContractInterface),
    );
  },
  async execute(ctx, p) {
    const smartContractInterfaceId = ctx.ids.uuid();
    try {
      await ctx.tx.smartContractInterfaces.insert({
        organizationId: ctx.organization.organizationId,
        smartContractInterfaceId,
        type: p.type,
        smartContractAddress: p.smartContractAddress,
        addressKey: addressKeyOf(p.type, p.smartContractAddress),
        smartContractInterface: p.smartContractInterface,
        label: p.label,
        notes: p.notes ?? '',
        createdAt: ctx.now,
        updatedAt: ctx.now,
      });
    } catch (error) {
      // Another activity took the address between `verify` and now.
      if (StoreConflictError.is(error) && error.constraint === 'smart_contract_interface_address') {
        throw new KeyholdError('SMART_CONTRACT_INTERFACE_EXISTS', { type: p.type });
      }
      throw error;
    }
    return { smartContractInterfaceId };
  },
};

export const deleteSmartContractInterfaceHandler: HandlerOf<'DELETE_SMART_CONTRACT_INTERFACE'> = {
  async verify(ctx, p) {
    const id = p.smartContractInterfaceId.toLowerCase();
    if (!(await ctx.tx.smartContractInterfaces.get(ctx.organization.organizationId, id))) {
      throw new KeyholdError('SMART_CONTRACT_INTERFACE_NOT_FOUND', {
        smartContractInterfaceId: p.smartContractInterfaceId,
      });
    }
  },
  async execute(ctx, p) {
    const id = p.smartContractInterfaceId.toLowerCase();
    const { organizationId } = ctx.organization;
    if (!(await ctx.tx.smartContractInterfaces.get(organizationId, id))) {
      throw new KeyholdError('SMART_CONTRACT_INTERFACE_NOT_FOUND', {
        smartContractInterfaceId: p.smartContractInterfaceId,
      });
    }
    await ctx.tx.smartContractInterfaces.delete(organizationId, id);
    return { smartContractInterfaceId: id };
  },
};
