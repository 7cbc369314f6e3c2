/**
 * Webhook and notify secrets at rest (issue 19, ADR 0041): the sealing itself, and what the
 * access use cases leave in the store.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accessHarness, merchantWithKey, rightOf, testKeySecret } from './access.test-support.js';
import { openSecret, sealSecret } from './secrets-at-rest.crypto.js';

const sealed = /^enc:v1:[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/;
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const otherKey = new Uint8Array(32).fill(8);
const unreadable =
  'a stored secret could not be opened: it was sealed under another key secret, or altered';

/** `text` with the character at `at` replaced by another of the base64url alphabet. */
const changedAt = (text: string, at: number): string => {
  const was = text[at];
  return `${text.slice(0, at)}${was === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
};

describe('sealSecret and openSecret', () => {
  it('seal to enc:v1:<iv>.<ciphertext+tag>, never the clear text, and open to it', () => {
    const stored = sealSecret(testKeySecret, secret);
    expect(stored).toMatch(sealed);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice('whsec_'.length));
    expect(openSecret(testKeySecret, stored)).toBe(secret);
  });

  it('seal the same secret differently each time (a random IV)', () => {
    const a = sealSecret(testKeySecret, secret);
    const b = sealSecret(testKeySecret, secret);
    expect(a).not.toBe(b);
    expect(a.split('.')[0]).not.toBe(b.split('.')[0]);
    expect(openSecret(testKeySecret, a)).toBe(openSecret(testKeySecret, b));
  });

  it('a value sealed under another key secret does not open', () => {
    expect(() => openSecret(otherKey, sealSecret(testKeySecret, secret))).toThrow(unreadable);
  });

  it('a tampered value does not open: IV, ciphertext or tag changed, cut, or reshaped', () => {
    const stored = sealSecret(testKeySecret, secret);
    const body = stored.slice('enc:v1:'.length);
    const dot = body.indexOf('.');
    const tampered = [
      changedAt(stored, 'enc:v1:'.length), // the IV
      changedAt(stored, 'enc:v1:'.length + dot + 1), // the ciphertext
      changedAt(stored, stored.length - 2), // the tag
      stored.slice(0, -4), // a shorter tag
      `${stored}AAAA`, // longer
      `enc:v1:${body.replace('.', '')}`, // no separator
      `${stored}.AAAA`, // a third part
      `enc:v1:.${body.slice(dot + 1)}`, // no IV
      `enc:v1:${body.slice(0, dot)}.`, // no ciphertext
      `enc:v1:${body.slice(0, dot)}.${'A'.repeat(8)}`, // shorter than a tag
      `enc:v1:${body.replace('-', '+').replace('_', '/')}`, // not base64url
      'enc:v1:',
    ].filter((value) => value !== stored);
    expect(tampered.length).toBeGreaterThanOrEqual(11);
    for (const value of tampered) {
      expect(() => openSecret(testKeySecret, value), value).toThrow(unreadable);
    }
  });

  it('a value without the enc:v1: prefix reads as the clear value it is (written before sealing)', () => {
    expect(openSecret(testKeySecret, secret)).toBe(secret);
    expect(openSecret(testKeySecret, '')).toBe('');
    expect(openSecret(testKeySecret, 'enc:v2:whatever')).toBe('enc:v2:whatever');
  });

  it('refuse a key secret shorter than 32 bytes', () => {
    expect(() => sealSecret(new Uint8Array(31), secret)).toThrow(
      'settings.keySecret must be at least 32 bytes',
    );
    expect(() => openSecret(new Uint8Array(31), sealSecret(testKeySecret, secret))).toThrow(
      'settings.keySecret must be at least 32 bytes',
    );
  });

  it('property: any text sealed under any key secret opens to itself under that key only', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        fc.uint8Array({ minLength: 32, maxLength: 64 }),
        fc.uint8Array({ minLength: 32, maxLength: 64 }),
        (clear, key, other) => {
          const stored = sealSecret(key, clear);
          expect(stored).toMatch(/^enc:v1:[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22,}$/);
          expect(openSecret(key, stored)).toBe(clear);
          if (Buffer.compare(key, other) !== 0) {
            expect(() => openSecret(other, stored)).toThrow(unreadable);
          }
        },
      ),
    );
  });

  it('property: changing any one character of a sealed value makes it unreadable', () => {
    const stored = sealSecret(testKeySecret, secret);
    fc.assert(
      fc.property(
        fc.integer({ min: 'enc:v1:'.length, max: stored.length - 1 }),
        fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.'),
        (at, replacement) => {
          fc.pre(stored[at] !== replacement);
          const changed = `${stored.slice(0, at)}${replacement}${stored.slice(at + 1)}`;
          expect(() => openSecret(testKeySecret, changed)).toThrow(unreadable);
        },
      ),
    );
  });
});

describe('what the access use cases store (issue 19, at rest)', () => {
  it('a webhook secret and a notify_secret are stored sealed, and the answers show them in clear', async () => {
    const h = accessHarness();
    const m = await merchantWithKey(h, {
      permissions: ['payment.webhook.read', 'payment.webhook.write'],
    });
    const created = rightOf(await h.access.admin.createMerchant({ name: 'Beta' }));
    const webhook = rightOf(
      await h.access.webhooks.create(m.caller, {
        url: 'https://merchant.example/hooks',
        events: ['acquiring.*'],
      }),
    ).webhook;
    const read = () =>
      h.store.transaction(async (tx) => ({
        webhook: await tx.webhooks.get(webhook.webhook_id),
        account: await tx.accounts.get(created.merchant.account_id),
      }));

    const stored = await read();
    const raw = JSON.stringify(stored);
    for (const clear of [webhook.secret, created.merchant.notify_secret]) {
      expect(clear).toMatch(/^whsec_/);
      expect(raw).not.toContain(clear);
      expect(raw).not.toContain(clear.slice('whsec_'.length));
    }
    expect(stored.webhook?.secret).toMatch(sealed);
    expect(stored.account?.notify_secret).toMatch(sealed);
    expect(openSecret(testKeySecret, stored.webhook?.secret ?? '')).toBe(webhook.secret);
    expect(openSecret(testKeySecret, stored.account?.notify_secret ?? '')).toBe(
      created.merchant.notify_secret,
    );

    const rotatedHook = rightOf(await h.access.webhooks.rotateSecret(m.caller, webhook.webhook_id));
    const rotatedNotify = rightOf(
      await h.access.admin.rotateNotifySecret(created.merchant.account_id),
    );
    const after = await read();
    const rawAfter = JSON.stringify(after);
    expect(rawAfter).not.toContain(rotatedHook.webhook.secret);
    expect(rawAfter).not.toContain(rotatedNotify.account.notify_secret);
    expect(openSecret(testKeySecret, after.webhook?.secret ?? '')).toBe(rotatedHook.webhook.secret);
    expect(openSecret(testKeySecret, after.account?.notify_secret ?? '')).toBe(
      rotatedNotify.account.notify_secret,
    );
  });
});
