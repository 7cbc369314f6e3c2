/**
 * Issue 19, finding L2, as a property: members named `__proto__` (and `constructor` or
 * `prototype`, which JavaScript gives a meaning too) added anywhere in a body never change what
 * is stored: a merchant sending the body with them and another sending it without them get the
 * same answer and hold the same webhooks, payouts and beneficiaries, unless the body with them is
 * refused. The bodies are webhook creates and updates (whose own members the create-time URL
 * guard reads) and quick payouts (nested objects, `fields` maps), with the hidden values biased
 * towards the fields those routes read, and the finding's cases always among the runs. On every
 * store of the list; 25 runs per store and route keep it within a 2-core machine.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, type EngineApp, engineApp, quickPayout } from './engine-app.test-support.js';
import { internalHostGuard } from './prototype-member.test-support.js';
import { storesUnderTest } from './stores.test-support.js';

type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };
type JsonObject = { readonly [key: string]: Json };

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where in a body a member is added: the body itself, or an object member on the way down. */
type Path = readonly string[];

/** A copy of `body` with `name: value` added to the object at `path` (an own member, as parsed). */
const withMember = (body: JsonObject, path: Path, name: string, value: Json): JsonObject => {
  const [head, ...rest] = path;
  const copy: Record<string, Json> = { ...body };
  if (head === undefined) {
    Object.defineProperty(copy, name, { value, enumerable: true, writable: true });
    return copy;
  }
  const inner = body[head];
  if (isObject(inner)) copy[head] = withMember(inner, rest, name, value);
  return copy;
};

/** The paths of every object in `body`, itself first. */
const objectPaths = (body: JsonObject, at: Path = []): Path[] => [
  at,
  ...Object.entries(body).flatMap(([key, value]) =>
    isObject(value) ? objectPaths(value, [...at, key]) : [],
  ),
];

const webhookFields = fc.record(
  {
    url: fc.constantFrom(
      'https://merchant.example/other',
      'https://internal.example/hooks',
      'http://merchant.example/hooks',
      '',
    ),
    events: fc.constantFrom(['payout.*'], ['acquiring.*', 'acquiring.*'], [], ['nope']),
    status: fc.constantFrom('active', 'inactive', 'paused'),
  },
  { requiredKeys: [] },
);

const payoutFields = fc.record(
  {
    display_name: fc.constantFrom('Injected', ''),
    account_type: fc.constantFrom('injected', 'x'.repeat(80)),
    notify_url: fc.constantFrom('https://internal.example/n', 'https://merchant.example/other'),
    amount: fc.constantFrom('30.00', '-1'),
    payee_id: fc.constantFrom('injected', ''),
    walleta_email: fc.constantFrom('eve@example.com', 'not an e-mail'),
  },
  { requiredKeys: ['display_name', 'account_type'] },
);

/**
 * Hidden members: a name, a value (mostly the fields the route reads, sometimes anything JSON)
 * and a pick of which object of the body holds it.
 */
interface Member {
  readonly name: string;
  readonly value: Json;
  readonly at: number;
}

const hiddenMembers = (fields: fc.Arbitrary<Json>): fc.Arbitrary<Member[]> =>
  fc.array(
    fc.record({
      name: fc.constantFrom('__proto__', '__proto__', '__proto__', 'constructor', 'prototype'),
      value: fc.oneof(
        { arbitrary: fields, weight: 6 },
        { arbitrary: fields.map((inner): Json => ({ prototype: inner })), weight: 1 },
        { arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>, weight: 1 },
        { arbitrary: fc.constant(null), weight: 1 },
      ),
      at: fc.nat(),
    }),
    { minLength: 1, maxLength: 3 },
  );

/** The finding's cases, as members; `at` picks the body (0) or the beneficiary account (3). */
const hiddenStatus: Member = { name: '__proto__', value: { status: 'inactive' }, at: 0 };
const hiddenUrl: Member = {
  name: '__proto__',
  value: { url: 'https://internal.example/hooks', status: 'inactive' },
  at: 0,
};
const hiddenDisplayName: Member = { name: '__proto__', value: { display_name: 'Injected' }, at: 3 };

type Hidden = readonly Member[];

const withHidden = (body: JsonObject, members: Hidden): JsonObject =>
  members.reduce((current, { name, value, at }) => {
    const paths = objectPaths(body);
    return withMember(current, paths[at % paths.length] ?? [], name, value);
  }, body);

/** Ids, secrets and times differ between two merchants: what is compared is the rest. */
const perMerchant = new Set([
  'account_id',
  'merchant_id',
  'webhook_id',
  'payout_id',
  'beneficiary_id',
  'beneficiary_account_id',
  'secret',
  'created_at',
  'updated_at',
  'submitted_at',
]);

const comparable = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(comparable);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      perMerchant.has(key) ? '*' : comparable(item),
    ]),
  );
};

const outcome = (answer: Answer) => ({
  status: answer.status,
  message: answer.body.message,
  data: comparable(answer.body.data),
});

describe.each(storesUnderTest)(
  'L2: hidden members never change what is stored ($name)',
  (under) => {
    let h: EngineApp;
    let store: Awaited<ReturnType<(typeof storesUnderTest)[number]['open']>>;
    let merchants = 0;

    beforeAll(async () => {
      store = await under.open();
      h = engineApp({ store, outboundUrlGuard: internalHostGuard });
      await h.seedCatalogue();
    });

    afterAll(async () => {
      await store.close?.();
    });

    /** Two merchants, one to send the body with the hidden members and one without. */
    const twoMerchants = async () => {
      const pair = [];
      for (let i = 0; i < 2; i += 1) {
        merchants += 1;
        const m = await h.merchant(`Merchant ${merchants}`);
        await h.admin('POST', `/admin/accounts/${m.accountId}/credit`, {
          currency: 'USD',
          amount: '100.00',
        });
        pair.push({ ...m, as: h.as(m.token) });
      }
      const [withThem, without] = pair;
      if (withThem === undefined || without === undefined) throw new Error('two merchants');
      return { withThem, without };
    };

    type Merchant = Awaited<ReturnType<typeof twoMerchants>>['withThem'];

    /** What a merchant holds: its webhooks, payouts and beneficiaries, as it reads them. */
    const holdings = async (m: Merchant) => ({
      webhooks: comparable((await m.as.get('/payment/webhooks')).body.data),
      payouts: comparable((await m.as.get('/payment/payouts')).body.data),
      beneficiaries: comparable((await m.as.get('/payment/beneficiaries')).body.data),
      accounts: comparable((await m.as.get('/payment/beneficiary-accounts')).body.data),
    });

    /**
     * Sends `send(body with members)` as one merchant and `send(body)` as the other; unless the
     * first is refused, both answers and both merchants' holdings are the same.
     */
    const sameAsWithout = async (
      prepare: (m: Merchant) => Promise<(m: Merchant, body: JsonObject) => Promise<Answer>>,
      body: JsonObject,
      members: Hidden,
    ) => {
      const { withThem, without } = await twoMerchants();
      const sendWith = await prepare(withThem);
      const sendWithout = await prepare(without);
      const sent = withHidden(body, members);
      const answered = await sendWith(withThem, sent);
      const expected = await sendWithout(without, body);
      if (answered.status !== 200) return;
      const context = JSON.stringify(sent);
      expect(outcome(answered), context).toEqual(outcome(expected));
      expect(await holdings(withThem), context).toEqual(await holdings(without));
    };

    const webhookBody = fc.record(
      {
        url: fc.constantFrom('https://merchant.example/hooks', 'https://internal.example/hooks'),
        events: fc.constantFrom(
          ['acquiring.*'],
          ['payout.*', 'payout.*'],
          ['acquiring.*', 'payout.*'],
        ),
        status: fc.constantFrom('active', 'inactive'),
      },
      { requiredKeys: [] },
    ) as fc.Arbitrary<JsonObject>;

    it('webhook create stores what the body without them stores', async () => {
      await fc.assert(
        fc.asyncProperty(webhookBody, hiddenMembers(webhookFields), (body, members) =>
          sameAsWithout(
            async () => (m, b) => m.as.post('/payment/webhooks', b),
            { url: 'https://merchant.example/hooks', ...body },
            members,
          ),
        ),
        // The finding's case runs every time, whatever the seed.
        { numRuns: 25, examples: [[{ events: ['acquiring.*'] }, [hiddenStatus]]] },
      );
    });

    it('webhook update stores what the body without them stores', async () => {
      await fc.assert(
        fc.asyncProperty(webhookBody, hiddenMembers(webhookFields), (body, members) =>
          sameAsWithout(
            async (m) => {
              const created = await m.as.post('/payment/webhooks', {
                url: 'https://merchant.example/hooks',
                events: ['acquiring.*'],
              });
              const id: string = created.body.data.webhook.webhook_id;
              return (owner, b) => owner.as.patch(`/payment/webhooks/${id}`, b);
            },
            body,
            members,
          ),
        ),
        { numRuns: 25, examples: [[{ events: ['payout.*'] }, [hiddenUrl]]] },
      );
    });

    it('quick payout (nested objects and maps) stores what the body without them stores', async () => {
      await fc.assert(
        fc.asyncProperty(hiddenMembers(payoutFields), (members) =>
          sameAsWithout(
            async () => (m, b) => m.as.post('/payment/quickpayout', b),
            quickPayout('PROP') as JsonObject,
            members,
          ),
        ),
        { numRuns: 25, examples: [[[hiddenDisplayName]]] },
      );
    });
  },
);
