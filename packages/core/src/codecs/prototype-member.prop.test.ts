/**
 * Issue 19, finding L2, in the core: hosts call the engine with bodies they parsed themselves,
 * so the codecs must be safe without the HTTP adapter's cleaning (http/src/request-body.ts).
 * `JSON.parse` reads a `"__proto__"` member as an own member; a copy by assignment (io-ts copies
 * a decoded object with `Object.assign`) made its value the copy's prototype, whose fields were
 * then read as the body's own: a hidden `status` made a webhook inactive, a hidden `url` was
 * decoded as the update's url.
 *
 * The property, over every request codec `@payrail/core` exports (found in the package's index,
 * so a new one is covered or this suite says it has no valid bodies) and the decoders around
 * them: a valid body, with `"__proto__"` members inserted at random depths holding random fields
 * (mostly fields the codec reads, with values another valid body gives them), parsed by
 * `JSON.parse`, is either refused or decodes to exactly what the body without them decodes to,
 * and every object of the decoded value has a plain prototype. Which of the two is the toolkit's
 * decision (codec-toolkit.ts, `withoutPrototypeMember`): a request ignores the member, as any it
 * does not define; only a `fields` map refuses it, as any key outside its table.
 */
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import type { PayrailError } from '../errors/error-catalogue.js';
import * as core from '../index.js';
import {
  acquiringOrderInputArb,
  itemsOfLength,
  merchantLabel,
  payTokenIdArb,
  refundCreateInputArb,
  sandboxLookup,
  validBeneficiary,
  validBeneficiaryAccount,
  validBeneficiaryFields,
  validCryptoBatchCreateOf,
  validPayoutCreate,
  validPayoutCreateInline,
  webhookCreateInputArb,
  webhookUpdateInputArb,
} from '../testing/index.js';
import { decodeWith, RequestType } from './codec-toolkit.js';
import { ListQueryType } from './list-query.codecs.js';

type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };
type JsonObject = { readonly [key: string]: Json };
type Body = Readonly<Record<string, unknown>>;
type Decode = (input: unknown) => E.Either<PayrailError, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

// ---------------------------------------------------------------------------------------------
// Valid bodies of the codecs `src/testing` has no arbitrary for

const optionalKeys = { requiredKeys: [] };
const plainText = (max: number) =>
  fc.stringMatching(new RegExp(`^[A-Za-z0-9][A-Za-z0-9 ._-]{0,${max - 1}}$`));
const cents = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;
const methodId = fc.integer({ min: 1, max: 1_000_000 });

const merchantBody = fc.record(
  {
    name: plainText(200),
    currencies: fc.array(fc.constantFrom(...core.currencies), { minLength: 1, maxLength: 6 }),
  },
  { requiredKeys: ['name'] },
);

const accountBody = fc.record(
  {
    status: fc.constantFrom(...core.accountStatuses),
    verification_enabled: fc.boolean(),
    auto_approve: fc.boolean(),
    products: fc.record({ payout: fc.boolean(), acquiring: fc.boolean() }, optionalKeys),
    enabled_pay_tokens: fc.array(payTokenIdArb, { maxLength: 6 }),
    default_pay_tokens: fc.array(payTokenIdArb, { maxLength: 3 }),
  },
  optionalKeys,
);

const apiKeyBody = fc.record(
  {
    permissions: fc.array(fc.constantFrom(...core.apiKeyPermissions), {
      minLength: 1,
      maxLength: 6,
    }),
    env: fc.constantFrom('sandbox', 'live'),
    ip_whitelist: fc.array(fc.ipV4(), { maxLength: 5 }),
    expires_in_seconds: fc.integer({ min: 60, max: 31_536_000 }),
    name: plainText(100),
  },
  { requiredKeys: ['permissions'] },
);

const configStatus = fc.constantFrom(...core.payoutConfigStatuses);
const networkCode = fc.stringMatching(/^[A-Z][A-Z0-9_]{1,31}$/);

const methodBody = fc
  .constantFrom(['fiat', core.fiatCurrencies] as const, ['crypto', core.cryptoCurrencies] as const)
  .chain(([currencyType, ofType]) =>
    fc.record(
      {
        name: plainText(100),
        currency_type: fc.constant(currencyType),
        currencies: fc.uniqueArray(fc.constantFrom(...ofType), { minLength: 1 }),
        network_codes: fc.uniqueArray(networkCode, { minLength: 1, maxLength: 3 }),
        channel_ids: fc.uniqueArray(plainText(64), { maxLength: 3 }),
        method_id: methodId,
        status: configStatus,
      },
      { requiredKeys: ['name', 'currency_type', 'currencies', 'network_codes'] },
    ),
  );

const networkBody = fc.record(
  {
    code: networkCode,
    name: plainText(100),
    fields: fc.uniqueArray(
      fc.record(
        {
          field_key: fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/),
          required: fc.boolean(),
          validation_rule: fc.constantFrom('', 'email', 'evm_address', 'length:1-5'),
        },
        { requiredKeys: ['field_key'] },
      ),
      { minLength: 1, maxLength: 4, selector: (field) => field.field_key },
    ),
    status: configStatus,
  },
  { requiredKeys: ['code', 'fields'] },
);

const routeBody = fc
  .record(
    {
      account_id: plainText(64),
      method_id: methodId,
      channel_id: plainText(64),
      range: fc.tuple(fc.bigInt(0n, 10n ** 10n), fc.bigInt(0n, 10n ** 10n)),
      fixed_fee: fc.bigInt(0n, 10n ** 10n).map(cents),
      percent_fee: fc.constantFrom('0', '1.5', '100', '0.0001'),
      channel_account_id: plainText(64),
      required_beneficiary_fields: fc.uniqueArray(fc.constantFrom(...core.beneficiaryFieldKeys)),
      status: configStatus,
    },
    { requiredKeys: ['method_id', 'range'] },
  )
  .map(({ range, ...route }) => {
    // bigint: no Math.min/Math.max
    const [lo, hi] = range[0] <= range[1] ? range : [range[1], range[0]];
    return { ...route, currency: 'USD', min_amount: cents(lo), max_amount: cents(hi) };
  });

const reason = plainText(256);

/** A payout PATCH: some fields of a valid create (a channel with its method, the pair together). */
const payoutUpdateBody = fc
  .tuple(
    validPayoutCreateInline,
    fc.subarray(
      [
        ['currency'],
        ['amount'],
        ['method_id', 'channel_id'],
        ['notify_url'],
        ['fee_bearer'],
        ['beneficiary', 'beneficiary_account'],
        ['beneficiary_account_id'],
      ],
      { minLength: 1 },
    ),
    merchantLabel,
  )
  .map(([create, picked, accountId]) => {
    const fields: Body = { ...create, beneficiary_account_id: accountId };
    const keys = picked.flat().filter((key) => fields[key] !== undefined);
    return Object.fromEntries(keys.map((key) => [key, fields[key]]));
  })
  .filter((update) => Object.keys(update).length > 0);

/** Sandbox payments: an amount at most at the tokens' 6 decimals. */
const sandboxPaymentBody = fc.record(
  {
    token_id: payTokenIdArb,
    amount: fc
      .tuple(fc.integer({ min: 1, max: 1_000_000_000 }), fc.stringMatching(/^[0-9]{0,6}$/))
      .map(([whole, fraction]) => (fraction === '' ? `${whole}` : `${whole}.${fraction}`)),
    status: fc.constantFrom(...core.sandboxPaymentStatuses),
    tx_hash: fc.stringMatching(/^0x[0-9a-f]{1,64}$/),
    payment_id: fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
  },
  { requiredKeys: ['token_id', 'amount', 'status'] },
);

/** Any list's query: its page (a list without one ignores it), as URLSearchParams gives it. */
const listQueryBody = fc.record(
  {
    limit: fc.integer({ min: 1, max: 100 }).map(String),
    offset: fc.nat(100_000).map(String),
    start_at: fc.constant('0'),
  },
  optionalKeys,
);

/** A statement's query: its required currency and period, and a page (ADR 0045). */
const statementQueryBody = fc.record({
  currency: fc.constantFrom('USD', 'USDT'),
  start_at: fc.nat(1_000).map(String),
  end_at: fc.integer({ min: 1_000, max: 2_000 }).map(String),
  limit: fc.integer({ min: 1, max: 100 }).map(String),
});

/** Lists whose queries have required parameters: bodies that send them. */
const listQueryBodies: Readonly<Record<string, fc.Arbitrary<Body>>> = {
  StatementQuery: statementQueryBody,
  StatementExportQuery: statementQueryBody,
  SettlementReportQuery: fc.record({
    date: fc.constantFrom('2027-01-15', '2024-02-29', '1970-01-01'),
    offset: fc.nat(100).map(String),
  }),
};

const operatorRoles = ['viewer', 'reviewer', 'treasurer', 'admin'] as const;

/**
 * Valid bodies of every request codec the index exports, by its export name. A codec missing
 * here fails 'every request codec the core exports has valid bodies here'.
 */
const validBodies: Readonly<Record<string, fc.Arbitrary<Body>>> = {
  AcquiringOrderCreateRequest: acquiringOrderInputArb,
  AcquiringOrderCloseRequest: fc.record({ reason }),
  BatchApproveRequest: fc.record({ version: fc.nat() }),
  PayTokenSelectionRequest: fc
    .constantFrom(...Object.values(core.payTokens))
    .map((token) => ({ network: token.network, currency: token.currency })),
  MerchantCreateRequest: merchantBody,
  AccountUpdateRequest: accountBody,
  ApiKeyIssueRequest: apiKeyBody,
  ApiKeyUpdateRequest: fc.record({ status: fc.constantFrom(...core.apiKeyPatchStatuses) }),
  AccountCreditRequest: fc.record({
    currency: fc.constant('USD'),
    amount: fc.bigInt(1n, 10n ** 12n).map(cents),
  }),
  SandboxClockAdvanceRequest: fc.record({ seconds: fc.nat(2_592_000) }),
  Beneficiary: validBeneficiary,
  BeneficiaryAccount: validBeneficiaryAccount,
  CryptoBatchCreateRequest: validCryptoBatchCreateOf(6),
  OperatorCreateRequest: fc.record(
    {
      name: plainText(100),
      role: fc.constantFrom(...operatorRoles),
      expires_in_seconds: fc.integer({ min: 60, max: 31_536_000 }),
    },
    { requiredKeys: ['name', 'role'] },
  ),
  OperatorUpdateRequest: fc
    .record(
      { status: fc.constantFrom('active', 'disabled'), role: fc.constantFrom(...operatorRoles) },
      optionalKeys,
    )
    .filter((update) => Object.keys(update).length > 0),
  PayoutCreateRequest: validPayoutCreate,
  PayoutUpdateRequest: payoutUpdateBody,
  BeneficiaryCreateRequest: fc
    .tuple(validBeneficiary, methodId, fc.option(merchantLabel, { nil: undefined }))
    .map(([beneficiary, method_id, channel_id]) => ({
      method_id,
      ...(channel_id === undefined ? {} : { channel_id }),
      ...beneficiary,
    })),
  BeneficiaryPatchRequest: fc.record({ status: fc.constantFrom(...core.beneficiaryStatuses) }),
  BeneficiaryAccountPatchRequest: fc.record({
    status: fc.constantFrom(...core.beneficiaryAccountStatuses),
  }),
  BeneficiaryAccountCreateRequest: fc
    .tuple(merchantLabel, validBeneficiaryAccount)
    .map(([beneficiary_id, account]) => ({ beneficiary_id, ...account })),
  PayoutMethodRequest: methodBody,
  PayoutNetworkRequest: networkBody,
  PayoutRouteRequest: routeBody,
  PayoutReviewRequest: fc.record(
    { action: fc.constantFrom(...core.reviewActions), reason },
    { requiredKeys: ['action'] },
  ),
  SandboxExecutionRequest: fc.record(
    { outcome: fc.constantFrom(...core.sandboxExecutionOutcomes), reason },
    { requiredKeys: ['outcome'] },
  ),
  SandboxPaymentRequest: sandboxPaymentBody,
  AcquiringRefundCreateRequest: refundCreateInputArb,
  RefundReviewRequest: fc.record(
    { action: fc.constantFrom('approve', 'reject'), reason },
    { requiredKeys: ['action'] },
  ),
  OrderResolveRequest: fc.record(
    {
      action: fc.constantFrom(...core.resolutionActions),
      reason: fc.constant('paid late'),
      refund_address: fc.constant('TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7'),
    },
    { requiredKeys: ['action', 'reason'] },
  ),
  WebhookCreateRequest: webhookCreateInputArb,
  WebhookUpdateRequest: webhookUpdateInputArb,
};

/** The request codecs the index exports: built with `request(...)`, a list query's included. */
const exportedRequestCodecs: readonly (readonly [string, t.Mixed])[] = Object.entries(core).flatMap(
  ([name, value]): (readonly [string, t.Mixed])[] =>
    value instanceof RequestType || value instanceof ListQueryType ? [[name, value]] : [],
);

/** Every decoder under test: the exported codecs, and the decoders that wrap requests. */
const decoders: readonly (readonly [string, Decode, fc.Arbitrary<Body>])[] = [
  ...exportedRequestCodecs.flatMap(
    ([name, codec]): (readonly [string, Decode, fc.Arbitrary<Body>])[] => {
      const bodies =
        codec instanceof ListQueryType
          ? (listQueryBodies[name] ?? listQueryBody)
          : validBodies[name];
      return bodies === undefined ? [] : [[name, decodeWith(codec), bodies]];
    },
  ),
  ...core.cryptoCurrencies.map(
    (currency) =>
      [
        `CryptoBatchItemsRequest(${currency})`,
        decodeWith(core.CryptoBatchItemsRequest(currency)),
        fc
          .integer({ min: 1, max: 6 })
          .chain(itemsOfLength)
          .map((items) => ({ items })),
      ] as const,
  ),
  ['BeneficiaryFields', decodeWith(core.BeneficiaryFields), validBeneficiaryFields],
  [
    'decodeExecutionReport',
    core.decodeExecutionReport,
    fc.oneof(
      fc.record({ status: fc.constantFrom('processing', 'completed') }),
      fc.record({ status: fc.constant('failed'), reason }),
    ),
  ],
  [
    'decodePayoutCreate (network schema checked)',
    (input) => core.decodePayoutCreate(input, { lookupNetwork: sandboxLookup }),
    validPayoutCreate,
  ],
  [
    'decodeBeneficiaryAccount (network schema checked)',
    (input) => core.decodeBeneficiaryAccount(input, { lookupNetwork: sandboxLookup }),
    validBeneficiaryAccount,
  ],
];

// ---------------------------------------------------------------------------------------------
// Bodies with hidden members

/** Where in a body a member is added: the body itself, or an object on the way down. */
type Path = readonly (string | number)[];

/** The paths of every object in `body` (in arrays too), itself first. */
const objectPaths = (value: Json, at: Path = []): Path[] => {
  if (Array.isArray(value)) return value.flatMap((item, i) => objectPaths(item, [...at, i]));
  if (!isObject(value)) return [];
  return [at, ...Object.entries(value).flatMap(([key, item]) => objectPaths(item, [...at, key]))];
};

const objectAt = (value: Json, path: Path): Json | undefined =>
  path.reduce<Json | undefined>(
    (inner, step) =>
      inner !== null && typeof inner === 'object'
        ? (inner as Readonly<Record<string | number, Json>>)[step]
        : undefined,
    value,
  );

/** A copy of `value` with an own `__proto__: hidden` member in the object at `path`. */
const withMember = (value: Json, path: Path, hidden: Json): Json => {
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    return value.map((item, i) => (i === head ? withMember(item, rest, hidden) : item));
  }
  if (!isObject(value)) return value;
  // Members defined, not assigned: as `JSON.parse` makes them, a `__proto__` among them an own
  // member (which `JSON.stringify` writes out), never the copy's prototype.
  const copy: Record<string, Json> = {};
  const define = (key: string, item: Json) =>
    Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true });
  for (const [key, item] of Object.entries(value)) {
    define(key, key === head ? withMember(item, rest, hidden) : item);
  }
  if (head === undefined) define('__proto__', hidden);
  return copy;
};

/** A hidden member: what it holds, and a pick of which object of the body holds it. */
interface Member {
  readonly at: number;
  readonly hidden: Json;
}

/** Names and values the routes read, for hidden members whatever the codec. */
const routeFields = fc.dictionary(
  fc.constantFrom('status', 'url', 'amount', 'currency', 'events', 'name', 'role', 'limit'),
  fc.constantFrom<Json>(
    'inactive',
    'disabled',
    'https://internal.example/hooks',
    '1.00',
    'USD',
    ['payout.*'],
    'admin',
    '5',
  ),
  { minKeys: 1, maxKeys: 4 },
);

/**
 * What a hidden member holds: mostly some fields of an object of another valid body (so the names
 * are the codec's and the values ones it accepts, where the body may lack them), else the routes'
 * fields, any JSON object or array, or null: what an assignment makes a prototype. A `__proto__`
 * holding a string or a number cannot become one (the setter ignores it) and is a member like
 * any other, which a map keeps for its own refusal (`beneficiary-account.codecs.prop.test.ts`).
 */
const hiddenValue = (bodies: fc.Arbitrary<Body>): fc.Arbitrary<Json> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: bodies.chain((donor) => {
        const json = JSON.parse(JSON.stringify(donor)) as Json;
        const objects = objectPaths(json).map((path) => objectAt(json, path) as JsonObject);
        return fc
          .constantFrom(...objects)
          .chain((object) =>
            fc
              .subarray(Object.keys(object), { minLength: Math.min(1, Object.keys(object).length) })
              .map(
                (keys): Json => Object.fromEntries(keys.map((key) => [key, object[key] ?? null])),
              ),
          );
      }),
    },
    { weight: 2, arbitrary: routeFields },
    { weight: 1, arbitrary: routeFields.map((fields): Json => ({ fields, prototype: fields })) },
    {
      weight: 1,
      arbitrary: fc
        .jsonValue({ maxDepth: 2 })
        .filter((value) => typeof value === 'object') as fc.Arbitrary<Json>,
    },
    { weight: 1, arbitrary: fc.constant(null) },
  );

const members = (bodies: fc.Arbitrary<Body>): fc.Arbitrary<Member[]> =>
  fc.array(fc.record({ at: fc.nat(), hidden: hiddenValue(bodies) }), {
    minLength: 1,
    maxLength: 3,
  });

/** The text of `body` with the members, as a host's client sends it. */
const sentText = (body: Json, added: readonly Member[]): string => {
  const paths = objectPaths(body);
  return JSON.stringify(
    added.reduce(
      (current, { at, hidden }) => withMember(current, paths[at % paths.length] ?? [], hidden),
      body,
    ),
  );
};

// ---------------------------------------------------------------------------------------------
// What the decoded value must be

/**
 * A value as reading it sees it: every member `for ... in` visits, its prototype's included, so
 * a field a prototype lends shows as a member.
 */
const asRead = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(asRead);
  if (typeof value !== 'object' || value === null) return value;
  const entries: [string, unknown][] = [];
  for (const key in value) entries.push([key, asRead((value as Record<string, unknown>)[key])]);
  return Object.fromEntries(entries);
};

/** Where in `value` an object's prototype is not the plain one (Object's or null; Array's). */
const oddPrototypes = (value: unknown, at = '$'): string[] => {
  if (typeof value !== 'object' || value === null) return [];
  const prototype: unknown = Object.getPrototypeOf(value);
  const plain = Array.isArray(value)
    ? prototype === Array.prototype
    : prototype === Object.prototype || prototype === null;
  return [
    ...(plain ? [] : [at]),
    ...Object.entries(value).flatMap(([key, item]) => oddPrototypes(item, `${at}.${key}`)),
  ];
};

/** What a `fields` map answers for a `__proto__` key, as for any key outside its table. */
const mapRefusals = [
  'unknown field fields.__proto__',
  'unknown field __proto__',
  'field __proto__ invalid',
];

describe('L2: a "__proto__" member carries no field into a decoded request (issue 19)', () => {
  it('every request codec the core exports has valid bodies here', () => {
    const without = exportedRequestCodecs
      .filter(([name, codec]) => !(codec instanceof ListQueryType) && !(name in validBodies))
      .map(([name]) => name);
    expect(without).toEqual([]);
    // The index still exports the codecs this suite was written against.
    expect(exportedRequestCodecs.length).toBeGreaterThanOrEqual(30);
  });

  it.each(decoders.map(([name, decode, bodies]) => ({ name, decode, bodies })))(
    '$name: "__proto__" members at any depth carry no field into the decoded value',
    ({ decode, bodies }) => {
      fc.assert(
        fc.property(bodies, members(bodies), (body, added) => {
          const json = JSON.parse(JSON.stringify(body)) as Json;
          const plain = decode(json);
          if (E.isLeft(plain)) {
            throw new Error(
              `a valid body is refused: ${JSON.stringify(body)}: ${plain.left.message}`,
            );
          }
          const text = sentText(json, added);
          const decoded = decode(JSON.parse(text));
          // Safety, whether the codec refuses or ignores the members: nothing hidden is read.
          if (E.isRight(decoded)) {
            expect(oddPrototypes(decoded.right), text).toEqual([]);
            expect(asRead(decoded.right), text).toEqual(asRead(plain.right));
          }
          // The toolkit's choice: a member no codec defines, ignored by a request and refused
          // only by a map that refuses keys outside its table (a profile's or an account's
          // `fields`), with the message any such key gets.
          if (E.isLeft(decoded)) expect(mapRefusals, text).toContain(decoded.left.message);
        }),
      );
    },
  );
});

describe('L2: the finding, as the host sends it', () => {
  const parsed = (text: string): unknown => JSON.parse(text);
  const right = <A>(result: E.Either<PayrailError, A>): A => {
    if (E.isLeft(result)) throw new Error(result.left.message);
    return result.right;
  };

  it('a hidden status on webhook create leaves the webhook active', () => {
    const decoded = right(
      core.decodeWebhookCreate(
        parsed(
          '{"url":"https://merchant.example/hooks","events":["acquiring.*"],' +
            '"__proto__":{"status":"inactive"}}',
        ),
      ),
    );
    expect(decoded).toEqual({
      url: 'https://merchant.example/hooks',
      events: ['acquiring.*'],
      status: 'active',
    });
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
  });

  it('a hidden url or status on webhook update is not decoded', () => {
    const decoded = right(
      core.decodeWebhookUpdate(
        parsed(
          '{"events":["payout.*"],' +
            '"__proto__":{"url":"https://internal.example/hooks","status":"inactive"}}',
        ),
      ),
    );
    expect(asRead(decoded)).toEqual({ events: ['payout.*'] });
  });

  it('a hidden url is not read in place of a missing one', () => {
    const answer = core.decodeWebhookCreate(
      parsed('{"events":["acquiring.*"],"__proto__":{"url":"https://internal.example/hooks"}}'),
    );
    expect(E.isLeft(answer) && answer.left.message).toBe('url required');
  });

  it("a hidden display_name in a payout's beneficiary account is not decoded", () => {
    const body = {
      currency: 'USD',
      amount: '10.00',
      reference: 'REF-1',
      notify_url: 'https://merchant.example/n',
      method_id: 1,
      beneficiary: { name: 'Ann Lee', fields: { payee_id: 'ann001' } },
      beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: 'a@b.example' } },
    };
    const text = JSON.stringify(body).replace(
      '{"network_code"',
      '{"__proto__":{"display_name":"Injected","account_type":"injected"},"network_code"',
    );
    const decoded = right(core.decodePayoutCreate(parsed(text), { lookupNetwork: sandboxLookup }));
    expect(asRead(decoded.beneficiary_account)).toEqual({
      network_code: 'WALLETA',
      fields: { walleta_email: 'a@b.example' },
    });
  });

  it("leaves the host's body as it was", () => {
    const body = parsed(
      '{"events":["payout.*"],"x":{"__proto__":{"y":1}},"__proto__":{"status":"inactive"}}',
    );
    const before = JSON.stringify(body);
    right(core.decodeWebhookUpdate(body));
    expect(JSON.stringify(body)).toBe(before);
  });

  it('a "__proto__" key in a fields map is refused as any key outside its table', () => {
    const profile = decodeWith(core.BeneficiaryCreateRequest)(
      parsed(
        '{"method_id":1,"name":"Ann Lee",' +
          '"fields":{"payee_id":"ann001","__proto__":{"country":"US"}}}',
      ),
    );
    expect(E.isLeft(profile) && profile.left.message).toBe('unknown field fields.__proto__');
    const account = (fields: string) =>
      core.decodeBeneficiaryAccount(parsed(`{"network_code":"WALLETA","fields":${fields}}`), {
        lookupNetwork: sandboxLookup,
      });
    const held = account('{"walleta_email":"a@b.example","__proto__":{"x":"y"}}');
    expect(E.isLeft(held) && held.left.message).toBe('field __proto__ invalid');
    const named = account('{"walleta_email":"a@b.example","__proto__":"x"}');
    expect(E.isLeft(named) && named.left.message).toBe('unknown field __proto__');
  });
});
