/**
 * What HTTP and authentication add to a use case: the same payout create and read through
 * `app.request()` (Hono routing, the API key check, JSON in and out, the envelope) and straight
 * on the engine, on one memory store. No socket: `serve`'s Node adapter is not measured.
 */
import type { Store } from '@payrail/core';
import {
  adjustableClock,
  bootstrapOperator,
  type Caller,
  createEngine,
  type Data,
  type Outcome,
  permissions,
  randomIds,
  seedSandboxCatalogue,
} from '@payrail/engine';
import { createMemoryStore } from '@payrail/store-memory';
import * as E from 'fp-ts/lib/Either.js';
import { bench, describe } from 'vitest';
import { createApp } from './create-app.js';

const dataOf = (outcome: Outcome<Data>): Data => {
  if (E.isLeft(outcome)) throw new Error(`refused: ${outcome.left.message}`);
  return outcome.right;
};

const field = (data: Data, key: string, name: string): string =>
  String((data[key] as Readonly<Record<string, unknown>>)[name]);

const store: Store = createMemoryStore();
const clock = adjustableClock({ now: () => 1_800_000_000 });
const engine = createEngine({
  store,
  clock,
  ids: randomIds,
  settings: {
    environment: 'sandbox',
    checkoutBaseUrl: 'https://pay.example/checkout',
    allowInsecureWebhooks: false,
    keySecret: new Uint8Array(32).fill(7),
  },
});
// The rate limit is off: a benchmark is one key calling as fast as it can.
const app = createApp({
  engine,
  adminToken: 'bench-operator-token',
  rateLimit: { requestsPerSecond: 0 },
});

await seedSandboxCatalogue(store, randomIds, clock);
const merchant = dataOf(
  await engine.admin.createMerchant(bootstrapOperator, { name: 'Bench Merchant' }),
);
const accountId = field(merchant, 'merchant', 'account_id');
const issued = dataOf(
  await engine.admin.issueApiKey(bootstrapOperator, accountId, { permissions: [...permissions] }),
);
const token = field(issued, 'api_key', 'token');
dataOf(
  await engine.admin.credit(bootstrapOperator, accountId, {
    currency: 'USD',
    amount: '1000000000.00',
  }),
);

const authenticated = await engine.auth.authenticate({ token, ip: '127.0.0.1' });
if (E.isLeft(authenticated)) throw new Error(authenticated.left.message);
const caller: Caller = authenticated.right;

let serial = 0;
const quickPayout = () => {
  serial += 1;
  return {
    client_request_id: `cr-${serial}`,
    currency: 'USD',
    amount: '25.00',
    method_id: 1,
    reference: `REF-${serial}`,
    notify_url: 'https://merchant.example/payouts/notify',
    beneficiary: { name: 'Jane Doe', fields: { payee_id: 'jane01', country: 'US' } },
    beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: 'jane@example.com' } },
  };
};

/** The answer's envelope; anything but `code` 0 stops the benchmark. */
const call = async (path: string, init: RequestInit = {}): Promise<Data> => {
  const res = await app.request(path, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
  });
  const body = (await res.json()) as { code: number; message: string; data: Data };
  if (body.code !== 0) throw new Error(`${path}: ${res.status} ${body.message}`);
  return body.data;
};

const payoutId = field(
  await call('/payment/quickpayout', { method: 'POST', body: JSON.stringify(quickPayout()) }),
  'payout',
  'payout_id',
);

const options = { time: 1000 };

describe('POST /payment/quickpayout (memory store)', () => {
  bench(
    'app.request(): API key + JSON + engine + envelope',
    async () => {
      await call('/payment/quickpayout', { method: 'POST', body: JSON.stringify(quickPayout()) });
    },
    options,
  );

  const { amount: _, ...withoutAmount } = quickPayout();
  const refusedBody = JSON.stringify(withoutAmount);
  bench(
    'app.request() refused by the codec: API key + JSON, no unit of work',
    async () => {
      const res = await app.request('/payment/quickpayout', {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: refusedBody,
      });
      if (res.status !== 400) throw new Error(`answered ${res.status}`);
      await res.json();
    },
    options,
  );

  bench(
    'engine.payouts.create() alone',
    async () => {
      dataOf(await engine.payouts.create(caller, quickPayout()));
    },
    options,
  );
});

describe('GET /payment/payouts/{payout_id} (memory store)', () => {
  bench(
    'app.request(): API key + engine + envelope',
    async () => {
      await call(`/payment/payouts/${payoutId}`);
    },
    options,
  );

  bench(
    'engine.payouts.get() alone',
    async () => {
      dataOf(await engine.payouts.get(caller, payoutId));
    },
    options,
  );

  bench(
    'engine.auth.authenticate() alone (the API key check)',
    async () => {
      if (E.isLeft(await engine.auth.authenticate({ token, ip: '127.0.0.1' }))) {
        throw new Error('the key does not authenticate');
      }
    },
    options,
  );
});
