/**
 * The hosted service's organization and billing activities, as a self-hosted Keyhold treats
 * them. CREATE_ORGANIZATION (V1, V2) and DELETE_ORGANIZATION are refused with a message that
 * names what to do instead (a root organization is its operator's; sub-organizations are the
 * API's). SET_PAYMENT_METHOD (V1, V2), DELETE_PAYMENT_METHOD and ACTIVATE_BILLING_TIER are kept
 * as records so client code that sets billing up runs unchanged; nothing is charged.
 *
 * A card (SET_PAYMENT_METHOD V1) is checked (digits, Luhn, CVV, expiry month) and then only its
 * last four digits and its holder are kept: `storedParameters` replaces the number with its
 * last four digits and empties the CVV and expiry before the activity, its vote or any
 * document is written, so no table holds them. Every refusal stores nothing.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import type { HandlerOf } from './activity-handler.js';
import { refusingHandler } from './execution-refusal.js';
import { putDocument } from './organization-documents.js';

/** The document id of the organization's billing tier. */
export const BILLING_TIER_DOCUMENT = 'billing_tier';

/**
 * True when the digits pass the Luhn check (every card number does).
 * @example
 * passesLuhn('4242424242424242'); // true
 */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export const createOrganizationHandler: HandlerOf<'CREATE_ORGANIZATION'> = {
  precheck(_p, definition) {
    throw new KeyholdError('ORGANIZATION_CREATION_NOT_AVAILABLE', { type: definition.type });
  },
  async execute() {
    throw new KeyholdError('ORGANIZATION_CREATION_NOT_AVAILABLE', {});
  },
};

export const deleteOrganizationHandler: HandlerOf<'DELETE_ORGANIZATION'> = {
  precheck(_p, definition) {
    throw new KeyholdError('ORGANIZATION_DELETION_NOT_AVAILABLE', { type: definition.type });
  },
  async execute() {
    throw new KeyholdError('ORGANIZATION_DELETION_NOT_AVAILABLE', {});
  },
};

export const setPaymentMethodHandler: HandlerOf<'SET_PAYMENT_METHOD'> = refusingHandler({
  precheck(p) {
    if ('number' in p && !passesLuhn(p.number)) {
      throw new KeyholdError('INVALID_PAYMENT_CARD', {
        field: 'number',
        reason: 'the card number does not pass the Luhn check',
      });
    }
  },
  // The card number becomes its last four digits; CVV and expiry are not kept at all.
  storedParameters: (p) =>
    'number' in p
      ? { ...p, number: p.number.slice(-4), cvv: '', expiryMonth: '', expiryYear: '' }
      : p,
  async execute(ctx, p) {
    const { organizationId } = ctx.organization;
    const paymentMethodId = 'number' in p ? ctx.ids.uuid() : p.paymentMethodId;
    const existing = await ctx.tx.organizationDocuments.get(
      organizationId,
      'payment_method',
      paymentMethodId,
    );
    const lastFour =
      'number' in p
        ? p.number.slice(-4)
        : typeof existing?.body.lastFour === 'string'
          ? existing.body.lastFour
          : '';
    const result = {
      lastFour,
      cardHolderName: p.cardHolderName ?? '',
      cardHolderEmail: p.cardHolderEmail ?? '',
      paymentMethodId,
    };
    await putDocument(
      ctx.tx,
      { organizationId, kind: 'payment_method', documentId: paymentMethodId, body: { ...result } },
      ctx.now,
    );
    return result;
  },
});

export const deletePaymentMethodHandler: HandlerOf<'DELETE_PAYMENT_METHOD'> = refusingHandler({
  async execute(ctx, p) {
    const { organizationId } = ctx.organization;
    if (
      !(await ctx.tx.organizationDocuments.get(organizationId, 'payment_method', p.paymentMethodId))
    ) {
      throw new KeyholdError('PAYMENT_METHOD_NOT_FOUND', { paymentMethodId: p.paymentMethodId });
    }
    await ctx.tx.organizationDocuments.delete(organizationId, 'payment_method', p.paymentMethodId);
    return { paymentMethodId: p.paymentMethodId };
  },
});

export const activateBillingTierHandler: HandlerOf<'ACTIVATE_BILLING_TIER'> = {
  async execute(ctx, p) {
    await putDocument(
      ctx.tx,
      {
        organizationId: ctx.organization.organizationId,
        kind: 'billing_tier',
        documentId: BILLING_TIER_DOCUMENT,
        body: { productId: p.productId },
      },
      ctx.now,
    );
    return { productId: p.productId };
  },
};
