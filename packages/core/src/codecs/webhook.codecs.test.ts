import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { PayrailError } from '../errors/error-catalogue.js';
import {
  decodeWebhookCreate,
  decodeWebhookUpdate,
  isAbsoluteHttpsUrl,
  WebhookCreateRequest,
} from './webhook.codecs.js';

const validWebhook = {
  url: 'https://merchant.example.com/hooks/payrail',
  events: ['acquiring.*'],
};

const errorOf = <A>(result: E.Either<PayrailError, A>): PayrailError => {
  if (E.isRight(result)) throw new Error(`expected an error, got ${JSON.stringify(result.right)}`);
  return result.left;
};
const createMessage = (body: unknown) => errorOf(decodeWebhookCreate(body)).message;
const updateMessage = (body: unknown) => errorOf(decodeWebhookUpdate(body)).message;

describe('webhook create', () => {
  it('decodes with status active by default and duplicate patterns dropped', () => {
    expect(
      decodeWebhookCreate({
        ...validWebhook,
        events: ['acquiring.*', 'payout.*', 'acquiring.*'],
        secret: 'ignored',
      }),
    ).toEqual(
      E.right({ url: validWebhook.url, events: ['acquiring.*', 'payout.*'], status: 'active' }),
    );
    expect(decodeWebhookCreate({ ...validWebhook, status: 'inactive' })).toEqual(
      E.right({ ...validWebhook, status: 'inactive' }),
    );
  });

  it('accepts every pattern of the closed list', () => {
    const events = [
      'acquiring.*',
      'acquiring.order.updated',
      'acquiring.payment.updated',
      'payout.*',
      'payout.verify.request',
      'payout.review.approved',
      'payout.review.returned',
      'payout.review.rejected',
      'payout.execution.processing',
      'payout.execution.completed',
      'payout.execution.failed',
    ];
    const result = decodeWebhookCreate({ ...validWebhook, events });
    expect(E.isRight(result) && result.right.events).toEqual(events);
  });

  it('a body that is not a JSON object is `request required`', () => {
    expect(createMessage(undefined)).toBe('request required');
    expect(createMessage([validWebhook])).toBe('request required');
  });

  it('url: absent, null or blank is `url required`', () => {
    expect(createMessage({ events: ['acquiring.*'] })).toBe('url required');
    expect(createMessage({ ...validWebhook, url: null })).toBe('url required');
    expect(createMessage({ ...validWebhook, url: ' ' })).toBe('url required');
  });

  it.each([
    'http://merchant.example.com/hook',
    'merchant.example.com/hook',
    '//merchant.example.com/hook',
    'https://user:secret@merchant.example.com/hook',
    'https://merchant.example.com:0/hook',
    'https://merchant.example.com:65536/hook',
    'https:// merchant.example.com',
    'ftp://merchant.example.com',
    'https://',
    42,
  ])('url %j is `invalid webhook url` (400/51)', (url) => {
    const error = errorOf(decodeWebhookCreate({ ...validWebhook, url }));
    expect(error.message).toBe('invalid webhook url');
    expect([error.httpStatus, error.code]).toEqual([400, 51]);
  });

  it('an http url is accepted only when the sandbox allows insecure webhooks', () => {
    const body = { ...validWebhook, url: 'http://127.0.0.1:9000/hook' };
    expect(createMessage(body)).toBe('invalid webhook url');
    expect(E.isRight(decodeWebhookCreate(body, { allowInsecureUrl: true }))).toBe(true);
  });

  it('events: absent or empty is `events required`, not a list of strings Validation Failed', () => {
    expect(createMessage({ url: validWebhook.url })).toBe('events required');
    expect(createMessage({ ...validWebhook, events: [] })).toBe('events required');
    expect(createMessage({ ...validWebhook, events: 'acquiring.*' })).toBe('Validation Failed');
    expect(createMessage({ ...validWebhook, events: ['acquiring.*', 1] })).toBe(
      'Validation Failed',
    );
  });

  it.each([
    '*',
    'acquiring',
    'acquiring.order.*',
    'Acquiring.*',
    'payout.review.*',
    'order.updated',
    '',
  ])('an unknown pattern %j is `invalid webhook event: <event>` (400/51)', (event) => {
    const error = errorOf(
      decodeWebhookCreate({ ...validWebhook, events: ['payout.*', event, 'nope'] }),
    );
    expect(error.message).toBe(`invalid webhook event: ${event}`);
    expect(error.code).toBe(51);
  });

  it.each(['enabled', 'ACTIVE', 'disabled', 1])('status %j is `invalid status`', (status) => {
    expect(createMessage({ ...validWebhook, status })).toBe('invalid status');
  });

  it('precedence: url, then events, then status', () => {
    const broken = { url: 'http://x.example', events: ['nope'], status: 'on' };
    expect(createMessage(broken)).toBe('invalid webhook url');
    expect(createMessage({ ...broken, url: validWebhook.url })).toBe('invalid webhook event: nope');
    expect(createMessage({ ...broken, url: validWebhook.url, events: ['payout.*'] })).toBe(
      'invalid status',
    );
  });

  it('the decoded webhook is a codec value', () => {
    const decoded = decodeWebhookCreate(validWebhook);
    expect(E.isRight(decoded) && WebhookCreateRequest.is(decoded.right)).toBe(true);
  });
});

describe('webhook update (PATCH)', () => {
  it('keeps only the sent fields', () => {
    expect(decodeWebhookUpdate({})).toEqual(E.right({}));
    expect(decodeWebhookUpdate({ status: 'inactive', url: null, other: 1 })).toEqual(
      E.right({ status: 'inactive' }),
    );
    expect(decodeWebhookUpdate({ events: ['payout.*'], url: validWebhook.url })).toEqual(
      E.right({ events: ['payout.*'], url: validWebhook.url }),
    );
  });

  it('each sent field follows the create rules', () => {
    expect(updateMessage({ url: '' })).toBe('invalid webhook url');
    expect(updateMessage({ url: 'http://merchant.example.com' })).toBe('invalid webhook url');
    expect(updateMessage({ events: [] })).toBe('events required');
    expect(updateMessage({ events: ['acquiring.refund.updated'] })).toBe(
      'invalid webhook event: acquiring.refund.updated',
    );
    expect(updateMessage({ status: 'paused' })).toBe('invalid status');
    expect(updateMessage('{}')).toBe('request required');
  });
});

describe('isAbsoluteHttpsUrl', () => {
  it('accepts https URLs with a host, and nothing else', () => {
    expect(
      [
        'https://example.com',
        'https://example.com:8443/a?b=c#d',
        'https://10.0.0.1/x',
        'https://[2001:db8::1]/x',
        'HTTPS://EXAMPLE.COM/',
      ].every(isAbsoluteHttpsUrl),
    ).toBe(true);
    expect(
      ['http://example.com', '/path', 'https://', 'https://exa mple.com', 'https://-bad.com'].some(
        isAbsoluteHttpsUrl,
      ),
    ).toBe(false);
  });
});
