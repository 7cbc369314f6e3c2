import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import {
  httpsUrlArb,
  webhookCreateInputArb,
  webhookUpdateInputArb,
} from '../testing/acquiring.arbitraries.js';
import {
  decodeWebhookCreate,
  decodeWebhookUpdate,
  isWebhookEventPattern,
  WebhookCreateRequest,
  WebhookUpdateRequest,
} from './webhook.codecs.js';

const messageOf = (result: E.Either<{ message: string }, unknown>): string =>
  E.isLeft(result) ? result.left.message : `decoded: ${JSON.stringify(result.right)}`;

const unknownPattern = fc.string().filter((s) => !isWebhookEventPattern(s));

describe('webhook create: generated valid bodies', () => {
  it('decode to the url, the distinct patterns in order, and the status (active by default)', () => {
    fc.assert(
      fc.property(webhookCreateInputArb, (input) => {
        expect(decodeWebhookCreate(input)).toEqual(
          E.right({
            url: input.url,
            events: [...new Set(input.events as string[])],
            status: input.status ?? 'active',
          }),
        );
      }),
    );
  });

  it('decode idempotently', () => {
    fc.assert(
      fc.property(webhookCreateInputArb, (input) => {
        const once = decodeWebhookCreate(input);
        if (E.isLeft(once)) throw new Error(once.left.message);
        expect(WebhookCreateRequest.is(once.right)).toBe(true);
        expect(decodeWebhookCreate(once.right)).toEqual(once);
      }),
    );
  });
});

describe('webhook create: each broken rule answers exactly its message', () => {
  it('a non-https url is `invalid webhook url`', () => {
    const insecure = httpsUrlArb.map((url) => url.replace(/^https/, 'http'));
    fc.assert(
      fc.property(webhookCreateInputArb, insecure, (input, url) => {
        expect(messageOf(decodeWebhookCreate({ ...input, url }))).toBe('invalid webhook url');
        // ...which the sandbox's insecure mode accepts.
        expect(E.isRight(decodeWebhookCreate({ ...input, url }, { allowInsecureUrl: true }))).toBe(
          true,
        );
      }),
    );
  });

  it('the first unknown pattern is `invalid webhook event: <event>`', () => {
    fc.assert(
      fc.property(webhookCreateInputArb, unknownPattern, fc.nat(), (input, bad, at) => {
        const events = [...(input.events as string[])];
        events.splice(at % (events.length + 1), 0, bad);
        expect(messageOf(decodeWebhookCreate({ ...input, events }))).toBe(
          `invalid webhook event: ${bad}`,
        );
      }),
    );
  });

  it('a status other than active or inactive is `invalid status`', () => {
    const badStatus = fc.oneof(
      fc.string().filter((s) => s !== 'active' && s !== 'inactive'),
      fc.integer(),
    );
    fc.assert(
      fc.property(webhookCreateInputArb, badStatus, (input, status) => {
        expect(messageOf(decodeWebhookCreate({ ...input, status }))).toBe('invalid status');
      }),
    );
  });
});

describe('webhook update: generated valid bodies', () => {
  it('decode to exactly the sent fields, idempotently', () => {
    fc.assert(
      fc.property(webhookUpdateInputArb, (input) => {
        const once = decodeWebhookUpdate(input);
        if (E.isLeft(once)) throw new Error(once.left.message);
        const sent = Object.keys(input).filter((key) => input[key] !== null);
        expect(Object.keys(once.right).sort()).toEqual(sent.sort());
        expect(WebhookUpdateRequest.is(once.right)).toBe(true);
        expect(decodeWebhookUpdate(once.right)).toEqual(once);
      }),
    );
  });
});
