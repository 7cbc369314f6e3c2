import { describe, expect, it } from 'vitest';
import type { OutboundResponse } from './http-transport.js';
import { verificationDecisionOf } from './verification-answer.js';

const answer = (statusCode: number | null, body: string): OutboundResponse => ({
  statusCode,
  body,
  error: statusCode === null ? 'timeout' : null,
  latencyMs: 3,
});

describe("the merchant's verification answer", () => {
  it.each([
    [200, '{"verified":true}', true],
    [200, '{"verified":false}', false],
    [201, ' {"verified": true, "note": "ok"} ', true],
    [299, '{"verified":false}', false],
  ] as const)('%i %s decides %s', (status, body, decision) => {
    expect(verificationDecisionOf(answer(status, body))).toBe(decision);
  });

  it.each([
    [204, ''],
    [200, 'not json'],
    [200, '{"verified":"true"}'],
    [200, '{"verified":1}'],
    [200, '{"verified":null}'],
    [200, '{}'],
    [200, '[{"verified":true}]'],
    [200, 'true'],
    [200, 'null'],
    [200, '{"Verified":true}'],
    [300, '{"verified":true}'],
    [302, '{"verified":true}'],
    [400, '{"verified":false}'],
    [500, '{"verified":true}'],
    [null, '{"verified":true}'],
  ] as const)('%s %s is undecided', (status, body) => {
    expect(verificationDecisionOf(answer(status, body))).toBeNull();
  });
});
