/**
 * A recording stand-in for the engine: every use case records its arguments and answers
 * `{ use_case: '<group>.<name>' }` unless a test sets an answer. Authentication knows a few
 * tokens; it lets the middleware be tested without a store.
 */
import { type PayrailError, payrailError } from '@payrail/core';
import type { AuthenticationRequest, Caller, Data, Engine, Outcome } from '@payrail/engine';
import * as E from 'fp-ts/lib/Either.js';
import { expect } from 'vitest';

export interface RecordedCall {
  readonly useCase: string;
  readonly args: readonly unknown[];
}

export const callerOf = (token: string, overrides: Partial<Caller> = {}): Caller => ({
  merchant_id: `mch_${token}`,
  account_id: `acc_${token}`,
  key_id: `key_${token}`,
  permissions: [],
  env: 'sandbox',
  ...overrides,
});

type Answer = (...args: unknown[]) => Promise<Outcome<Data>>;

export interface FakeEngine {
  readonly engine: Engine;
  readonly calls: RecordedCall[];
  readonly authentications: AuthenticationRequest[];
  /** Sets the answer of one use case, e.g. `answer('payouts.get', ...)`. */
  answer(useCase: string, run: Answer): void;
  /** Tokens the fake accepts, and the callers they stand for. */
  readonly tokens: Map<string, Caller>;
}

export const fakeEngine = (): FakeEngine => {
  const calls: RecordedCall[] = [];
  const authentications: AuthenticationRequest[] = [];
  const answers = new Map<string, Answer>();
  const tokens = new Map<string, Caller>([
    ['alice-token', callerOf('alice')],
    ['bob-token', callerOf('bob')],
  ]);

  const authenticate = async (request: AuthenticationRequest): Promise<Outcome<Caller>> => {
    authentications.push(request);
    if (request.token === undefined) return E.left(payrailError('unauthorized'));
    const caller = tokens.get(request.token);
    return caller === undefined ? E.left(payrailError('invalid_api_key_token')) : E.right(caller);
  };

  const group = (name: string) =>
    new Proxy(
      {},
      {
        get: (_target, method) => {
          if (typeof method !== 'string') return undefined;
          const useCase = `${name}.${method}`;
          return async (...args: unknown[]) => {
            calls.push({ useCase, args });
            const run = answers.get(useCase);
            return run === undefined ? E.right({ use_case: useCase }) : run(...args);
          };
        },
      },
    );

  const engine = new Proxy({} as Engine, {
    get: (_target, name) => {
      if (name === 'auth') {
        // No named operators here: only the configured admin token passes `/admin`.
        const authenticateOperator = async () => E.left(payrailError('unauthorized'));
        return { authenticate, authenticateOperator };
      }
      return typeof name === 'string' ? group(name) : undefined;
    },
  });

  return {
    engine,
    calls,
    authentications,
    tokens,
    answer: (useCase, run) => {
      answers.set(useCase, run);
    },
  };
};

export const refusal =
  (error: PayrailError): Answer =>
  async () =>
    E.left(error);

/** A principal as the routes hand it on: with the request's id and client address. */
export const withOrigin = (principal: object) => ({
  ...principal,
  request_id: expect.any(String),
  client_ip: expect.any(String),
});
