/**
 * How an answer becomes an error: the envelope's status, code and message as sent; the catalogue
 * key of the message, the most specific template winning, its placeholders' values read back;
 * no key for a message the document does not list; Retry-After read; anything else a
 * PayrailResponseError.
 */
import { describe, expect, it } from 'vitest';
import { errorOfAnswer, PayrailError, PayrailResponseError } from './payrail-error.js';

const answer = (status: number, code: number, message: string, headers: HeadersInit = {}) =>
  errorOfAnswer(
    new Response(null, { status, headers }),
    { code, message, data: null },
    'POST /payment/x',
  );

describe('errorOfAnswer', () => {
  it('keys a fixed message and keeps status, code and message as sent', () => {
    expect(answer(400, 53, 'reference already exists')).toMatchObject({
      name: 'PayrailError',
      status: 400,
      code: 53,
      message: 'reference already exists',
      key: 'reference_already_exists',
      params: {},
      operation: 'POST /payment/x',
    });
  });

  it('reads a template’s placeholders, the most specific template first', () => {
    expect(
      answer(400, 51, 'amount must be a decimal string with at most 2 decimal places'),
    ).toMatchObject({
      key: 'invalid_decimal',
      params: { field: 'amount', scale: '2' },
    });
    expect(answer(400, 51, 'invalid webhook event: payout.x')).toMatchObject({
      key: 'invalid_webhook_event',
      params: { event: 'payout.x' },
    });
    expect(answer(400, 51, 'invalid offset')).toMatchObject({
      key: 'invalid_query_param',
      params: { param: 'offset' },
    });
    // A fixed message that a template would also match is the fixed one.
    expect(answer(400, 51, 'invalid status')).toMatchObject({ key: 'invalid_status', params: {} });
    expect(answer(400, 53, 'unsupported network/currency: TRON/USDC')).toMatchObject({
      key: 'network_currency_unsupported',
      params: { network: 'TRON', currency: 'USDC' },
    });
  });

  it('leaves the key out when the status, code or message is not the catalogue’s', () => {
    expect(answer(404, 65, 'route not found')).toMatchObject({ key: undefined, code: 65 });
    expect(answer(400, 53, 'payout not found')).toMatchObject({ key: undefined });
  });

  it('reads Retry-After in seconds or as a date', () => {
    expect(answer(429, 54, 'rate limit exceeded', { 'Retry-After': '3' })).toMatchObject({
      key: 'rate_limit_exceeded',
      retryAfterSeconds: 3,
    });
    const inTen = new Date(Date.now() + 10_000).toUTCString();
    const dated = answer(429, 54, 'rate limit exceeded', { 'Retry-After': inTen });
    expect(dated).toBeInstanceOf(PayrailError);
    if (!(dated instanceof PayrailError)) return;
    expect(dated.retryAfterSeconds).toBeGreaterThanOrEqual(9);
    expect(dated.retryAfterSeconds).toBeLessThanOrEqual(10);
  });

  it('makes anything but the envelope a PayrailResponseError', () => {
    const page = errorOfAnswer(new Response(null, { status: 502 }), '<h1>502</h1>', 'GET /x');
    expect(page).toBeInstanceOf(PayrailResponseError);
    expect(page).toMatchObject({ status: 502, body: '<h1>502</h1>' });
    const odd = errorOfAnswer(
      new Response(null, { status: 400 }),
      { code: 99, message: 'x' },
      'GET /x',
    );
    expect(odd).toBeInstanceOf(PayrailResponseError);
  });
});
