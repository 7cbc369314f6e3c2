/**
 * fast-check arbitraries of VALID payout-side inputs (beneficiaries, accounts of the sandbox
 * networks, quick payout bodies), for any test that needs requests the codecs accept.
 */
import fc from 'fast-check';
import { toEvmChecksumAddress, toTronAddress } from '../codecs/addresses.js';
import { beneficiaryFieldKeys, countryCodes } from '../codecs/beneficiary.codecs.js';
import { networkLookupOf, sandboxNetworkSchemas } from '../codecs/beneficiary-account.codecs.js';
import { isText } from '../codecs/codec-toolkit.js';
import { zipFormats } from '../codecs/zip-formats.js';

/** Looks up the sandbox's default network schemas (WALLETA, WALLETB, EVM, TRON). */
export const sandboxLookup = networkLookupOf(sandboxNetworkSchemas);

const hex = (bytes: Uint8Array): string =>
  [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');

const accountId = fc.uint8Array({ minLength: 20, maxLength: 20 });

// Private so the testing entry has one `evmAddress` and `tronAddress` (crypto-batch.arbitraries).
/** EIP-55 checksummed EVM addresses (mixed case as wallets print them). */
const checksummedEvmAddress = accountId.map((bytes) => toEvmChecksumAddress(`0x${hex(bytes)}`));
/** Base58check TRON addresses (version byte 0x41). */
const tronAddress = accountId.map((bytes) => toTronAddress(Uint8Array.from([0x41, ...bytes])));

/**
 * Any non-blank text of `min`-`max` code points, from the whole of Unicode but NUL (never text,
 * ADR 0034).
 * @public listed in docs/testing.md for hosts' own properties.
 */
export const textOfLength = (min: number, max: number): fc.Arbitrary<string> =>
  fc
    .string({ unit: 'binary', minLength: min, maxLength: max })
    .filter((s) => s.trim() !== '' && isText(s));

const atom = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]{1,10}$/);
const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?$/);

/**
 * Practical e-mail addresses (the `isEmailAddress` rule).
 * @public listed in docs/testing.md for hosts' own properties.
 */
export const emailAddress = fc
  .record({
    local: fc.array(atom, { minLength: 1, maxLength: 3 }),
    labels: fc.array(label, { minLength: 1, maxLength: 3 }),
    tld: fc.stringMatching(/^[a-zA-Z]{2,6}$/),
  })
  .map(({ local, labels, tld }) => `${local.join('.')}@${[...labels, tld].join('.')}`);

const nameLetters = ['a', 'Z', 'é', 'ß', 'Ж', 'ø', '李', 'ñ', 'ع', 'Ω', 'İ', '\u0301'];
const nameSeparators = [' ', '-', "'"];

/**
 * First or last names: 3-100 letters (any script), apostrophes, hyphens and spaces.
 * @public listed in docs/testing.md for hosts' own properties.
 */
export const personName = fc
  .tuple(
    fc.constantFrom('a', 'Ж', '李', 'é'),
    fc.array(fc.constantFrom(...nameLetters, ...nameSeparators), { minLength: 2, maxLength: 99 }),
  )
  .map(([first, rest]) => [first, ...rest].join(''));

/** Countries with a zip format in the table, and a few without. */
const countriesWithZipFormat = Object.keys(zipFormats);
const countriesWithoutZipFormat = ['AR', 'KE', 'XK', 'ZA', 'AE', 'TH'] as const;

const zipOf = (country: string): fc.Arbitrary<string> => {
  const format = zipFormats[country];
  return format === undefined ? textOfLength(3, 30) : fc.stringMatching(new RegExp(format.source));
};

const isoDate = fc
  .date({
    min: new Date('1900-01-01T00:00:00Z'),
    max: new Date('2099-12-31T00:00:00Z'),
    noInvalidDate: true,
  })
  .map((d) => d.toISOString().slice(0, 10));

const payeeId = fc.stringMatching(/^[a-zA-Z0-9]{3,60}$/);

/** The profile fields but payee_id (always sent) and the place (country and zip). */
const profileFields = {
  language: fc.stringMatching(/^[a-zA-Z]{2}$/),
  phone: fc.stringMatching(/^(\+?\d{1,3}-)?\d{4,12}$/),
  birthdate: isoDate,
  email: emailAddress,
  first_name: personName,
  last_name: personName,
  city: textOfLength(2, 120),
  state: textOfLength(2, 60),
  address: textOfLength(3, 200),
};
type ProfileKey = keyof typeof profileFields;
const isProfileKey = (key: string): key is ProfileKey => Object.hasOwn(profileFields, key);

/** The profile fields: `required` always, any subset of the others. */
const profileWith = (required: readonly string[]) =>
  fc.record(profileFields, { requiredKeys: required.filter(isProfileKey) });

/**
 * country and zip: neither, a zip alone (any 3-30), or a country with a zip of its format; with
 * `country` (or `zip`) among `required`, only the choices that carry it.
 */
const placeWith = (required: readonly string[]) => {
  const zipRequired = required.includes('zip');
  const zipAlone = fc.record(
    { zip: textOfLength(3, 30) },
    { requiredKeys: zipRequired ? ['zip'] : [] },
  );
  return fc.oneof(
    ...(required.includes('country') ? [] : [zipAlone]),
    ...[...countriesWithZipFormat, ...countriesWithoutZipFormat].map((country) =>
      fc.record(
        { country: fc.constant(country), zip: zipOf(country) },
        { requiredKeys: zipRequired ? ['country', 'zip'] : ['country'] },
      ),
    ),
  );
};

/** Valid beneficiary `fields` (a profile): what a generated beneficiary carries. */
export type GeneratedBeneficiaryFields = Readonly<Record<string, string>> & {
  readonly payee_id: string;
};

/**
 * Valid beneficiary `fields` that carry every key of `required` (the profile keys a route's
 * `required_beneficiary_fields` names), payee_id always, any subset of the others.
 * @public listed in docs/testing.md for hosts' own properties.
 */
export const beneficiaryFieldsWith = (
  required: readonly string[],
): fc.Arbitrary<GeneratedBeneficiaryFields> =>
  fc
    .tuple(payeeId, profileWith(required), placeWith(required))
    .map(([payee_id, fields, where]) => ({ payee_id, ...fields, ...where }));

/** Valid beneficiary `fields`: payee_id always, any subset of the other profile fields. */
export const validBeneficiaryFields = beneficiaryFieldsWith([]);

/** A valid `{name, fields}` beneficiary. */
export const validBeneficiary = fc.record({
  name: textOfLength(1, 200),
  fields: validBeneficiaryFields,
});

const optionalLabels = {
  display_name: textOfLength(1, 100),
  account_type: textOfLength(1, 64),
};

/** Valid beneficiary accounts of the sandbox networks. */
export const validBeneficiaryAccount = fc.oneof(
  fc.record(
    {
      network_code: fc.constant('WALLETA'),
      fields: fc.record({ walleta_email: emailAddress }),
      ...optionalLabels,
    },
    { requiredKeys: ['network_code', 'fields'] },
  ),
  fc.record(
    {
      network_code: fc.constant('WALLETB'),
      fields: fc.record({ walletb_account: textOfLength(1, 255).map((s) => `$${s}`) }),
      ...optionalLabels,
    },
    { requiredKeys: ['network_code', 'fields'] },
  ),
  fc.record(
    {
      network_code: fc.constant('EVM'),
      fields: fc.record({
        address: fc.oneof(
          checksummedEvmAddress,
          checksummedEvmAddress.map((a) => a.toLowerCase()),
        ),
      }),
      ...optionalLabels,
    },
    { requiredKeys: ['network_code', 'fields'] },
  ),
  fc.record(
    {
      network_code: fc.constant('TRON'),
      fields: fc.record({ address: tronAddress }),
      ...optionalLabels,
    },
    { requiredKeys: ['network_code', 'fields'] },
  ),
);

/** Positive USD amounts as wire strings, with 0, 1 or 2 decimals. */
export const usdAmount = fc
  .tuple(fc.bigInt({ min: 1n, max: 10n ** 15n }), fc.constantFrom(0, 1, 2))
  .filter(([cents, decimals]) => decimals === 2 || cents % (decimals === 1 ? 10n : 100n) === 0n)
  .map(([cents, decimals]) => {
    const whole = (cents / 100n).toString();
    const fraction = (cents % 100n).toString().padStart(2, '0').slice(0, decimals);
    return decimals === 0 ? whole : `${whole}.${fraction}`;
  });

/** Absolute https callback URLs. */
export const notifyUrl = fc
  .record({
    labels: fc.array(label, { minLength: 1, maxLength: 3 }),
    tld: fc.stringMatching(/^[a-z]{2,6}$/),
    port: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
    path: fc.stringMatching(/^(\/[A-Za-z0-9._~%-]{0,12}){0,3}(\?[a-z]{1,5}=[a-z0-9]{0,5})?$/),
  })
  .map(
    ({ labels, tld, port, path }) =>
      `https://${[...labels, tld].join('.')}${port === undefined ? '' : `:${port}`}${path}`,
  );

/** Merchant labels (reference, client_request_id, ids): 1-64 characters, not blank. */
export const merchantLabel = textOfLength(1, 64);

const payoutCommon = {
  client_request_id: merchantLabel,
  currency: fc.constant('USD'),
  amount: usdAmount,
  reference: merchantLabel,
  notify_url: notifyUrl,
  fee_bearer: fc.constantFrom('merchant', 'user'),
  submit: fc.boolean(),
  account_type: merchantLabel,
};
const payoutRequired = ['currency', 'amount', 'reference', 'notify_url'] as const;

/** A valid quick payout reusing a beneficiary account by id. */
export const validPayoutCreateById = fc
  .record(
    {
      ...payoutCommon,
      method_id: fc.integer({ min: 1, max: 1_000_000 }),
      beneficiary_account_id: merchantLabel,
    },
    { requiredKeys: [...payoutRequired, 'beneficiary_account_id'] },
  )
  .chain((body) =>
    body.method_id === undefined
      ? fc.constant(body)
      : fc
          .option(merchantLabel, { nil: undefined })
          .map((channel_id) => (channel_id === undefined ? body : { ...body, channel_id })),
  );

/** A valid quick payout creating (or reusing, by payee_id) its beneficiary inline. */
export const validPayoutCreateInline = fc.record(
  {
    ...payoutCommon,
    method_id: fc.integer({ min: 1, max: 1_000_000 }),
    channel_id: merchantLabel,
    beneficiary: validBeneficiary,
    beneficiary_account: validBeneficiaryAccount,
  },
  { requiredKeys: [...payoutRequired, 'method_id', 'beneficiary', 'beneficiary_account'] },
);

/** Any valid quick payout body. */
export const validPayoutCreate = fc.oneof(validPayoutCreateById, validPayoutCreateInline);

// ---------------------------------------------------------------------------------------------
// Broken inputs: a valid input with exactly one rule broken, and the message that rule answers

/** An input that breaks one rule, and that rule's exact message. */
export interface Broken<T = Record<string, unknown>> {
  readonly input: T;
  readonly message: string;
}

/** JSON values of the wrong type for a string field (never null: null reads as absent). */
export const nonString: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
);

const blank = fc.stringMatching(/^[ \t\n]{1,12}$/);

/** Strings of `min`-`max` code points (possibly blank). */
const anyText = (min: number, max: number) =>
  fc.string({ unit: 'binary', minLength: min, maxLength: max });

/** Inserts `insert` into `value` at a position chosen by `at`. */
const insertAt = (value: string, insert: string, at: number): string => {
  const chars = Array.from(value);
  const i = at % (chars.length + 1);
  return [...chars.slice(0, i), insert, ...chars.slice(i)].join('');
};

const withInserted = (valid: fc.Arbitrary<string>, inserts: readonly string[]) =>
  fc
    .tuple(valid, fc.constantFrom(...inserts), fc.nat())
    .map(([value, insert, at]) => insertAt(value, insert, at));

const lengthBreakers = (min: number, max: number) =>
  fc.oneof(
    anyText(0, min - 1),
    anyText(max + 1, max + 20),
    blank.filter((s) => s.length >= min && s.length <= max),
    nonString,
  );

const daysIn = (year: number, month: number): number =>
  new Date(Date.UTC(year, month, 0)).getUTCDate();
const pad = (n: number, width: number) => String(n).padStart(width, '0');

const notCalendarDate = fc.oneof(
  fc
    .tuple(fc.integer({ min: 1000, max: 9999 }), fc.integer({ min: 1, max: 12 }))
    .chain(([y, m]) =>
      fc.integer({ min: daysIn(y, m) + 1, max: 99 }).map((d) => `${y}-${pad(m, 2)}-${pad(d, 2)}`),
    ),
  fc
    .tuple(
      fc.integer({ min: 1000, max: 9999 }),
      fc.oneof(fc.constant(0), fc.integer({ min: 13, max: 99 })),
      fc.integer({ min: 1, max: 28 }),
    )
    .map(([y, m, d]) => `${y}-${pad(m, 2)}-${pad(d, 2)}`),
  isoDate.map((date) => date.replaceAll('-', '/')),
  isoDate.map((date) => `${date}T00:00:00Z`),
  isoDate.map((date) => date.slice(2)),
  nonString,
);

const notEmail = fc.oneof(
  emailAddress.map((e) => e.replace('@', '')),
  emailAddress.map((e) => `a@${e}`),
  withInserted(emailAddress, [' ', '\t', 'é', '(', ',', '"']),
  emailAddress.map((e) => `${e}.`),
  emailAddress.map((e) => `.${e}`),
  emailAddress.map((e) => `${e}.123`),
  emailAddress.map((e) => `${'a'.repeat(65)}${e.slice(e.indexOf('@'))}`),
  nonString,
);

const notPersonName = fc.oneof(
  withInserted(personName, ['0', '7', '_', '!', '.', '@', '😀', '\t', '’', '"']),
  fc.stringMatching(/^[a-zA-Z]{1,2}$/),
  fc.stringMatching(/^[a-zA-Z]{101,130}$/),
  fc.stringMatching(/^[ '-]{3,10}$/),
  nonString,
);

const fieldsBroken = (
  key: string,
  values: fc.Arbitrary<unknown>,
  message: string,
): fc.Arbitrary<Broken> =>
  fc.tuple(validBeneficiaryFields, values).map(([fields, value]) => ({
    input: { ...fields, [key]: value },
    message,
  }));

const nameMessage = "invalid: length 3-100, letters/'/-/space only";

/** For each beneficiary-fields rule, a valid `fields` object with exactly that rule broken. */
export const brokenBeneficiaryFields: Readonly<Record<string, fc.Arbitrary<Broken>>> = {
  payee_id: fieldsBroken(
    'payee_id',
    fc.oneof(
      fc.stringMatching(/^[a-zA-Z0-9]{0,2}$/),
      fc.stringMatching(/^[a-zA-Z0-9]{61,80}$/),
      withInserted(fc.stringMatching(/^[a-zA-Z0-9]{3,20}$/), ['-', '_', ' ', '@', 'é', '😀']),
      nonString,
    ),
    'fields.payee_id invalid: expect ^[a-zA-Z0-9]{3,60}$',
  ),
  language: fieldsBroken(
    'language',
    fc.oneof(
      fc.string().filter((s) => !/^[a-zA-Z]{2}$/.test(s)),
      fc.stringMatching(/^[a-z]{3}$/),
      nonString,
    ),
    'fields.language invalid: expect 2 letters',
  ),
  country: fieldsBroken(
    'country',
    fc.oneof(
      fc.stringMatching(/^[A-Z]{2}$/).filter((c) => !countryCodes.has(c)),
      fc.constantFrom(...countryCodes).map((c) => c.toLowerCase()),
      fc.string().filter((s) => !countryCodes.has(s)),
      nonString,
    ),
    'fields.country invalid: expect ISO-2 uppercase',
  ),
  phone: fieldsBroken(
    'phone',
    fc.oneof(
      fc.stringMatching(/^\d{0,3}$/),
      fc.stringMatching(/^\d{13,20}$/),
      fc.stringMatching(/^\+?\d{4,}-\d{4,12}$/),
      fc.stringMatching(/^\+\d{5,12}$/),
      withInserted(fc.stringMatching(/^\d{4,12}$/), [' ', '(', ')', '.', 'x']),
      nonString,
    ),
    'fields.phone invalid: expect ^(\\+?\\d{1,3}-)?\\d{4,12}$',
  ),
  birthdate: fieldsBroken(
    'birthdate',
    notCalendarDate,
    'fields.birthdate invalid: expect yyyy-MM-dd',
  ),
  email: fieldsBroken('email', notEmail, 'fields.email invalid'),
  first_name: fieldsBroken('first_name', notPersonName, `fields.first_name ${nameMessage}`),
  last_name: fieldsBroken('last_name', notPersonName, `fields.last_name ${nameMessage}`),
  zip: fieldsBroken('zip', lengthBreakers(3, 30), 'fields.zip invalid: length 3-30'),
  zip_for_country: fc
    .tuple(validBeneficiaryFields, fc.constantFrom(...countriesWithZipFormat), textOfLength(3, 30))
    .filter(([, country, zip]) => zipFormats[country]?.test(zip) === false)
    .map(([fields, country, zip]) => ({
      input: { ...fields, country, zip },
      message: `fields.zip invalid for country ${country}`,
    })),
  city: fieldsBroken('city', lengthBreakers(2, 120), 'fields.city invalid: length 2-120'),
  state: fieldsBroken('state', lengthBreakers(2, 60), 'fields.state invalid: length 2-60'),
  address: fieldsBroken('address', lengthBreakers(3, 200), 'fields.address invalid: length 3-200'),
  unknown_key: fc
    .tuple(
      validBeneficiaryFields,
      fc
        .string({ minLength: 1, maxLength: 12 })
        .filter((k) => !beneficiaryFieldKeys.some((fieldKey) => fieldKey === k)),
      fc.oneof(fc.string(), fc.integer()),
    )
    .map(([fields, key, value]) => ({
      input: { ...fields, [key]: value },
      message: `unknown field fields.${key}`,
    })),
  payee_id_missing: fc
    .tuple(validBeneficiaryFields, fc.boolean())
    .map(([{ payee_id: _, ...rest }, asNull]) => ({
      input: asNull ? { ...rest, payee_id: null } : rest,
      message: 'fields missing required: payee_id',
    })),
};

/** For each beneficiary account rule, a valid sandbox account with exactly that rule broken. */
export const brokenBeneficiaryAccounts: Readonly<Record<string, fc.Arbitrary<Broken>>> = {
  network_code_missing: fc
    .tuple(validBeneficiaryAccount, fc.constantFrom(undefined, null, ''), blank)
    .map(([account, missing, spaces]) => ({
      input: { ...account, network_code: missing === '' ? spaces : missing },
      message: 'network_code required',
    })),
  network_not_found: fc
    .tuple(validBeneficiaryAccount, textOfLength(1, 12))
    .filter(([, code]) => sandboxLookup(code) === undefined)
    .map(([account, network_code]) => ({
      input: { ...account, network_code },
      message: 'network not found',
    })),
  fields_missing: validBeneficiaryAccount.map(({ fields: _, ...account }) => ({
    input: account,
    message: 'fields required',
  })),
  unknown_field: fc
    .tuple(validBeneficiaryAccount, fc.string({ minLength: 1, maxLength: 12 }), fc.string())
    .filter(([account, key]) => !Object.hasOwn(account.fields, key))
    .map(([account, key, value]) => ({
      input: { ...account, fields: { ...account.fields, [key]: value } },
      message: `unknown field ${key}`,
    })),
  field_required: fc
    .tuple(validBeneficiaryAccount, fc.constantFrom('delete', null, ''))
    .map(([account, how]) => {
      const [key] = Object.keys(account.fields);
      const fields = how === 'delete' ? {} : { [key ?? '']: how };
      return { input: { ...account, fields }, message: `field ${key} required` };
    }),
  field_not_string: fc.tuple(validBeneficiaryAccount, nonString).map(([account, value]) => {
    const [key] = Object.keys(account.fields);
    return {
      input: { ...account, fields: { [key ?? '']: value } },
      message: `field ${key} invalid`,
    };
  }),
  walletb_prefix: fc
    .tuple(textOfLength(1, 40).filter((s) => !s.startsWith('$')))
    .map(([walletb_account]) => ({
      input: { network_code: 'WALLETB', fields: { walletb_account } },
      message: 'walletb_account must start with $',
    })),
  too_long: fc.tuple(textOfLength(256, 300)).map(([rest]) => ({
    input: { network_code: 'WALLETB', fields: { walletb_account: `$${rest}` } },
    message: 'field walletb_account invalid: expect at most 256 characters',
  })),
  walleta_email: notEmail
    .filter((e) => typeof e === 'string' && e !== '')
    .map((walleta_email) => ({
      input: { network_code: 'WALLETA', fields: { walleta_email } },
      message: 'field walleta_email invalid: expect an e-mail address',
    })),
  evm_address: fc
    .oneof(
      fc
        .tuple(checksummedEvmAddress, fc.nat())
        .map(([address, at]) => {
          const letters = [...address].flatMap((c, i) => (i > 1 && /[a-fA-F]/.test(c) ? [i] : []));
          const i = letters[at % Math.max(letters.length, 1)] ?? 2;
          const c = address.charAt(i);
          const flipped = c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
          return address.slice(0, i) + flipped + address.slice(i + 1);
        })
        .filter(
          (a) => a.slice(2) !== a.slice(2).toLowerCase() && a.slice(2) !== a.slice(2).toUpperCase(),
        ),
      checksummedEvmAddress.map((a) => a.slice(0, -1)),
      checksummedEvmAddress.map((a) => `${a}0`),
      checksummedEvmAddress.map((a) => a.slice(2)),
      checksummedEvmAddress.map((a) => `0x${a.slice(3)}g`),
      tronAddress,
    )
    .map((address) => ({
      input: { network_code: 'EVM', fields: { address } },
      message: 'field address invalid: expect 0x + 40 hex with a valid EIP-55 checksum',
    })),
  tron_address: fc
    .oneof(
      fc
        .tuple(tronAddress, fc.integer({ min: 1, max: 33 }), fc.constantFrom('1', 'z', 'Q', 'a'))
        .filter(([address, at, c]) => address.charAt(at) !== c)
        .map(([address, at, c]) => address.slice(0, at) + c + address.slice(at + 1)),
      tronAddress.map((a) => a.slice(0, -1)),
      tronAddress.map((a) => `${a}1`),
      checksummedEvmAddress,
    )
    .map((address) => ({
      input: { network_code: 'TRON', fields: { address } },
      message: 'field address invalid: expect a base58check TRON address starting with T',
    })),
  display_name: fc
    .tuple(validBeneficiaryAccount, fc.oneof(fc.constant(''), blank, anyText(101, 120), nonString))
    .map(([account, display_name]) => ({
      input: { ...account, display_name },
      message: 'Validation Failed',
    })),
  account_type: fc
    .tuple(validBeneficiaryAccount, fc.oneof(fc.constant(''), blank, anyText(65, 80), nonString))
    .map(([account, account_type]) => ({
      input: { ...account, account_type },
      message: 'Validation Failed',
    })),
};

/** What a required string reads as missing: absent, null, empty or whitespace only. */
export const blankOrMissing: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(undefined, null, ''),
  blank,
);
