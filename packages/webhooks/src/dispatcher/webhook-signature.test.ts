import { createHmac } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signatureHeadersOf } from './webhook-signature.js';

/** The worked example of the Standard Webhooks specification. */
const example = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const now = () => Math.floor(Date.now() / 1000);

describe('Standard Webhooks signatures', () => {
  it("reproduces the specification's example", () => {
    expect(signatureHeadersOf(example)).toEqual({
      'webhook-id': example.id,
      'webhook-timestamp': '1614265330',
      'webhook-signature': example.signature,
    });
  });

  it('is the base64 HMAC-SHA256 of "{id}.{timestamp}.{body}" keyed by the bytes after whsec_', () => {
    const secret = `whsec_${Buffer.from('a signing key of 24 bytes').toString('base64')}`;
    const input = { secret, id: 'evt_1', timestamp: 1_800_000_000, body: '{"a":"é"}' };
    const expected = createHmac('sha256', Buffer.from('a signing key of 24 bytes'))
      .update('evt_1.1800000000.{"a":"é"}')
      .digest('base64');
    expect(signatureHeadersOf(input)['webhook-signature']).toBe(`v1,${expected}`);
  });

  it('verifies with the standardwebhooks package, and fails on any change', () => {
    const secret = `whsec_${Buffer.from('0123456789abcdef01234567').toString('base64')}`;
    const body = JSON.stringify({ event_id: 'evt_9', data: { amount: '10.00' } });
    const headers = signatureHeadersOf({ secret, id: 'evt_9', timestamp: now(), body });
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    const other = `whsec_${Buffer.from('another key, 24 bytes!!!').toString('base64')}`;
    expect(() => new Webhook(other).verify(body, { ...headers })).toThrow(WebhookVerificationError);
    expect(() => new Webhook(secret).verify(`${body} `, { ...headers })).toThrow(
      WebhookVerificationError,
    );
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'evt_10' })).toThrow(
      WebhookVerificationError,
    );
  });
});
