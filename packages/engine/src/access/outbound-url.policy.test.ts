import type { OutboundUrlGuardPort } from '@payrail/core';
import { payrailError } from '@payrail/core';
import { describe, expect, it } from 'vitest';
import type { Caller } from '../engine.api.js';
import { outboundUrlRefusal } from './outbound-url.policy.js';

const caller = (permissions: string[]): Caller => ({
  merchant_id: 'mch_1',
  account_id: 'acc_1',
  key_id: 'key_1',
  permissions,
  env: 'sandbox',
});
const asker = {
  caller: caller(['payment.webhook.write']),
  permissions: ['payment.webhook.write'] as const,
};

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
        asker,
      ),
    ).toMatchObject({ message: 'invalid notify_url' });
    expect(
      await outboundUrlRefusal(refusing, { url: 'https://127.0.0.1/' }, 'url', 'webhook', asker),
    ).toMatchObject({ message: 'invalid webhook url' });
    expect(
      await outboundUrlRefusal(
        refusing,
        { url: 'https://hooks.merchant.com/' },
        'url',
        'webhook',
        asker,
      ),
    ).toBeUndefined();
  });

  it('leaves to the codec what is not a url string, and does nothing without a guard', async () => {
    for (const body of [undefined, 'x', { url: 42 }, { url: '  ' }, { url: null }, {}]) {
      expect(await outboundUrlRefusal(refusing, body, 'url', 'webhook', asker)).toBeUndefined();
    }
    expect(
      await outboundUrlRefusal(undefined, { url: 'https://127.0.0.1/' }, 'url', 'webhook', asker),
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
        asker,
      ),
    ).toMatchObject({ message: 'invalid notify_url', httpStatus: 400, code: 51 });
  });

  it('webhook URLs are resolved before the permission check: a caller without the permission never reaches the guard (issue 12, finding 6)', async () => {
    const asked: string[] = [];
    const counting: OutboundUrlGuardPort = {
      check: async (url) => {
        asked.push(url);
        return undefined;
      },
    };
    const body = { url: 'https://hooks.merchant.com/' };
    for (const held of [[], ['payment.webhook.read'], ['payment.payout.create']]) {
      expect(
        await outboundUrlRefusal(counting, body, 'url', 'webhook', {
          caller: caller(held),
          permissions: ['payment.webhook.write'],
        }),
      ).toBeUndefined();
    }
    expect(asked).toEqual([]);
    await outboundUrlRefusal(counting, body, 'url', 'webhook', asker);
    expect(asked).toEqual(['https://hooks.merchant.com/']);
  });
});
