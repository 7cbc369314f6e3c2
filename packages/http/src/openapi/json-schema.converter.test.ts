import {
  AcquiringOrderCreateRequest,
  defined,
  leaf,
  PayoutCreateRequest,
  payrailError,
  present,
  request,
  WebhookCreateRequest,
  webhookEventPatterns,
  withDefault,
} from '@payrail/core';
import * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { toJsonSchema } from './json-schema.converter.js';

describe('toJsonSchema (io-ts structure)', () => {
  it('converts primitives, literals and keyof', () => {
    expect(toJsonSchema(t.string)).toEqual({ type: 'string' });
    expect(toJsonSchema(t.number)).toEqual({ type: 'number' });
    expect(toJsonSchema(t.boolean)).toEqual({ type: 'boolean' });
    expect(toJsonSchema(t.null)).toEqual({ type: 'null' });
    expect(toJsonSchema(t.unknown)).toEqual({});
    expect(toJsonSchema(t.Int)).toEqual({ type: 'integer' });
    expect(toJsonSchema(t.literal('USD'))).toEqual({ const: 'USD' });
    expect(toJsonSchema(t.keyof({ asc: null, desc: null }))).toEqual({
      type: 'string',
      enum: ['asc', 'desc'],
    });
  });

  it('converts objects: t.type keys are required, t.partial keys are not', () => {
    const codec = t.intersection([
      t.type({ currency: t.string, amount: t.string }),
      t.partial({ remark: t.string }),
    ]);
    expect(toJsonSchema(codec)).toEqual({
      type: 'object',
      properties: {
        currency: { type: 'string' },
        amount: { type: 'string' },
        remark: { type: 'string' },
      },
      required: ['currency', 'amount'],
    });
    expect(toJsonSchema(t.partial({ a: t.number }))).toEqual({
      type: 'object',
      properties: { a: { type: 'number' } },
    });
  });

  it('converts unions of literals to an enum, other unions to anyOf', () => {
    expect(toJsonSchema(t.union([t.literal('a'), t.literal('b')]))).toEqual({ enum: ['a', 'b'] });
    expect(toJsonSchema(t.union([t.string, t.number]))).toEqual({
      anyOf: [{ type: 'string' }, { type: 'number' }],
    });
  });

  it('converts arrays, records, and sees through strict, readonly and refinements', () => {
    expect(toJsonSchema(t.array(t.string))).toEqual({ type: 'array', items: { type: 'string' } });
    expect(toJsonSchema(t.readonlyArray(t.number))).toEqual({
      type: 'array',
      items: { type: 'number' },
    });
    expect(toJsonSchema(t.record(t.string, t.boolean))).toEqual({
      type: 'object',
      additionalProperties: { type: 'boolean' },
    });
    expect(toJsonSchema(t.strict({ a: t.string }))).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      additionalProperties: false,
    });
    expect(toJsonSchema(t.readonly(t.type({ a: t.string })))).toMatchObject({ required: ['a'] });
    const positive = t.refinement(t.number, (n) => n > 0, 'Positive');
    expect(toJsonSchema(positive)).toEqual({ type: 'number' });
  });

  it('keeps an intersection that is not of plain objects as allOf', () => {
    const codec = t.intersection([t.type({ a: t.string }), t.record(t.string, t.string)]);
    expect(toJsonSchema(codec)).toEqual({
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        { type: 'object', additionalProperties: { type: 'string' } },
      ],
    });
  });

  it('closes exact objects, wherever they are, and only those', () => {
    const closedObject = t.exact(
      t.intersection([t.type({ a: t.string }), t.partial({ b: t.number })]),
    );
    expect(toJsonSchema(closedObject)).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'number' } },
      required: ['a'],
      additionalProperties: false,
    });
    // An intersection of exact parts is closed; one open part lets anything through.
    expect(
      toJsonSchema(
        t.intersection([t.strict({ a: t.string }), t.exact(t.partial({ b: t.number }))]),
      ),
    ).toMatchObject({ required: ['a'], additionalProperties: false });
    expect(
      toJsonSchema(t.intersection([t.strict({ a: t.string }), t.partial({ b: t.number })])),
    ).not.toHaveProperty('additionalProperties');
    expect(toJsonSchema(t.type({ list: t.readonlyArray(t.strict({ c: t.string })) }))).toEqual({
      type: 'object',
      properties: {
        list: {
          type: 'array',
          items: {
            type: 'object',
            properties: { c: { type: 'string' } },
            required: ['c'],
            additionalProperties: false,
          },
        },
      },
      required: ['list'],
    });
    expect(toJsonSchema(t.union([t.strict({ d: t.string }), t.null]))).toEqual({
      anyOf: [
        {
          type: 'object',
          properties: { d: { type: 'string' } },
          required: ['d'],
          additionalProperties: false,
        },
        { type: 'null' },
      ],
    });
  });

  it('nests', () => {
    const codec = t.type({ items: t.array(t.type({ order_no: t.string })) });
    expect(toJsonSchema(codec)).toEqual({
      type: 'object',
      properties: {
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: { order_no: { type: 'string' } },
            required: ['order_no'],
          },
        },
      },
      required: ['items'],
    });
  });
});

describe('toJsonSchema (the core’s request codecs)', () => {
  it('reads a request from its format stage and its leaves’ own schemas', () => {
    expect(toJsonSchema(WebhookCreateRequest)).toEqual({
      type: 'object',
      properties: {
        url: {
          type: 'string',
          format: 'uri',
          maxLength: 2048,
          description: 'an absolute https URL',
        },
        events: {
          type: 'array',
          minItems: 1,
          items: { type: 'string', enum: [...webhookEventPatterns] },
        },
        status: { type: 'string', enum: ['active', 'inactive'], default: 'active' },
      },
      required: ['url', 'events'],
    });
  });

  it('merges nested intersections of required and optional parts into one object', () => {
    const order = toJsonSchema(AcquiringOrderCreateRequest);
    expect(order).not.toHaveProperty('x-payrail-codec');
    expect(order.required).toEqual([
      'out_trade_no',
      'order_currency',
      'order_amount',
      'expire_seconds',
      'underpay_tolerance',
      'notify_webhook_id',
    ]);
    expect(Object.keys(order.properties as object)).toEqual([
      'out_trade_no',
      'order_currency',
      'order_amount',
      'allowed_pay_currencies',
      'expire_seconds',
      'underpay_tolerance',
      'notify_webhook_id',
      'redirect_url',
      'logo_url',
      'remark',
      'mode',
      'checkout_type',
      'network',
      'currency',
      'redirect_automatically',
    ]);
    expect(order.properties).toMatchObject({
      expire_seconds: { type: 'integer', minimum: 60, maximum: 10800 },
      mode: { enum: ['checkout', 'direct'], default: 'checkout' },
      redirect_automatically: { type: 'boolean', default: false },
    });
  });

  it('leaves a request body open even when its format is exact: unknown keys are ignored', () => {
    const body = request('ExactBody', {
      format: t.exact(t.type({ a: t.string, nested: t.strict({ b: t.string }) })),
    });
    expect(JSON.stringify(toJsonSchema(body))).not.toContain('additionalProperties');
  });
});

describe('toJsonSchema (the core’s opaque codecs)', () => {
  it('documents the quick payout body from its structure, the inline objects included', () => {
    const body = toJsonSchema(PayoutCreateRequest);
    expect(body.required).toEqual(['currency', 'amount', 'reference', 'notify_url']);
    expect(body.properties).toMatchObject({
      currency: { enum: ['USD'] },
      notify_url: { type: 'string', format: 'uri', maxLength: 2048 },
      fee_bearer: { enum: ['merchant', 'user'], default: 'merchant' },
      submit: { type: 'boolean', default: true },
      // The inline pair's contents (decoded last), not just "an object" (checked in the table order).
      beneficiary: {
        required: ['name', 'fields'],
        properties: { fields: { required: ['payee_id'] } },
      },
      beneficiary_account: { required: ['network_code', 'fields'] },
    });
  });

  // Issue 22, disagreement 5: `default: []` beside `minItems: 1` (the batch's items).
  it('writes a default only when the field itself takes it', () => {
    const items = leaf(
      'Items',
      (u): u is readonly string[] => Array.isArray(u) && u.length > 0,
      'validation_failed',
      { type: 'array', minItems: 1 },
    );
    const flag = leaf('Flag', (u): u is boolean => typeof u === 'boolean', 'validation_failed', {
      type: 'boolean',
    });
    expect(
      toJsonSchema(
        request('Body', {
          format: t.type({ items: withDefault(items, []), flag: withDefault(flag, false) }),
        }),
      ),
    ).toEqual({
      type: 'object',
      properties: {
        items: { type: 'array', minItems: 1 },
        flag: { type: 'boolean', default: false },
      },
    });
  });

  // Issue 22, disagreement 6: a PATCH's `status` documented as required, though `{}` answers
  // `no changes` (400/53), not a validation failure.
  it('leaves out of `required` a field whose absence is a business answer, and says it', () => {
    const status = leaf('Status', (u): u is string => u === 'active', 'invalid_status', {
      type: 'string',
      enum: ['active'],
    });
    expect(
      toJsonSchema(
        request('Patch', {
          required: t.type({ status: defined(payrailError('no_changes')) }),
          format: t.type({ status }),
        }),
      ),
    ).toEqual({
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['active'], description: 'left out: `no changes`' },
      },
    });
    // `<field> required` (400/51) is a validation failure: the field stays required.
    expect(
      toJsonSchema(
        request('Create', {
          required: t.type({
            status: present(payrailError('field_required', { field: 'status' })),
          }),
          format: t.type({ status }),
        }),
      ),
    ).toMatchObject({ required: ['status'] });
  });

  it('refuses an opaque codec it has no schema for, instead of guessing', () => {
    const opaque = new t.Type<string>('Mystery', t.string.is, t.string.validate, t.identity);
    expect(() => toJsonSchema(opaque)).toThrow(/Mystery/);
    expect(() => toJsonSchema(t.type({ nested: opaque }))).toThrow(/Mystery/);
  });

  it('lets the table override a structural codec by name', () => {
    expect(toJsonSchema(t.string, { string: { type: 'string', format: 'uri' } })).toEqual({
      type: 'string',
      format: 'uri',
    });
  });
});
