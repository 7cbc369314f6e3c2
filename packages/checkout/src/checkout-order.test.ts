import { describe, expect, it } from 'vitest';
import { checkoutOrderOf, webUrlOf } from './checkout-order.js';

const order = {
  order_id: 'ord_1',
  out_trade_no: 'A-1',
  status: 'partial_paid',
  order_currency: 'USD',
  order_amount: '10.00',
  pay_amount: '10.000000',
  paid_amount_total: '4.000000',
  remaining_amount: '6.000000',
  overpaid_amount: '0.000000',
  expire_time: 1_800_000_600,
  pay_tokens: [{ token_id: 'TRON_USDT', network: 'TRON', currency: 'USDT' }],
  selected_token: { token_id: 'TRON_USDT', network: 'TRON', currency: 'USDT', address: 'Tabc' },
  redirect_url: '/thanks',
  redirect_automatically: true,
  refunded_amount: '0.000000',
  refunds: [],
};

describe('checkoutOrderOf', () => {
  it("reads the checkout call's data.order", () => {
    expect(checkoutOrderOf({ order })).toEqual(order);
    const { redirect_url: _r, ...bare } = order;
    expect(checkoutOrderOf({ order: { ...bare, selected_token: null } })).toEqual({
      ...bare,
      selected_token: null,
    });
  });

  it('keeps only the fields the codec declares', () => {
    expect(
      checkoutOrderOf({ order: { ...order, note: 'secret', notify_webhook_id: 'wh_1' } }),
    ).toEqual(order);
  });

  it.each([
    ['no data', undefined, 'data'],
    ['no order', {}, 'data'],
    ['an order that is no object', { order: [order] }, 'data'],
    ['an unknown status', { order: { ...order, status: 'paid' } }, 'status'],
    ['a string expiry', { order: { ...order, expire_time: '1' } }, 'expire_time'],
    ['a fractional expiry', { order: { ...order, expire_time: 1.5 } }, 'expire_time'],
    [
      'an unknown network',
      {
        order: {
          ...order,
          pay_tokens: [{ token_id: 'TRON_USDT', network: 'X', currency: 'USDT' }],
        },
      },
      'pay_tokens.0.network',
    ],
    [
      'an unknown token',
      {
        order: {
          ...order,
          pay_tokens: [{ token_id: 'X_USDT', network: 'TRON', currency: 'USDT' }],
        },
      },
      'pay_tokens.0.token_id',
    ],
    [
      'an unknown crypto currency',
      {
        order: {
          ...order,
          pay_tokens: [{ token_id: 'TRON_USDT', network: 'TRON', currency: 'X' }],
        },
      },
      'pay_tokens.0.currency',
    ],
    ['pay_tokens that are no list', { order: { ...order, pay_tokens: {} } }, 'pay_tokens'],
    ['a numeric amount', { order: { ...order, pay_amount: 10 } }, 'pay_amount'],
    [
      'an amount that is no decimal',
      { order: { ...order, remaining_amount: '1e3' } },
      'remaining_amount',
    ],
    [
      'a selection without address',
      { order: { ...order, selected_token: { ...order.selected_token, address: undefined } } },
      'selected_token.address',
    ],
    ['a selection that is no object', { order: { ...order, selected_token: 5 } }, 'selected_token'],
    [
      'no selected_token (null when none)',
      { order: { ...order, selected_token: undefined } },
      'selected_token',
    ],
    ['a non-string logo', { order: { ...order, logo_url: 5 } }, 'logo_url'],
    ['a null redirect_url', { order: { ...order, redirect_url: null } }, 'redirect_url'],
    [
      'a string redirect_automatically',
      { order: { ...order, redirect_automatically: 'true' } },
      'redirect_automatically',
    ],
    ['no overpaid_amount', { order: { ...order, overpaid_amount: undefined } }, 'overpaid_amount'],
  ])('refuses %s', (_name, data, field) => {
    expect(() => checkoutOrderOf(data)).toThrow(
      expect.objectContaining({
        name: 'UnexpectedAnswer',
        message: `checkout order answer: unexpected ${field}`,
      }),
    );
  });
});

describe('webUrlOf', () => {
  it('keeps http and https URLs only', () => {
    expect(webUrlOf('https://a.example/l.png')?.origin).toBe('https://a.example');
    expect(webUrlOf('http://a.example')?.origin).toBe('http://a.example');
    for (const raw of [
      'javascript:alert(1)',
      'data:image/png,AA',
      '/relative',
      'not a url',
      undefined,
    ]) {
      expect(webUrlOf(raw)).toBeUndefined();
    }
  });
});
