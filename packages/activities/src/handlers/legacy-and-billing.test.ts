/**
 * The card checks of SET_PAYMENT_METHOD: the Luhn check against published test numbers and
 * every single-digit change (which the check always catches), and the stored form that keeps
 * the last four digits and nothing else of the card.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { passesLuhn, setPaymentMethodHandler } from './legacy-and-billing.js';

const TEST_CARDS = ['4242424242424242', '4111111111111111', '5555555555554444', '378282246310005'];

describe('passesLuhn', () => {
  it('accepts the card networks’ published test numbers', () => {
    for (const card of TEST_CARDS) expect(passesLuhn(card)).toBe(true);
  });

  it('refuses every number one digit away from a valid one', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...TEST_CARDS),
        fc.nat(),
        fc.integer({ min: 1, max: 9 }),
        (card, at, delta) => {
          const i = at % card.length;
          const digit = (Number(card[i]) + delta) % 10;
          const changed = `${card.slice(0, i)}${digit}${card.slice(i + 1)}`;
          expect(passesLuhn(changed)).toBe(false);
        },
      ),
    );
  });
});

describe('SET_PAYMENT_METHOD stored parameters', () => {
  it('keep the last four digits and the holder; no number, CVV or expiry', () => {
    const stored = setPaymentMethodHandler.storedParameters!(
      {
        number: '4242424242424242',
        cvv: '123',
        expiryMonth: '7',
        expiryYear: '2030',
        cardHolderName: 'Ada',
        cardHolderEmail: 'ada@example.com',
      },
      { tlsFetcher: { privateKey: new Uint8Array(32) } },
    );
    expect(stored).toEqual({
      number: '4242',
      cvv: '',
      expiryMonth: '',
      expiryYear: '',
      cardHolderName: 'Ada',
      cardHolderEmail: 'ada@example.com',
    });
  });

  it('refuses a number that fails the Luhn check before anything is stored', () => {
    expect(() =>
      setPaymentMethodHandler.precheck!(
        {
          number: '4242424242424241',
          cvv: '123',
          expiryMonth: '7',
          expiryYear: '30',
          cardHolderName: 'A',
        },
        {} as never,
        { allowPrivateWebhookDestinations: false },
      ),
    ).toThrow(/invalid payment card/);
  });
});
