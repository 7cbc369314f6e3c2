import { describe, expect, expectTypeOf, it } from 'vitest';
import { specDocument } from '../../test/spec-documents.test-support.js';
import {
  type ErrorGroup,
  type ErrorKey,
  type ErrorKind,
  errorCatalogue,
  errorEnvelope,
  errorPolicies,
  foldErrorKind,
  forbiddenFor,
  isPayrailError,
  type PayrailError,
  payrailError,
} from './error-catalogue.js';

const interfaceDoc = specDocument('merchant-payment-interface.md');
const decisionsDoc = specDocument('decisions.md');

type Entry = (typeof errorCatalogue)[ErrorKey];
const entries = Object.entries(errorCatalogue) as [ErrorKey, Entry][];

/** The text between a heading and the next heading of the same or a higher level. */
const sectionOf = (doc: string, heading: string): string => {
  const level = /^#+/.exec(heading)?.[0] ?? '#';
  const lines = doc.split('\n');
  const start = lines.findIndex((line) => line.trim() === heading);
  if (start < 0) throw new Error(`no section "${heading}"`);
  const end = lines.findIndex(
    (line, i) => i > start && new RegExp(`^#{1,${level.length}} `).test(line),
  );
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
};

const subsections = (section: string): Map<string, string> =>
  new Map(
    section
      .split(/^### /m)
      .slice(1)
      .map((part) => {
        const [title = '', ...body] = part.split('\n');
        return [title.trim(), body.join('\n')] as const;
      }),
  );

const tableRows = (body: string): string[][] =>
  body
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2)
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );

/** The interface's subsections of "## Errors" that list messages, and the catalogue group of each. */
const listSections = {
  'Authentication and permission': 'authentication',
  'Fiat payout': 'payout',
  'Beneficiary fields': 'beneficiary',
  'Beneficiary account fields': 'beneficiary_account',
  'Crypto mass payout': 'crypto_batch',
  'Platform-side webhook receiving': 'upstream',
} as const;
const tableSections = { 'General request': 'general', Acquiring: 'acquiring' } as const;

const phoneEntries = entries.filter(([, e]) =>
  e.message.startsWith('fields.phone invalid: expect '),
);
const phonePattern = phoneEntries[0]?.[1].message.slice('fields.phone invalid: expect '.length);

/**
 * Turns one item of a semicolon list into the message it names: `(same text)` repeats the
 * previous item's text for another field, a trailing parenthesised remark is prose, and
 * `<phone pattern>` stands for the concrete pattern the catalogue spells out.
 */
const normalise = (item: string, previous: string | undefined): string => {
  const same = /^fields\.(\w+) invalid \(same text\)$/.exec(item);
  if (same) {
    const previousField = /^fields\.(\w+) /.exec(previous ?? '')?.[1];
    if (previous === undefined || previousField === undefined) {
      throw new Error(`"${item}" has no previous fields.* item to repeat`);
    }
    return previous.replace(`fields.${previousField} `, `fields.${same[1]} `);
  }
  return item
    .replace(/\s*\([^()]*\)$/, '')
    .replace('<phone pattern>', phonePattern ?? '<phone pattern>');
};

interface InterfaceMessage {
  readonly section: string;
  readonly group: string;
  readonly message: string;
}

let parsedMessages: readonly InterfaceMessage[] | undefined;
const interfaceMessages = (): readonly InterfaceMessage[] => {
  if (parsedMessages !== undefined) return parsedMessages;
  const sections = subsections(sectionOf(interfaceDoc(), '## Errors'));
  const found: InterfaceMessage[] = [];
  for (const [section, group] of Object.entries(listSections)) {
    const body = sections.get(section);
    if (body === undefined) throw new Error(`the interface has no "### ${section}"`);
    const paragraph = body
      .split('\n\n')
      .map((p) => p.trim())
      .find((p) => p.includes(';'));
    if (paragraph === undefined) throw new Error(`"### ${section}" has no semicolon list`);
    const list = paragraph
      .replace(/\n/g, ' ')
      .replace(/^These arise when [^:]*:\s*/, '')
      .replace(/\.$/, '');
    let previous: string | undefined;
    for (const item of list.split(';').map((s) => s.trim())) {
      const message = normalise(item, previous);
      found.push({ section, group, message });
      previous = message;
    }
  }
  for (const [section, group] of Object.entries(tableSections)) {
    const body = sections.get(section);
    if (body === undefined) throw new Error(`the interface has no "### ${section}"`);
    for (const [message = ''] of tableRows(body)) found.push({ section, group, message });
  }
  parsedMessages = found;
  return found;
};

const withMessage = (message: string) => entries.filter(([, e]) => e.message === message);

const templateRegex = (template: string): RegExp =>
  new RegExp(
    `^${template
      .split(/<[a-z_]+>/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
      .join('(.+)')}$`,
  );

/** The catalogue entry a concrete message comes from: its exact text, else one template. */
const entryFor = (message: string): [ErrorKey, Entry] => {
  const exact = withMessage(message);
  if (exact.length === 1 && exact[0]) return exact[0];
  const templates = entries.filter(
    ([, e]) => /<[a-z_]+>/.test(e.message) && templateRegex(e.message).test(message),
  );
  if (exact.length === 0 && templates.length === 1 && templates[0]) return templates[0];
  throw new Error(`"${message}": ${exact.length} exact and ${templates.length} template entries`);
};

describe("the interface's error messages", () => {
  it('the Errors section has the parsed subsections and nothing unexpected', () => {
    const titles = [...subsections(sectionOf(interfaceDoc(), '## Errors')).keys()];
    expect(titles.sort()).toEqual(
      [...Object.keys(listSections), ...Object.keys(tableSections), 'Retry rules'].sort(),
    );
  });

  it('are parsed from every subsection, with the prose removed', () => {
    for (const section of [...Object.keys(listSections), ...Object.keys(tableSections)]) {
      expect(
        interfaceMessages().filter((m) => m.section === section).length,
        section,
      ).toBeGreaterThan(0);
    }
    const messages = interfaceMessages().map((m) => m.message);
    expect(messages).toContain('unauthorized');
    expect(messages).toContain('reference already exists');
    expect(messages).toContain('beneficiary_account_id required');
    expect(messages).toContain('beneficiary account already exists');
    expect(messages).toContain('payout route not configured');
    expect(messages).toContain('webhook ip not allowed');
    expect(messages).toContain('merchant deposit address not found');
    expect(messages).toContain("fields.last_name invalid: length 3-100, letters/'/-/space only");
    expect(messages).toContain('unsupported network/currency: <network>/<currency>');
    expect(messages).toContain('checkout_url not found');
    for (const message of messages) {
      expect(message, message).not.toMatch(/\s\(|^These |\.$|<phone pattern>/);
      expect(message, message).toBe(message.trim());
    }
  });

  it('each is the message template of exactly one catalogue entry, in its group', () => {
    const problems = interfaceMessages().flatMap(({ section, group, message }) => {
      const matches = withMessage(message);
      if (matches.length !== 1) return [`"${message}" (${section}): ${matches.length} entries`];
      const [key, e] = matches[0] ?? [];
      return e?.group === group
        ? []
        : [`"${message}" (${section}): ${key} is in group ${e?.group}`];
    });
    expect(problems).toEqual([]);
  });

  it("<phone pattern> is the catalogue's one phone message, a pattern of the interface's rule", () => {
    expect(phoneEntries.map(([key]) => key)).toEqual(['phone_invalid']);
    const pattern = new RegExp(phonePattern ?? '(?!)');
    for (const valid of [
      '1234',
      '123456789012',
      '+1-1234',
      '1-1234',
      '+86-13800138000',
      '+123-123456789012',
    ]) {
      expect(pattern.test(valid), valid).toBe(true);
    }
    for (const invalid of [
      '123',
      '1234567890123',
      '+1234-1234',
      '+-1234',
      '+1-123',
      '+11234',
      '1-',
      '12 34',
      '+1-1234a',
    ]) {
      expect(pattern.test(invalid), invalid).toBe(false);
    }
  });
});

describe('the catalogue', () => {
  it('holds every message once', () => {
    const messages = entries.map(([, e]) => e.message);
    const repeated = messages.filter((m, i) => messages.indexOf(m) !== i);
    expect(repeated).toEqual([]);
  });

  it("every entry with source 'interface' is found in the interface", () => {
    const listed = new Set(interfaceMessages().map((m) => m.message));
    const missing = entries
      .filter(([, e]) => e.source === 'interface' && !listed.has(e.message))
      .map(([key, e]) => `${key}: ${e.message}`);
    expect(missing).toEqual([]);
  });

  it("entries of other sources are not in the interface's lists", () => {
    const listed = new Set(interfaceMessages().map((m) => m.message));
    const mislabelled = entries
      .filter(([, e]) => e.source !== 'interface' && listed.has(e.message))
      .map(([key]) => key);
    expect(mislabelled).toEqual([]);
  });

  it("decisions.md's added messages are present with source 'decisions'", () => {
    const added = [
      'client_request_id already used',
      'invalid pay currency: <id>',
      'order already final',
      'out_trade_no already exists',
      'rate limit exceeded',
    ];
    for (const message of added) {
      expect(
        withMessage(message).map(([, e]) => e.source),
        message,
      ).toEqual(['decisions']);
      expect(decisionsDoc(), message).toContain(`\`${message}\``);
    }
  });

  it("every entry with source 'decisions' is quoted in decisions.md", () => {
    const unquoted = entries
      .filter(([, e]) => e.source === 'decisions' && !decisionsDoc().includes(`\`${e.message}\``))
      .map(([key, e]) => `${key}: ${e.message}`);
    expect(unquoted).toEqual([]);
  });

  it('every placeholder is a fillable <snake_case> name', () => {
    for (const [key, e] of entries) {
      const brackets = e.message.match(/<[^>]*>/g) ?? [];
      for (const b of brackets) expect(b, key).toMatch(/^<[a-z_]+>$/);
    }
  });
});

describe('status and code (docs/spec/decisions.md §1)', () => {
  it.each([
    ['request required', 400, 51],
    ['Validation Failed', 400, 51],
    ['<field> required', 400, 51],
    ['reference already exists', 400, 53],
    ['unauthorized', 401, 61],
    ['ip not allowed: <ip>', 403, 61],
    ['forbidden', 403, 61],
    ['account frozen', 403, 61],
    ['payout not found', 404, 65],
    ['order not found', 404, 65],
    ['batch not found', 404, 65],
    ['beneficiary account not found', 400, 53],
    ['notify_webhook_id invalid or inactive', 400, 53],
    ['rate limit exceeded', 429, 54],
    ['internal error', 500, 50],
    ['service unavailable', 503, 50],
    ['invalid EVM receiving address', 400, 51],
    ['expire_seconds must be between 60 and 10800', 400, 51],
    ['completed order cannot be closed', 400, 53],
    ['unsupported network/currency: <network>/<currency>', 400, 53],
    ['beneficiary account mismatch', 400, 53],
    ['client_request_id already used', 400, 53],
    ['invalid pay currency: <id>', 400, 51],
  ] as const)('%s is %i/%i', (message, httpStatus, code) => {
    const [key] = entryFor(message);
    expect(withMessage(message)).toHaveLength(1);
    expect(payrailError(key, {} as never)).toMatchObject({ httpStatus, code });
  });

  it("holds for every example of docs/spec/decisions.md §1's table", () => {
    const section = sectionOf(decisionsDoc(), '## 1. Envelope, errors, HTTP status');
    const rows = tableRows(section);
    expect(rows.length).toBeGreaterThan(5);
    const problems: string[] = [];
    let examples = 0;
    for (const [, http = '', code = '', cell = ''] of rows) {
      // Parenthesised remarks are prose: "(adds `Retry-After`)" names a header, not a message.
      const messages = cell.replace(/\([^()]*\)/g, '');
      for (const [, example = ''] of messages.matchAll(/`([^`]+)`/g)) {
        examples++;
        const [key, e] = entryFor(example);
        const policy = errorPolicies[e.kind];
        if (String(policy.httpStatus) !== http || String(policy.code) !== code) {
          problems.push(
            `${example} (${key}): ${policy.httpStatus}/${policy.code}, table says ${http}/${code}`,
          );
        }
      }
    }
    expect(examples).toBeGreaterThan(20);
    expect(problems).toEqual([]);
  });

  it('every kind maps to a status and code of the interface (and 429/54 of decisions)', () => {
    const allowed: Record<number, readonly number[]> = {
      51: [400],
      53: [400],
      61: [401, 403],
      65: [404],
      54: [429],
      // 503 `service unavailable` shares the interface's server-error code (ADR 0051).
      50: [500, 503],
    };
    for (const [kind, policy] of Object.entries(errorPolicies)) {
      expect(allowed[policy.code], kind).toContain(policy.httpStatus);
    }
  });

  it('only server errors and the rate limit are retryable (interface, Retry rules)', () => {
    for (const [key] of entries) {
      const error = payrailError(key, {} as never);
      expect(error.retryable, key).toBe(error.httpStatus >= 500 || error.httpStatus === 429);
    }
  });
});

describe('payrailError', () => {
  it('fills placeholders', () => {
    expect(payrailError('ip_not_allowed_seen', { ip: '203.0.113.7' }).message).toBe(
      'ip not allowed: 203.0.113.7',
    );
    expect(
      payrailError('network_currency_unsupported', { network: 'TRON', currency: 'USDC' }).message,
    ).toBe('unsupported network/currency: TRON/USDC');
    expect(payrailError('invalid_decimal', { field: 'amount', scale: 2 }).message).toBe(
      'amount must be a decimal string with at most 2 decimal places',
    );
    expect(payrailError('beneficiary_profile_incomplete', { fields: 'country, zip' }).message).toBe(
      'beneficiary profile incomplete: missing country, zip',
    );
    expect(
      payrailError('account_field_invalid_hint', { name: 'walleta_email', hint: 'email' }).message,
    ).toBe('field walleta_email invalid: email');
  });

  it('fills every placeholder of every template, and nothing else', () => {
    for (const [key, e] of entries) {
      const names = [...e.message.matchAll(/<([a-z_]+)>/g)].map((m) => m[1] ?? '');
      const params = Object.fromEntries(names.map((n) => [n, `[${n}]`]));
      const message = payrailError(key, params as never).message;
      expect(message, key).toBe(e.message.replace(/<([a-z_]+)>/g, '[$1]'));
      expect(message, key).not.toMatch(/<[a-z_]+>/);
    }
  });

  it('is data: key, kind, policy, and recognisable', () => {
    const error = payrailError('payout_not_found');
    expect(error).toEqual({
      _tag: 'PayrailError',
      key: 'payout_not_found',
      params: {},
      message: 'payout not found',
      kind: 'not_found',
      httpStatus: 404,
      code: 65,
      retryable: false,
    });
    expect(isPayrailError(error)).toBe(true);
    expect(isPayrailError(new Error('payout not found'))).toBe(false);
    const templated = payrailError('invalid_webhook_event', { event: 'payout.nope' });
    expect(templated.params).toEqual({ event: 'payout.nope' });
    expect(templated.message).toBe('invalid webhook event: payout.nope');
    expect(isPayrailError(null)).toBe(false);
  });

  it('needs its placeholders at compile time', () => {
    const compileOnly = () => {
      // @ts-expect-error a template needs its params
      payrailError('ip_not_allowed_seen');
      // @ts-expect-error a misspelt placeholder does not compile
      payrailError('ip_not_allowed_seen', { address: '1.2.3.4' });
      payrailError('forbidden');
    };
    expect(typeof compileOnly).toBe('function');
  });

  it("is a union per key: the key narrows params to its message's placeholders", () => {
    const paramsOf = (error: PayrailError): string => {
      switch (error.key) {
        case 'zip_invalid_for_country':
          expectTypeOf(error.params).toEqualTypeOf<{ readonly country: string | number }>();
          return String(error.params.country);
        case 'payout_not_found':
          expectTypeOf<keyof typeof error.params>().toEqualTypeOf<never>();
          return '';
        default:
          return error.message;
      }
    };
    expect(paramsOf(payrailError('zip_invalid_for_country', { country: 'US' }))).toBe('US');
    expect(paramsOf(payrailError('payout_not_found'))).toBe('');
    expectTypeOf(errorCatalogue.payout_not_found.group).toEqualTypeOf<'payout'>();
    expectTypeOf<(typeof errorCatalogue)[ErrorKey]['group']>().toEqualTypeOf<ErrorGroup>();
  });
});

describe('errorEnvelope and foldErrorKind', () => {
  it('answers {code, message, data: null}', () => {
    expect(errorEnvelope(payrailError('forbidden'))).toEqual({
      code: 61,
      message: 'forbidden',
      data: null,
    });
  });

  it('keeps why a `forbidden` was answered beside it, message and envelope unchanged (ADR 0050)', () => {
    const lacking = forbiddenFor({ missingPermissions: ['payment.payout.submit'] });
    expect(lacking).toMatchObject({
      key: 'forbidden',
      message: 'forbidden',
      httpStatus: 403,
      code: 61,
      refusal: { missingPermissions: ['payment.payout.submit'] },
    });
    expect(errorEnvelope(lacking)).toEqual({ code: 61, message: 'forbidden', data: null });
    expect(forbiddenFor({ productNotEnabled: 'acquiring' }).refusal).toEqual({
      productNotEnabled: 'acquiring',
    });
    expect(payrailError('forbidden')).not.toHaveProperty('refusal');
    // Only `forbidden` may carry a refusal.
    expectTypeOf<PayrailError<'payout_not_found'>['refusal']>().toEqualTypeOf<undefined>();
  });

  it('folds over the kind', () => {
    const kinds = Object.keys(errorPolicies) as ErrorKind[];
    const cases = Object.fromEntries(kinds.map((k) => [k, () => k])) as {
      [K in ErrorKind]: () => K;
    };
    expect(foldErrorKind(payrailError('rate_limit_exceeded'), cases)).toBe('rate_limit');
    expect(foldErrorKind(payrailError('request_required'), cases)).toBe('request');
  });
});
