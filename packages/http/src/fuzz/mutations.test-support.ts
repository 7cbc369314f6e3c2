/**
 * What the HTTP-edge fuzzer sends (issue 13, point 3): a valid body of the route, or one mutated
 * the ways a careless or hostile client breaks a body. Structural mutations put a wrong-typed,
 * huge, deep, non-text or exotic value at any node, drop a member or add one; textual ones write
 * raw JSON no serializer would (`NaN`, `1e400`, `"\ud800"`, duplicate keys), break the JSON, send
 * no body, a body of the wrong kind or encoding, or one over the 1 MiB limit. Headers vary too:
 * content types, and now and then a garbage credential.
 */
import fc from 'fast-check';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = readonly (string | number)[];

/** One request as the fuzzer sends it; `body` is text or raw bytes (not UTF-8, say). */
export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array | undefined;
  /** Which mutation made it, for the report and the failure message. */
  readonly kind: string;
}

/** What a route needs to be fuzzed: its ids and valid bodies, and how it authenticates. */
export interface FuzzTarget {
  readonly method: string;
  /** OpenAPI style, `{name}` parameters. */
  readonly template: string;
  /** Existing ids for each path parameter (the fuzzer also invents ones). */
  readonly ids: Readonly<Record<string, readonly string[]>>;
  /** Valid bodies; `undefined` for a route that reads none. */
  readonly body: fc.Arbitrary<Json> | undefined;
  /** Headers of a caller entitled to the route (an all-permission key, the operator token). */
  readonly credential: Readonly<Record<string, string>>;
  /** Headers a caller would send that authenticate the body itself (a provider's signature). */
  readonly sign?: (body: string) => Readonly<Record<string, string>>;
}

// ---------------------------------------------------------------------------------------------
// Values

/** Strings a field should never accept as-is, or must take in its stride. */
const exoticStrings: readonly string[] = [
  '',
  ' ',
  '\t\n',
  'NaN',
  'nan',
  'Infinity',
  '-Infinity',
  '+Infinity',
  '1e3',
  '1E-2',
  '1e400',
  '-0',
  '0x10',
  '1_000',
  '1,50',
  ' 1.00',
  '1.00 ',
  '01.5',
  '.5',
  '5.',
  '1.005',
  '-1.00',
  '+1.00',
  '9'.repeat(40),
  `0.${'0'.repeat(30)}1`,
  '١٢٣.٤٥',
  '１２３',
  'true',
  'null',
  'undefined',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDC00y',
  '\uDBFF\uDBFF',
  '\uFEFF1.00',
  '\u202Eabc\u202C',
  'مرحبا بالعالم',
  'שלום',
  'e\u0301\u0301\u0301\u0301',
  'Z̴̡̢̛͚͇̘̯͎̞̤̝̑̿̈́̆͗͛̎a̷̧̛̤̤̫̯͈̟̝͗̈́l̸̛̩̠̪̤͕g̵o',
  '💸👩‍👩‍👧‍👦🏳️‍🌈',
  '\u200B',
  '\uFFFF',
  '\uFFFD',
  "'; DROP TABLE payouts; --",
  '%00',
  '\\u0000',
  'https://merchant.example/\u0000',
  'javascript:alert(1)',
  '<script>alert(1)</script>',
  'TRON_USDT',
  'USD',
  'WALLETA',
];

const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n));

/** Any UTF-16 string, lone surrogates and NUL included. */
const anyUnits = fc.string({ unit: codeUnit, maxLength: 40 });

/** Long strings: mostly kilobytes, now and then 10^6 characters (still under 1 MiB as JSON? no: over it). */
const longString = fc
  .oneof(
    { arbitrary: fc.integer({ min: 256, max: 20_000 }), weight: 20 },
    { arbitrary: fc.constant(1_000_000), weight: 1 },
  )
  .map((n) => 'x'.repeat(n));

const nested = (depth: number, kind: 'array' | 'object'): Json => {
  let value: Json = 'deep';
  for (let i = 0; i < depth; i += 1) value = kind === 'array' ? [value] : { a: value };
  return value;
};

/** A value of any type a field may be handed, good or hostile. */
const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  { arbitrary: fc.constantFrom(...exoticStrings), weight: 12 },
  { arbitrary: anyUnits, weight: 4 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }), weight: 3 },
  { arbitrary: longString, weight: 1 },
  {
    arbitrary: fc.constantFrom<Json>(
      1.5,
      0,
      -1,
      1000,
      0.01,
      1e21,
      2 ** 53 + 2,
      Number.MAX_VALUE,
      Number.MIN_VALUE,
      0.1 + 0.2,
      -1e-7,
      true,
      false,
      null,
      [],
      {},
      [null],
      [''],
      { '': '' },
    ),
    weight: 8,
  },
  { arbitrary: fc.integer(), weight: 2 },
  { arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }), weight: 2 },
  {
    arbitrary: fc
      .tuple(
        fc.integer({ min: 10, max: 2_000 }),
        fc.constantFrom('array', 'object') as fc.Arbitrary<'array' | 'object'>,
      )
      .map(([depth, kind]) => nested(depth, kind)),
    weight: 1,
  },
  {
    arbitrary: fc
      .integer({ min: 100, max: 50_000 })
      .map((n): Json => Array.from({ length: n }, (_, i) => i)),
    weight: 1,
  },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>, weight: 3 },
);

/** Names of members a codec does not know, hostile ones among them. */
const memberName = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    '',
    ' ',
    '\u0000',
    '\uD800',
    'amount ',
    'AMOUNT',
    '💸',
    'toString',
  ),
  anyUnits,
  fc.string({ maxLength: 12 }),
);

/** Raw JSON tokens no `JSON.stringify` writes, or writes differently. */
const rawTokens = fc.constantFrom(
  'NaN',
  'Infinity',
  '-Infinity',
  'undefined',
  '1e400',
  '-1e400',
  '1e-400',
  '1.5',
  '1E3',
  '1e3',
  '0.1e1',
  '1e-7',
  '-0',
  '100000000000000000000000000000',
  '0x10',
  '.5',
  '01',
  '+1',
  "'single'",
  '"\\ud800"',
  '"\\udc00x"',
  '"a\\u0000b"',
  '"\\u0000"',
  '"\\uFEFF"',
  '"1.00\\n"',
  'true',
  'null',
  '[]',
  '{}',
  '"\\u202Eevil"',
);

// ---------------------------------------------------------------------------------------------
// Paths into a value

const nodesOf = (value: Json, path: Path = [], out: Path[] = []): Path[] => {
  out.push(path);
  if (out.length > 400) return out;
  if (Array.isArray(value)) {
    for (const [i, item] of value.slice(0, 20).entries()) nodesOf(item, [...path, i], out);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) nodesOf(item, [...path, key], out);
  }
  return out;
};

const objectsOf = (value: Json): Path[] =>
  nodesOf(value).filter((path) => {
    const node = at(value, path);
    return node !== null && typeof node === 'object' && !Array.isArray(node);
  });

const at = (value: Json, path: Path): Json | undefined => {
  let node: Json | undefined = value;
  for (const step of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, Json>)[step];
  }
  return node;
};

/** `value` with the node at `path` replaced (or, with `undefined`, removed). */
const setAt = (value: Json, path: Path, replacement: Json | undefined): Json | undefined => {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (Array.isArray(value)) {
    const copy = [...value];
    const next = setAt(copy[head as number] ?? null, rest, replacement);
    if (next === undefined) copy.splice(head as number, 1);
    else copy[head as number] = next;
    return copy;
  }
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, Json> = { ...value };
  const next = setAt(copy[head as string] ?? null, rest, replacement);
  if (next === undefined) delete copy[head as string];
  else
    Object.defineProperty(copy, head as string, {
      value: next,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return copy;
};

/**
 * JSON text of `value`, with the node at `path` written as `raw` (any text), and, when `duplicate`
 * is given, the member at `path` written twice: `raw` first or last.
 */
const serialize = (
  value: Json,
  edit: { readonly path: Path; readonly raw: string; readonly duplicate?: 'first' | 'last' },
  here: Path = [],
): string => {
  const same = here.length === edit.path.length && here.every((step, i) => step === edit.path[i]);
  if (same && edit.duplicate === undefined) return edit.raw;
  if (Array.isArray(value))
    return `[${value.map((item, i) => serialize(item, edit, [...here, i])).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members: string[] = [];
    for (const [key, item] of Object.entries(value)) {
      const path = [...here, key];
      const text = `${JSON.stringify(key)}:${serialize(item, edit, path)}`;
      const target =
        edit.duplicate !== undefined &&
        path.length === edit.path.length &&
        path.every((s, i) => s === edit.path[i]);
      const dup = `${JSON.stringify(key)}:${edit.raw}`;
      if (target && edit.duplicate === 'first') members.push(dup, text);
      else if (target && edit.duplicate === 'last') members.push(text, dup);
      else members.push(text);
    }
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
};

// ---------------------------------------------------------------------------------------------
// Bodies

interface Body {
  readonly text: string | Uint8Array | undefined;
  readonly kind: string;
}

const pick = <A>(items: readonly A[], n: number): A => items[n % items.length] as A;

/** Whole bodies that are not the route's JSON at all. */
const foreignBody: fc.Arbitrary<Body> = fc.oneof(
  {
    weight: 16,
    arbitrary: fc.constantFrom<Body>(
      { text: undefined, kind: 'no body' },
      { text: '', kind: 'empty body' },
      { text: '   \n\t', kind: 'blank body' },
      { text: 'null', kind: 'null' },
      { text: '[]', kind: 'array' },
      { text: '{}', kind: 'empty object' },
      { text: '"text"', kind: 'string' },
      { text: '0', kind: 'number' },
      { text: 'true', kind: 'boolean' },
      { text: '[{}]', kind: 'array of object' },
      { text: 'NaN', kind: 'NaN' },
      { text: 'a=1&amount=2', kind: 'form' },
      { text: '<xml><amount>1</amount></xml>', kind: 'xml' },
      { text: '{"a":1,}', kind: 'trailing comma' },
      { text: '{"a":1 /* c */}', kind: 'comment' },
      { text: "{'a':1}", kind: 'single quotes' },
      { text: '{"__proto__":{"admin":true}}', kind: '__proto__' },
      { text: '{"constructor":{"prototype":{"x":1}}}', kind: 'constructor' },
    ),
  },
  {
    // Deep raw nesting costs tens of milliseconds to parse and walk: rare.
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 1_000, max: 100_000 }), fc.constantFrom('[', '{"a":'))
      .map(
        ([depth, open]): Body => ({
          text: open.repeat(depth) + (open === '[' ? ']'.repeat(depth) : `1${'}'.repeat(depth)}`),
          kind: `deep raw ${open === '[' ? 'arrays' : 'objects'}`,
        }),
      ),
  },
  {
    weight: 3,
    arbitrary: fc
      .uint8Array({ minLength: 1, maxLength: 64 })
      .map((bytes): Body => ({ text: bytes, kind: 'random bytes' })),
  },
  {
    weight: 3,
    arbitrary: fc
      .jsonValue({ maxDepth: 4 })
      .map((value): Body => ({ text: JSON.stringify(value), kind: 'random JSON' })),
  },
);

/** Mutations of one valid body. */
const mutationOf = (valid: Json): fc.Arbitrary<Body> => {
  const nodes = nodesOf(valid);
  const objects = objectsOf(valid);
  const text = JSON.stringify(valid);
  return fc.oneof(
    { arbitrary: fc.constant<Body>({ text, kind: 'valid' }), weight: 6 },
    {
      arbitrary: fc.tuple(fc.nat(), hostileValue).map(([n, value]): Body => {
        const path = pick(nodes, n);
        return { text: JSON.stringify(setAt(valid, path, value) ?? null), kind: 'hostile value' };
      }),
      weight: 10,
    },
    {
      arbitrary: fc.nat().map((n): Body => {
        const path = pick(nodes, n);
        return {
          text: JSON.stringify(setAt(valid, path, undefined) ?? null),
          kind: 'member dropped',
        };
      }),
      weight: 3,
    },
    {
      arbitrary: fc.tuple(fc.nat(), memberName, hostileValue).map(([n, name, value]): Body => {
        if (objects.length === 0) return { text, kind: 'valid' };
        const path = pick(objects, n);
        return {
          text: JSON.stringify(setAt(valid, [...path, name], value) ?? null),
          kind: 'member added',
        };
      }),
      weight: 3,
    },
    {
      arbitrary: fc.tuple(fc.nat(), rawTokens).map(
        ([n, raw]): Body => ({
          text: serialize(valid, { path: pick(nodes, n), raw }),
          kind: 'raw token',
        }),
      ),
      weight: 6,
    },
    {
      arbitrary: fc
        .tuple(
          fc.nat(),
          fc.oneof(
            rawTokens,
            hostileValue.map((v) => JSON.stringify(v)),
          ),
          fc.constantFrom('first', 'last'),
        )
        .map(([n, raw, duplicate]): Body => {
          const members = nodes.filter((path) => typeof path[path.length - 1] === 'string');
          if (members.length === 0) return { text, kind: 'valid' };
          return {
            text: serialize(valid, {
              path: pick(members, n),
              raw,
              duplicate: duplicate as 'first' | 'last',
            }),
            kind: `duplicate key (${duplicate})`,
          };
        }),
      weight: 4,
    },
    {
      arbitrary: fc
        .tuple(fc.nat(), fc.constantFrom('truncate', 'insert', 'delete'))
        .map(([n, how]): Body => {
          const i = text.length === 0 ? 0 : n % text.length;
          const broken =
            how === 'truncate'
              ? text.slice(0, i)
              : how === 'insert'
                ? `${text.slice(0, i)}${pick(['"', '{', ']', ',', ':', '\\', '\u0000', '\uD800'], n)}${text.slice(i)}`
                : `${text.slice(0, i)}${text.slice(i + 1)}`;
          return { text: broken, kind: `broken JSON (${how})` };
        }),
      weight: 3,
    },
    {
      arbitrary: fc
        .constantFrom('utf-16le', 'latin1-bytes', 'bom', 'invalid utf-8')
        .map((how): Body => {
          if (how === 'bom') return { text: `\uFEFF${text}`, kind: 'BOM' };
          if (how === 'utf-16le')
            return { text: new Uint8Array(Buffer.from(text, 'utf16le')), kind: 'UTF-16 bytes' };
          if (how === 'latin1-bytes')
            return {
              text: new Uint8Array(Buffer.from(text.replace(/"$/, 'é"'), 'latin1')),
              kind: 'latin-1 bytes',
            };
          const bytes = Buffer.from(text, 'utf8');
          return {
            text: new Uint8Array([
              ...bytes.subarray(0, Math.max(1, bytes.length - 2)),
              0xff,
              0xc0,
              0x80,
              ...bytes.subarray(Math.max(1, bytes.length - 2)),
            ]),
            kind: 'invalid UTF-8',
          };
        }),
      weight: 1,
    },
    { arbitrary: foreignBody, weight: 3 },
    {
      // Over the 1 MiB limit: rare, each is a megabyte to build and send.
      arbitrary: fc.constant<Body>({
        text: `{"pad":"${'x'.repeat(1024 * 1024)}"}`,
        kind: 'oversized',
      }),
      weight: 1,
    },
  );
};

// ---------------------------------------------------------------------------------------------
// Paths and headers

/** An id the route does not know, or one no client should send. */
const fuzzedId = fc.oneof(
  fc.constantFrom(
    '%00',
    'abc%00',
    '%ED%A0%80',
    '%ED%B0%80x',
    '%FF',
    '%C0%AF',
    '%',
    '%zz',
    '%F0%9F%92%B8',
    '%2F',
    '%5C',
    'null',
    'undefined',
    '0',
    '-1',
    '1.0',
    '01',
    '1e3',
    '9'.repeat(30),
    "x'--",
    '__proto__',
    'constructor',
    'x'.repeat(5000),
    '%E2%80%AE',
    'e%CC%81%CC%81',
  ),
  fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: 20 })
    .filter((s) => s !== '.' && s !== '..')
    .map(encodeURIComponent),
  fc.stringMatching(/^[a-z]{2,8}_[0-9]{1,4}$/),
);

const contentTypes = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 20 },
  {
    arbitrary: fc.constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=fuzz',
      'application/json; charset=utf-16',
      'application/json; charset=latin1',
      'APPLICATION/JSON',
      'application/xml',
      '*/*',
      '',
    ),
    weight: 3,
  },
  { arbitrary: fc.constant(undefined), weight: 1 },
);

/** Credentials that must not authenticate: garbage, another scheme, a token changed. */
const garbageCredential = (
  valid: Readonly<Record<string, string>>,
): fc.Arbitrary<Record<string, string>> => {
  const token = (valid.Authorization ?? '').replace(/^Bearer /, '');
  return fc.oneof(
    fc.constantFrom<Record<string, string>>(
      {},
      { Authorization: '' },
      { Authorization: 'Bearer' },
      { Authorization: 'Bearer ' },
      { Authorization: 'Basic dXNlcjpwYXNz' },
      { Authorization: `Bearer ${token}x` },
      { Authorization: `Bearer ${token.slice(0, -1)}` },
      { Authorization: `Bearer ${token.toUpperCase()}` },
      { Authorization: `Bearer ${'a'.repeat(8000)}` },
      { Authorization: `Bearer ${token} ${token}` },
      { 'X-API-Key': 'pk_live_garbage' },
      { 'X-API-Key': `${token}\t` },
    ),
    fc
      .string({
        // Any byte a header value may carry (no control character, no DEL).
        unit: fc
          .integer({ min: 0x20, max: 0xfe })
          .map((n) => String.fromCharCode(n === 0x7f ? 0xff : n)),
        maxLength: 80,
      })
      .map((garbage) => ({ Authorization: `Bearer ${garbage}` })),
  );
};

const toBytes = (body: string | Uint8Array | undefined): string | Uint8Array | undefined => body;

/**
 * Requests to `target`: its existing ids or invented ones, a valid or mutated body, mostly with
 * the entitled credential and JSON content type, a share with garbage credentials or other types.
 */
export const fuzzRequests = (target: FuzzTarget): fc.Arbitrary<FuzzRequest> => {
  const names = Array.from(target.template.matchAll(/\{([a-z_]+)\}/g), (m) => m[1] ?? '');
  const segment = (name: string) => {
    const known = target.ids[name] ?? [];
    return known.length === 0
      ? fuzzedId
      : fc.oneof(
          { arbitrary: fc.constantFrom(...known), weight: 9 },
          { arbitrary: fuzzedId, weight: 1 },
        );
  };
  const path = fc.tuple(...names.map(segment)).map((values) => {
    let i = 0;
    return target.template.replace(/\{[a-z_]+\}/g, () => values[i++] ?? '');
  });
  const body: fc.Arbitrary<Body> =
    target.body === undefined
      ? fc.oneof(
          { arbitrary: fc.constant<Body>({ text: undefined, kind: 'no body' }), weight: 6 },
          { arbitrary: foreignBody, weight: 3 },
          {
            arbitrary: fc
              .jsonValue()
              .map((v): Body => ({ text: JSON.stringify(v), kind: 'unread JSON' })),
            weight: 2,
          },
        )
      : target.body.chain(mutationOf);
  const credential = fc.oneof(
    { arbitrary: fc.constant<Record<string, string>>({ ...target.credential }), weight: 19 },
    { arbitrary: garbageCredential(target.credential), weight: 1 },
  );
  const query = fc.oneof(
    { arbitrary: fc.constant(''), weight: 19 },
    { arbitrary: fc.constantFrom('?x=%00', '?amount=1', '?%ED%A0%80=1', '?a=%FF'), weight: 1 },
  );
  return fc
    .record({ path, body, credential, contentType: contentTypes, query, badSignature: fc.nat(19) })
    .map(({ path, body, credential, contentType, query, badSignature }): FuzzRequest => {
      const text = toBytes(body.text);
      const signed =
        target.sign === undefined
          ? {}
          : badSignature === 0
            ? target.sign('not the body')
            : target.sign(
                typeof text === 'string'
                  ? text
                  : text === undefined
                    ? ''
                    : Buffer.from(text).toString('utf8'),
              );
      return {
        method: target.method,
        path: `${path}${query}`,
        headers: {
          ...credential,
          ...signed,
          ...(contentType === undefined ? {} : { 'Content-Type': contentType }),
        },
        body: text,
        kind: body.kind,
      };
    });
};

/** A compact account of a request, for a failure message (bodies cut to 300 characters). */
export const describeRequest = (request: FuzzRequest): string => {
  const body =
    request.body === undefined
      ? '(none)'
      : typeof request.body === 'string'
        ? JSON.stringify(
            request.body.length > 300
              ? `${request.body.slice(0, 300)}... (${request.body.length} chars)`
              : request.body,
          )
        : `bytes ${Buffer.from(request.body.subarray(0, 100)).toString('hex')}${request.body.length > 100 ? '...' : ''}`;
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([k, v]) => [
      k,
      v.length > 80 ? `${v.slice(0, 80)}...` : v,
    ]),
  );
  return `${request.method} ${request.path.slice(0, 300)} [${request.kind}] headers ${JSON.stringify(headers)} body ${body}`;
};
