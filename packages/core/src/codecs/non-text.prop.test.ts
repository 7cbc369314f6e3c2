/**
 * Issue 12, finding 5 (ADR 0034): a NUL or an unpaired surrogate in a text field answered 500
 * `internal error`, because PostgreSQL refuses them. Every leaf of the codec toolkit now refuses a
 * string that is not text with the field's own 400 message, so no request codec hands one on.
 */
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import {
  acquiringOrderInputArb,
  validBeneficiaryFields,
  validCryptoBatchCreate,
  validPayoutCreate,
  webhookCreateInputArb,
  withNonText,
} from '../testing/index.js';
import { AcquiringOrderCreateRequest } from './acquiring.codecs.js';
import { decodeWith, holdsNonText, isText } from './codec-toolkit.js';
import { CryptoBatchCreateRequest } from './crypto-batch.codecs.js';
import { AcquiringOrderListQuery, PayoutListQuery } from './list-query.codecs.js';
import { BeneficiaryCreateRequest, PayoutCreateRequest } from './payout.codecs.js';
import { WebhookCreateRequest } from './webhook.codecs.js';

const bodies: ReadonlyArray<readonly [t.Mixed, fc.Arbitrary<object>]> = [
  [PayoutCreateRequest, validPayoutCreate],
  [
    BeneficiaryCreateRequest,
    fc.record({
      method_id: fc.constant(1),
      name: fc.constant('Ann Lee'),
      fields: validBeneficiaryFields,
    }),
  ],
  [AcquiringOrderCreateRequest, acquiringOrderInputArb],
  [WebhookCreateRequest, webhookCreateInputArb],
  [CryptoBatchCreateRequest, validCryptoBatchCreate],
];

describe('finding 5: what is not text', () => {
  it('is NUL or an unpaired surrogate; a pair, control characters and U+FFFD are text', () => {
    expect(['a\u0000b', '\ud800', 'x\udfff', '\ud83d', '\ude00y'].map(isText)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(['😀', '\u0001\u007f', '\ufffd', '', 'Ann Lee'].map(isText)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
  });

  it('is found in a value, an item or a member name, however deep', () => {
    expect(holdsNonText({ a: [{ b: 'ok' }, { c: 'n\u0000' }] })).toBe(true);
    expect(holdsNonText({ a: { 'k\ud800': 1 } })).toBe(true);
    expect(holdsNonText({ a: [1, true, null, { b: '😀' }] })).toBe(false);
  });
});

describe.each(bodies.map(([codec, arb]) => [codec.name, codec, arb] as const))(
  'finding 5: %s with a NUL or an unpaired surrogate in any string',
  (_, codec, arb) => {
    it("fails with the field's 400 catalogue message, or decodes without it (a dropped member)", () => {
      fc.assert(
        fc.property(withNonText(arb), (body) => {
          const decoded = decodeWith(codec)(body);
          // Decoded only when the string sat in a member the codec drops: never handed on.
          if (E.isRight(decoded)) expect(holdsNonText(decoded.right)).toBe(false);
          // Else the field's own message: a format's (400/51), or an unknown value's (400/53).
          else expect(decoded.left.httpStatus).toBe(400);
        }),
      );
    });
  },
);

describe('finding 5: a list query parameter that is not text', () => {
  it('is `invalid <param>`, the free-text filters included', () => {
    const messageOf = (codec: t.Mixed, query: object) => {
      const decoded = decodeWith(codec)(query);
      return E.isLeft(decoded) ? decoded.left.message : 'decoded';
    };
    expect(messageOf(PayoutListQuery, { reference: 'r\u0000' })).toBe('invalid reference');
    expect(messageOf(PayoutListQuery, { client_request_id: '\ud800' })).toBe(
      'invalid client_request_id',
    );
    expect(messageOf(AcquiringOrderListQuery, { out_trade_no: 'O-\u0000' })).toBe(
      'invalid out_trade_no',
    );
    expect(messageOf(PayoutListQuery, { status: 'draft\u0000' })).toBe('invalid status');
  });
});
