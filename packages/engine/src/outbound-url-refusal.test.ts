import type { OutboundUrlGuardPort } from '@payrail/core';
import { payrailError } from '@payrail/core';
import { describe, expect, it } from 'vitest';
import { outboundUrlRefusal } from './outbound-url-refusal.js';

const refusing: OutboundUrlGuardPort = {
  check: async (url, kind) =>
    url.includes('127.0.0.1')
      ? payrailError(kind === 'notify_url' ? 'invalid_notify_url' : 'invalid_webhook_url')
      : undefined,
};

describe('outboundUrlRefusal', () => {
  it("asks the guard about the body's url field and answers its refusal", async () => {
    expect(
      await outboundUrlRefusal(
        refusing,
        { notify_url: 'https://127.0.0.1/' },
        'notify_url',
        'notify_url',
      ),
    ).toMatchObject({ message: 'invalid notify_url' });
    expect(
      await outboundUrlRefusal(refusing, { url: 'https://127.0.0.1/' }, 'url', 'webhook'),
    ).toMatchObject({ message: 'invalid webhook url' });
    expect(
      await outboundUrlRefusal(refusing, { url: 'https://hooks.merchant.com/' }, 'url', 'webhook'),
    ).toBeUndefined();
  });

  it('leaves to the codec what is not a url string, and does nothing without a guard', async () => {
    for (const body of [undefined, 'x', { url: 42 }, { url: '  ' }, { url: null }, {}]) {
      expect(await outboundUrlRefusal(refusing, body, 'url', 'webhook')).toBeUndefined();
    }
    expect(
      await outboundUrlRefusal(undefined, { url: 'https://127.0.0.1/' }, 'url', 'webhook'),
    ).toBeUndefined();
  });

  it('refuses when the guard itself fails (fail closed)', async () => {
    const broken: OutboundUrlGuardPort = {
      check: () => Promise.reject(new Error('resolver down')),
    };
    expect(
      await outboundUrlRefusal(
        broken,
        { notify_url: 'https://hooks.merchant.com/' },
        'notify_url',
        'notify_url',
      ),
    ).toMatchObject({ message: 'invalid notify_url', httpStatus: 400, code: 51 });
  });
});
