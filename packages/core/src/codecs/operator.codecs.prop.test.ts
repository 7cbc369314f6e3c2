/**
 * The operators' bodies (ADR 0039): generated valid bodies decode to themselves, and each rule
 * answers its message in the order the codecs document.
 */
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { PayrailError } from '../errors/error-catalogue.js';
import { describeValidBodies } from './codec-laws.test-support.js';
import { decodeWith } from './codec-toolkit.js';
import {
  OperatorCreateRequest,
  OperatorUpdateRequest,
  operatorLimits,
  operatorRoles,
  operatorStatuses,
} from './operator.codecs.js';

const messageOf = (result: E.Either<PayrailError, unknown>): string =>
  E.isLeft(result) ? result.left.message : `decoded: ${JSON.stringify(result.right)}`;

// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters a name may not hold
const controlCharacter = /[\u0000-\u001f\u007f]/;

const operatorName = fc
  .string({ minLength: 1, maxLength: operatorLimits.maxNameLength })
  .filter((s) => s.trim() !== '' && !controlCharacter.test(s));

describeValidBodies([
  [
    OperatorCreateRequest,
    fc.record(
      {
        name: operatorName,
        role: fc.constantFrom(...operatorRoles),
        expires_in_seconds: fc.integer({ min: 60, max: 31_536_000 }),
      },
      { requiredKeys: ['name', 'role'] },
    ),
  ],
  [
    OperatorUpdateRequest,
    fc
      .record(
        { status: fc.constantFrom(...operatorStatuses), role: fc.constantFrom(...operatorRoles) },
        { requiredKeys: [] },
      )
      .filter((body) => Object.keys(body).length > 0),
  ],
]);

describe('operator bodies', () => {
  it('create: name required, then role required, then a bad name, then a bad role', () => {
    fc.assert(
      fc.property(fc.constantFrom(undefined, '', '  '), fc.string(), (name, role) => {
        expect(messageOf(decodeWith(OperatorCreateRequest)({ name, role }))).toBe('name required');
      }),
    );
    fc.assert(
      fc.property(operatorName, fc.constantFrom(undefined, '', ' '), (name, role) => {
        expect(messageOf(decodeWith(OperatorCreateRequest)({ name, role }))).toBe('role required');
      }),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ minLength: 101, maxLength: 150 }),
          operatorName.map((name) => `${name}\n`),
        ),
        (name) => {
          expect(messageOf(decodeWith(OperatorCreateRequest)({ name, role: 'root' }))).toBe(
            'Validation Failed',
          );
        },
      ),
    );
    fc.assert(
      fc.property(
        operatorName,
        fc
          .string({ minLength: 1 })
          .filter((s) => s.trim() !== '' && !(operatorRoles as readonly string[]).includes(s)),
        (name, role) => {
          expect(messageOf(decodeWith(OperatorCreateRequest)({ name, role }))).toBe(
            'Validation Failed',
          );
        },
      ),
    );
  });

  it('create: the credential lives 90 days unless 60 s to 365 days are asked', () => {
    const decoded = decodeWith(OperatorCreateRequest)({ name: 'alice', role: 'reviewer' });
    expect(decoded).toEqual(
      E.right({ name: 'alice', role: 'reviewer', expires_in_seconds: 7_776_000 }),
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ max: 59 }), fc.integer({ min: 31_536_001 }), fc.double()),
        (seconds) => {
          fc.pre(!Number.isSafeInteger(seconds) || seconds < 60 || seconds > 31_536_000);
          expect(
            messageOf(
              decodeWith(OperatorCreateRequest)({
                name: 'alice',
                role: 'viewer',
                expires_in_seconds: seconds,
              }),
            ),
          ).toBe('Validation Failed');
        },
      ),
    );
  });

  it('update: a bad status before a bad role, and nothing to change is `no changes`', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => s !== '' && !(operatorStatuses as readonly string[]).includes(s)),
        (status) => {
          expect(messageOf(decodeWith(OperatorUpdateRequest)({ status, role: 'root' }))).toBe(
            'invalid status',
          );
        },
      ),
    );
    expect(messageOf(decodeWith(OperatorUpdateRequest)({ role: 'root' }))).toBe(
      'Validation Failed',
    );
    expect(messageOf(decodeWith(OperatorUpdateRequest)({}))).toBe('no changes');
    expect(messageOf(decodeWith(OperatorUpdateRequest)({ name: 'x' }))).toBe('no changes');
  });
});
