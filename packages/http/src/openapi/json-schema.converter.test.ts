import {
  AcquiringOrderCreateRequest,
  PayoutCreateRequest,
  WebhookCreateRequest,
  webhookEventPatterns,
} from '@payrail/core';
import * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { toJsonSchema } from './json-schema.converter.js';
import { namedSchemas } from './named-schemas.js';

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
});

describe('toJsonSchema (the core’s opaque codecs)', () => {
  it('finds them in the named table', () => {
    expect(toJsonSchema(PayoutCreateRequest)).toBe(namedSchemas.PayoutCreateRequest);
    expect(toJsonSchema(AcquiringOrderCreateRequest)).toMatchObject({
      'x-payrail-codec': 'AcquiringOrderCreateRequest',
      required: expect.arrayContaining(['out_trade_no', 'expire_seconds']),
    });
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
