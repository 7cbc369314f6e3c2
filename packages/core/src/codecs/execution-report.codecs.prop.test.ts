import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeExecutionReport,
  executionReasonMaxLength,
  executionReportStatuses,
} from './execution-report.codecs.js';

const status = fc.constantFrom(...executionReportStatuses);
const reason = fc
  .string({ minLength: 1, maxLength: executionReasonMaxLength, unit: 'grapheme-ascii' })
  .filter((text) => text.trim() !== '');
/** Keys a bank's webhook may carry beside ours; the door ignores them. */
const extra = fc.dictionary(
  fc.string().filter((key) => key !== 'status' && key !== 'reason'),
  fc.jsonValue(),
);

describe('the executor report', () => {
  it('decodes every valid report to exactly its status (and reason when failed or returned)', () => {
    fc.assert(
      fc.property(status, reason, extra, (s, r, rest) => {
        const decoded = decodeExecutionReport({ ...rest, status: s, reason: r });
        expect(decoded).toEqual({
          _tag: 'Right',
          right: s === 'failed' || s === 'returned' ? { status: s, reason: r } : { status: s },
        });
      }),
    );
  });

  it('refuses any other status with `invalid status`, never an exception', () => {
    fc.assert(
      fc.property(
        fc
          .jsonValue()
          .filter(
            (value) =>
              value !== null &&
              !(typeof value === 'string' && value.trim() === '') &&
              !(executionReportStatuses as readonly unknown[]).includes(value),
          ),
        (value) => {
          const decoded = decodeExecutionReport({ status: value });
          expect(decoded._tag === 'Left' && decoded.left.message).toBe('invalid status');
        },
      ),
    );
  });

  it('answers each broken rule with its catalogue message, first rule first', () => {
    const messageOf = (input: unknown) => {
      const decoded = decodeExecutionReport(input);
      return decoded._tag === 'Left' ? decoded.left.message : 'decoded';
    };
    expect(messageOf(undefined)).toBe('request required');
    expect(messageOf([])).toBe('request required');
    expect(messageOf({})).toBe('status required');
    expect(messageOf({ status: ' ' })).toBe('status required');
    expect(messageOf({ status: 'paid' })).toBe('invalid status');
    expect(messageOf({ status: 'failed' })).toBe('reason required');
    expect(messageOf({ status: 'failed', reason: null })).toBe('reason required');
    expect(messageOf({ status: 'failed', reason: 42 })).toBe('Validation Failed');
    expect(messageOf({ status: 'failed', reason: 'x'.repeat(257) })).toBe('Validation Failed');
    expect(messageOf({ status: 'failed', reason: 'x'.repeat(256) })).toBe('decoded');
    // A return, like a failure, comes with the executor's words (ADR 0043).
    expect(messageOf({ status: 'returned' })).toBe('reason required');
    expect(messageOf({ status: 'returned', reason: 42 })).toBe('Validation Failed');
    expect(messageOf({ status: 'returned', reason: 'bounced by the bank' })).toBe('decoded');
  });
});

describe('the executor report: idempotence and precedence', () => {
  it('a decoded report decodes to itself', () => {
    fc.assert(
      fc.property(status, reason, extra, (s, r, rest) => {
        const once = decodeExecutionReport({ ...rest, status: s, reason: r });
        if (once._tag === 'Left') throw new Error(once.left.message);
        expect(decodeExecutionReport(once.right)).toEqual(once);
      }),
    );
  });

  it('a broken status answers before a broken reason', () => {
    const brokenStatus = fc.oneof(
      fc.constantFrom(undefined, null, '', ' ').map((value) => [value, 'status required'] as const),
      fc
        .string({ minLength: 1 })
        .filter(
          (value) =>
            value.trim() !== '' && !(executionReportStatuses as readonly string[]).includes(value),
        )
        .map((value) => [value, 'invalid status'] as const),
    );
    const brokenReason = fc.oneof(
      fc.constantFrom(undefined, null, ' ', 42, {}),
      fc.string({ minLength: executionReasonMaxLength + 1, maxLength: 400 }),
    );
    fc.assert(
      fc.property(brokenStatus, brokenReason, ([value, message], bad) => {
        const decoded = decodeExecutionReport({ status: value, reason: bad });
        expect(decoded._tag === 'Left' && decoded.left.message).toBe(message);
      }),
    );
  });
});
