import { toTronAddress } from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { evmAddress, solanaAddress, tronAddress, tronEvent } from './sandbox.test-support.js';
import {
  derivedPaymentIdOf,
  maxSandboxEvents,
  parseSandboxUpstreamEvents,
  sandboxAcquiringProvider,
} from './sandbox-acquiring.provider.js';
import {
  generateSandboxUpstreamSecret,
  isSandboxUpstreamSecret,
  signSandboxUpstream,
} from './sandbox-upstream-signature.js';

const parsed = (body: unknown) => {
  const result = parseSandboxUpstreamEvents(body);
  if (E.isLeft(result)) throw new Error(`expected events, got ${result.left.message}`);
  return result.right;
};

const refusalOf = (body: unknown) => {
  const result = parseSandboxUpstreamEvents(body);
  if (E.isRight(result)) throw new Error(`expected a refusal, got ${JSON.stringify(result.right)}`);
  return { status: result.left.httpStatus, code: result.left.code, message: result.left.message };
};

const empty = { status: 400, code: 51, message: 'empty upstream webhook event' };
const invalid = { status: 400, code: 51, message: 'invalid upstream merchant deposit payload' };

describe('the sandbox payload', () => {
  it('normalises each status into the closed set, with the default confirmations', () => {
    const events = parsed({
      events: ['processing', 'confirming', 'confirmed', 'failed'].map((status) =>
        tronEvent({ status }),
      ),
    });
    const paymentId = derivedPaymentIdOf('TRON', 'a1'.repeat(32), tronAddress);
    expect(paymentId).toMatch(/^sbx_[0-9a-f]{24}$/);
    expect(events).toEqual(
      [
        ['detected', 0],
        ['confirming', 1],
        ['confirmed', 19],
        ['failed', 0],
      ].map(([kind, confirmations]) => ({
        network: 'TRON',
        address: tronAddress,
        token_id: 'TRON_USDT',
        payment_id: paymentId,
        tx_hash: 'a1'.repeat(32),
        amount: '30.000000',
        kind,
        confirmations,
        required_confirmations: 19,
      })),
    );
  });

  it('keeps a given payment_id and confirmations, and ignores keys it does not know', () => {
    const [event] = parsed({
      events: [
        tronEvent({ payment_id: 'chain-1_A', confirmations: 5, status: 'confirming', memo: 'x' }),
      ],
      batch: 7,
    });
    expect(event).toMatchObject({ payment_id: 'chain-1_A', confirmations: 5, kind: 'confirming' });
    expect(event).not.toHaveProperty('memo');
  });

  it('reads null as absent, like every other codec', () => {
    const [event] = parsed({ events: [tronEvent({ payment_id: null, confirmations: null })] });
    expect(event).toMatchObject({ confirmations: 0 });
    expect(event?.payment_id).toMatch(/^sbx_/);
    expect(refusalOf({ events: null })).toEqual(empty);
  });

  it('reads an EVM address in any case and its 0x tx hash in lower case, per network', () => {
    const upper = `0x${'AB'.repeat(32)}`;
    const [eth, base] = parsed({
      events: [
        tronEvent({
          network: 'ETH',
          address: evmAddress.toLowerCase(),
          token_id: 'ETH_USDC',
          tx_hash: upper,
          status: 'confirmed',
        }),
        tronEvent({ network: 'BASE', address: evmAddress, token_id: 'BASE_USDC', tx_hash: upper }),
      ],
    });
    expect(eth).toMatchObject({
      address: evmAddress.toLowerCase(),
      tx_hash: upper.toLowerCase(),
      confirmations: 12,
      required_confirmations: 12,
      payment_id: derivedPaymentIdOf('ETH', upper.toLowerCase(), evmAddress.toLowerCase()),
    });
    // However the address is spelt, one transfer is one payment.
    const [checksummed] = parsed({
      events: [
        tronEvent({ network: 'ETH', address: evmAddress, token_id: 'ETH_USDC', tx_hash: upper }),
      ],
    });
    expect(checksummed?.payment_id).toBe(eth?.payment_id);
    // One transaction hash on two networks is two payments.
    expect(base?.payment_id).not.toBe(eth?.payment_id);
    // One transaction paying two addresses is two payments.
    const [a, b] = parsed({
      events: [
        tronEvent(),
        tronEvent({ address: toTronAddress(Uint8Array.from([0x41, ...Array(20).fill(8)])) }),
      ],
    });
    expect(a?.payment_id).not.toBe(b?.payment_id);
    // A TRON hash keeps its case: only EVM hex is case-free.
    const [tron] = parsed({ events: [tronEvent({ tx_hash: 'ABC' })] });
    expect(tron?.tx_hash).toBe('ABC');
  });

  it('accepts Solana addresses and amounts at the token scale', () => {
    const [event] = parsed({
      events: [
        tronEvent({
          network: 'SOL',
          address: solanaAddress,
          token_id: 'SOL_USDC',
          amount: '0.000001',
          status: 'confirmed',
        }),
      ],
    });
    expect(event).toMatchObject({ amount: '0.000001', required_confirmations: 32 });
  });

  it.each([
    ['no body', undefined],
    ['null', null],
    ['no events', {}],
    ['empty events', { events: [] }],
  ])('answers %s as an empty event', (_name, body) => {
    expect(refusalOf(body)).toEqual(empty);
  });

  it.each<[string, unknown]>([
    ['a list as the body', [tronEvent()]],
    ['a string as the body', 'events'],
    ['events not a list', { events: tronEvent() }],
    ['an event not an object', { events: ['x'] }],
    ['too many events', { events: Array(maxSandboxEvents + 1).fill(tronEvent()) }],
    ['network missing', { events: [tronEvent({ network: undefined })] }],
    ['unknown network', { events: [tronEvent({ network: 'DOGE' })] }],
    ['network spelt in lower case', { events: [tronEvent({ network: 'tron' })] }],
    ['network from the prototype', { events: [tronEvent({ network: 'constructor' })] }],
    ['address missing', { events: [tronEvent({ address: undefined })] }],
    ['address of another network', { events: [tronEvent({ address: evmAddress })] }],
    [
      'address with a bad checksum',
      { events: [tronEvent({ address: `${tronAddress.slice(0, -1)}x` })] },
    ],
    [
      'mixed-case EVM without checksum',
      {
        events: [
          tronEvent({ network: 'ETH', token_id: 'ETH_USDT', address: `0x${'aB'.repeat(20)}` }),
        ],
      },
    ],
    ['token missing', { events: [tronEvent({ token_id: undefined })] }],
    ['a bare currency', { events: [tronEvent({ token_id: 'USDT' })] }],
    ['token of another network', { events: [tronEvent({ token_id: 'ETH_USDT' })] }],
    ['tx_hash missing', { events: [tronEvent({ tx_hash: undefined })] }],
    ['tx_hash empty', { events: [tronEvent({ tx_hash: '' })] }],
    ['tx_hash with a space', { events: [tronEvent({ tx_hash: 'a b' })] }],
    ['tx_hash too long', { events: [tronEvent({ tx_hash: 'a'.repeat(129) })] }],
    ['amount missing', { events: [tronEvent({ amount: undefined })] }],
    ['amount a number', { events: [tronEvent({ amount: 30 })] }],
    ['amount zero', { events: [tronEvent({ amount: '0' })] }],
    ['amount negative', { events: [tronEvent({ amount: '-1' })] }],
    ['amount past the scale', { events: [tronEvent({ amount: '1.0000001' })] }],
    ['amount in exponent form', { events: [tronEvent({ amount: '1e3' })] }],
    ['status missing', { events: [tronEvent({ status: undefined })] }],
    ['status of the core', { events: [tronEvent({ status: 'detected' })] }],
    ['status of a record', { events: [tronEvent({ status: 'completed' })] }],
    ['confirmations negative', { events: [tronEvent({ confirmations: -1 })] }],
    ['confirmations fractional', { events: [tronEvent({ confirmations: 1.5 })] }],
    ['confirmations a string', { events: [tronEvent({ confirmations: '3' })] }],
    ['payment_id empty', { events: [tronEvent({ payment_id: '' })] }],
    ['payment_id with a slash', { events: [tronEvent({ payment_id: 'a/b' })] }],
    ['payment_id too long', { events: [tronEvent({ payment_id: 'a'.repeat(65) })] }],
    ['one bad event among good ones', { events: [tronEvent(), tronEvent({ amount: 'x' })] }],
  ])('refuses %s', (_name, body) => {
    expect(refusalOf(body)).toEqual(invalid);
  });

  it('takes exactly the most events it allows', () => {
    expect(parsed({ events: Array(maxSandboxEvents).fill(tronEvent()) })).toHaveLength(
      maxSandboxEvents,
    );
  });
});

describe('sandboxAcquiringProvider', () => {
  it('is named sandbox, keeps its own copy of the sources and parses what the engine parsed', () => {
    const sources = ['127.0.0.1/32'];
    const provider = sandboxAcquiringProvider({
      allowedSources: sources,
      secret: generateSandboxUpstreamSecret(),
    });
    sources.push('0.0.0.0/0');
    expect(provider.name).toBe('sandbox');
    expect(provider.allowedSources).toEqual(['127.0.0.1/32']);
    const body = { events: [tronEvent()] };
    expect(provider.parse(body, { body: JSON.stringify(body), headers: {} })).toEqual(
      parseSandboxUpstreamEvents(body),
    );
  });

  it('refuses to be built with a secret that is not whsec_ and 24 to 64 bytes of base64', () => {
    for (const secret of [
      '',
      'not-a-secret',
      `whsec_${Buffer.alloc(16).toString('base64')}`,
      `whsec_${Buffer.alloc(65).toString('base64')}`,
      'whsec_!!!!',
      Buffer.alloc(32).toString('base64'),
    ]) {
      expect(isSandboxUpstreamSecret(secret), secret).toBe(false);
      expect(() => sandboxAcquiringProvider({ allowedSources: [], secret }), secret).toThrow(
        'the sandbox upstream secret must be whsec_',
      );
    }
    expect(isSandboxUpstreamSecret(generateSandboxUpstreamSecret())).toBe(true);
    expect(generateSandboxUpstreamSecret()).not.toBe(generateSandboxUpstreamSecret());
  });
});

describe('forged provider events (issue 12, finding 1): the sandbox signature', () => {
  const now = 1_614_265_330;
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const provider = sandboxAcquiringProvider({
    allowedSources: ['127.0.0.1/32'],
    secret,
    now: () => now * 1000,
  });
  const body = '{"test": 2432232314}';
  const signed = {
    body,
    headers: signSandboxUpstream(secret, body, { id: 'msg_1', timestamp: now }),
  };

  it("signs as Standard Webhooks does (the specification's test vector)", () => {
    expect(
      signSandboxUpstream(secret, body, { id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: now }),
    ).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': String(now),
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('accepts its own signature, also among others and within 5 minutes either way', () => {
    expect(provider.verify(signed)).toBe(true);
    const signature = signed.headers['webhook-signature'];
    const headers = { ...signed.headers, 'webhook-signature': `v2,abc v1,AAAA ${signature}` };
    expect(provider.verify({ body, headers })).toBe(true);
    for (const timestamp of [now - 300, now + 300]) {
      const fresh = signSandboxUpstream(secret, body, { id: 'msg_1', timestamp });
      expect(provider.verify({ body, headers: fresh }), String(timestamp)).toBe(true);
    }
  });

  it('refuses no signature, a wrong one, another secret, a changed body, id or timestamp', () => {
    const { 'webhook-signature': _, ...unsigned } = signed.headers;
    const other = signSandboxUpstream(generateSandboxUpstreamSecret(), body, {
      id: 'msg_1',
      timestamp: now,
    });
    for (const [label, delivery] of [
      ['no headers', { body, headers: {} }],
      ['no signature', { body, headers: unsigned }],
      ['empty id', { body, headers: { ...signed.headers, 'webhook-id': '' } }],
      ['another id', { body, headers: { ...signed.headers, 'webhook-id': 'msg_2' } }],
      ['another secret', { body, headers: other }],
      [
        'v0 scheme',
        {
          body,
          headers: {
            ...signed.headers,
            'webhook-signature': `v0,${other['webhook-signature'].slice(3)}`,
          },
        },
      ],
      ['garbage', { body, headers: { ...signed.headers, 'webhook-signature': 'v1,!!!' } }],
      ['changed body', { body: '{"test": 2432232315}', headers: signed.headers }],
      ['body with a space', { body: `${body} `, headers: signed.headers }],
      [
        'timestamp not a number',
        { body, headers: { ...signed.headers, 'webhook-timestamp': `${now}x` } },
      ],
      [
        'timestamp moved',
        { body, headers: { ...signed.headers, 'webhook-timestamp': String(now + 1) } },
      ],
    ] as const) {
      expect(provider.verify(delivery), label).toBe(false);
    }
  });

  it('refuses a replayed delivery signed more than 5 minutes ago, or ahead', () => {
    for (const timestamp of [now - 301, now + 301, now - 86_400, 0]) {
      const replayed = signSandboxUpstream(secret, body, { id: 'msg_1', timestamp });
      expect(provider.verify({ body, headers: replayed }), String(timestamp)).toBe(false);
    }
  });
});
