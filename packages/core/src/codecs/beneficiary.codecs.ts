/**
 * The beneficiary object of the interface (`{name, fields}`) and the rules of its profile fields,
 * each answering its exact message from the "Beneficiary fields" list, built on the codec toolkit.
 *
 * Precedence of a `fields` object, when several rules break at once (the first broken rule wins):
 *  1. not there -> `missing` (which message depends on where the object sits); not an object ->
 *     `Validation Failed`;
 *  2. a key outside the table -> `unknown field fields.<key>` (a typo must not silently drop a
 *     profile field); no payee_id -> `fields missing required: payee_id`;
 *  3. each key's rule in the table's order (zip: its length, then its country's format).
 * A beneficiary `{name, fields}`: not an object -> `Validation Failed`; then the name
 * (`beneficiary.name required`, then `Validation Failed`), then `beneficiary fields required` and
 * the fields' rules. Other keys are ignored; `null` is read as absent.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import {
  codecOf,
  codePointLength,
  defined,
  fail,
  hasLengthBetween,
  isJsonObject,
  type LeafSchema,
  leaf,
  leafFrom,
  request,
  requiredField,
} from './codec-toolkit.js';
import { zipMatchesCountry } from './zip-formats.js';

// ---------------------------------------------------------------------------------------------
// Field rules

/** The profile keys of the interface's "Beneficiary object" table, in its order. */
export const beneficiaryFieldKeys = [
  'payee_id',
  'language',
  'country',
  'phone',
  'birthdate',
  'email',
  'first_name',
  'last_name',
  'zip',
  'city',
  'state',
  'address',
] as const;
export type BeneficiaryFieldKey = (typeof beneficiaryFieldKeys)[number];

const isBeneficiaryFieldKey = (key: string): key is BeneficiaryFieldKey =>
  beneficiaryFieldKeys.some((fieldKey) => fieldKey === key);

/**
 * The officially assigned ISO 3166-1 alpha-2 codes, plus XK (Kosovo), which banks and payment
 * networks use although ISO has not assigned it. "ISO-2" means a real country, not any two letters.
 */
export const countryCodes: ReadonlySet<string> = new Set(
  `AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS
  BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG
  EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR
  HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR
  LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG
  NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE
  SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA
  UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW`.split(/\s+/),
);

/** The `fields.country` rule: an assigned ISO-2 code, upper case. */
const isCountryCode = (value: unknown): value is string =>
  typeof value === 'string' && countryCodes.has(value);

/** A real calendar date written yyyy-MM-dd (2024-02-29 yes, 2023-02-29 no). */
export const isCalendarDate = (value: unknown): value is string => {
  if (typeof value !== 'string') return false;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day <= daysInMonth;
};

const emailLocal = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const domainLabel = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const topLevelDomain = /^(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$/;

/**
 * A practical e-mail rule, the one mail providers deliver to: ASCII `local@domain`, at most 254
 * characters; the local part (at most 64) is dot-separated atoms without quotes or comments; the
 * domain has two or more DNS labels and an alphabetic (or punycode) top-level label. No IP
 * literals, no quoted local parts, no internationalised addresses.
 */
export const isEmailAddress = (value: unknown): value is string => {
  if (typeof value !== 'string' || value.length > 254) return false;
  const at = value.lastIndexOf('@');
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (at < 1 || local.length > 64 || !emailLocal.test(local) || domain.length > 253) return false;
  const labels = domain.split('.');
  const tld = labels[labels.length - 1] ?? '';
  return labels.length >= 2 && labels.every((l) => domainLabel.test(l)) && topLevelDomain.test(tld);
};

const payeeIdFormat = /^[a-zA-Z0-9]{3,60}$/;
const languageFormat = /^[a-zA-Z]{2}$/;
const phoneFormat = /^(\+?\d{1,3}-)?\d{4,12}$/;
const personNameFormat = /^[\p{L}\p{M}' -]+$/u;

const isPersonName = (value: unknown): value is string =>
  typeof value === 'string' &&
  personNameFormat.test(value) &&
  /\p{L}/u.test(value) &&
  hasLengthBetween(value, 3, 100);

const isText =
  (min: number, max: number) =>
  (value: unknown): value is string =>
    typeof value === 'string' && hasLengthBetween(value, min, max);

const matching =
  (format: RegExp) =>
  (value: unknown): value is string =>
    typeof value === 'string' && format.test(value);

/** A profile field: its rule, its catalogue error, what the document says of it. */
const field = (
  name: string,
  is: (u: unknown) => u is string,
  error: PayrailError,
  schema: LeafSchema,
) => leaf<string>(name, is, () => error, { type: 'string', ...schema });

const isZipLength = isText(3, 30);

/**
 * zip: 3-30 characters, then the format of the `country` sent beside it (when that is a country
 * with a known format). Read here, at zip's place in the table, so a city broken too answers later.
 */
const Zip = leafFrom<string>(
  'Zip',
  isZipLength,
  (u, sibling) => {
    if (!isZipLength(u)) return E.left(payrailError('zip_invalid_length'));
    const country = sibling('country');
    return isCountryCode(country) && !zipMatchesCountry(u, country)
      ? E.left(payrailError('zip_invalid_for_country', { country }))
      : E.right(u);
  },
  { type: 'string', minLength: 3, maxLength: 30, description: "matches the country's format" },
);

const personName = { minLength: 3, maxLength: 100, pattern: "^[\\p{L}\\p{M}' -]+$" } as const;

/** The optional profile keys, in the table's order (payee_id is required). */
const optionalFields = {
  language: field('Language', matching(languageFormat), payrailError('language_invalid'), {
    pattern: languageFormat.source,
  }),
  country: field('Country', isCountryCode, payrailError('country_invalid'), {
    pattern: '^[A-Z]{2}$',
    description: 'ISO-2, upper case',
  }),
  phone: field('Phone', matching(phoneFormat), payrailError('phone_invalid'), {
    pattern: phoneFormat.source,
  }),
  birthdate: field('Birthdate', isCalendarDate, payrailError('birthdate_invalid'), {
    format: 'date',
    description: 'yyyy-MM-dd',
  }),
  email: field('Email', isEmailAddress, payrailError('email_invalid'), {
    format: 'email',
    maxLength: 254,
  }),
  first_name: field('FirstName', isPersonName, payrailError('first_name_invalid'), personName),
  last_name: field('LastName', isPersonName, payrailError('last_name_invalid'), personName),
  zip: Zip,
  city: field('City', isText(2, 120), payrailError('city_invalid'), {
    minLength: 2,
    maxLength: 120,
  }),
  state: field('State', isText(2, 60), payrailError('state_invalid'), {
    minLength: 2,
    maxLength: 60,
  }),
  address: field('Address', isText(3, 200), payrailError('address_invalid'), {
    minLength: 3,
    maxLength: 200,
  }),
} satisfies { readonly [K in Exclude<BeneficiaryFieldKey, 'payee_id'>]: t.Mixed };

const PayeeId = field('PayeeId', matching(payeeIdFormat), payrailError('payee_id_invalid'), {
  pattern: payeeIdFormat.source,
});

/** Stage 2's first rule: the first key outside the table (a typo must not drop a field). */
const OnlyProfileKeys = codecOf<unknown>(
  'OnlyProfileKeys',
  (u): u is unknown => isJsonObject(u) && Object.keys(u).every(isBeneficiaryFieldKey),
  (u, c) => {
    const unknownKey = isJsonObject(u)
      ? Object.keys(u).find((key) => !isBeneficiaryFieldKey(key))
      : undefined;
    return unknownKey === undefined
      ? t.success(u)
      : fail(u, c, payrailError('account_field_unknown', { name: `fields.${unknownKey}` }));
  },
);

/** The `fields` object wherever it sits; not an object -> `Validation Failed`. */
const ProfileFields = request(
  'BeneficiaryFields',
  {
    required: t.intersection([
      OnlyProfileKeys,
      t.type({
        payee_id: defined(payrailError('fields_missing_required', { fields: 'payee_id' })),
      }),
    ]),
    format: t.intersection([t.type({ payee_id: PayeeId }), t.partial(optionalFields)]),
  },
  payrailError('validation_failed'),
);

// ---------------------------------------------------------------------------------------------
// The fields object and the beneficiary

const isNullish = (u: unknown): boolean => u === undefined || u === null;

/**
 * A `fields` object that must be there: absent or `null` -> `missing` (`fields required` for a
 * standalone beneficiary, `beneficiary fields required` inline), then the object's rules.
 */
const requiredProfileFields = (missing: PayrailError) =>
  requiredField(ProfileFields, missing, isNullish);

/** A recipient profile: payee_id always (it is how a beneficiary is found again), the rest optional. */
export const BeneficiaryFields = requiredProfileFields(payrailError('fields_required'));
export type BeneficiaryFields = t.TypeOf<typeof BeneficiaryFields>;

/** The recipient name: a string of at most 200 characters (blank is the presence rule's). */
export const BeneficiaryName = leaf<string>(
  'BeneficiaryName',
  (u): u is string => typeof u === 'string' && codePointLength(u) <= 200,
  'validation_failed',
  { type: 'string', minLength: 1, maxLength: 200, description: 'recipient name' },
);

/**
 * The inline beneficiary of a payout (`{name, fields}`): not an object -> `Validation Failed`;
 * then `beneficiary.name required`, the name's length, then `beneficiary fields required`, then
 * the fields' rules. Other keys are ignored.
 */
export const Beneficiary = request(
  'Beneficiary',
  {
    format: t.type({
      name: requiredField(
        BeneficiaryName,
        payrailError('field_required', { field: 'beneficiary.name' }),
      ),
      fields: requiredProfileFields(payrailError('beneficiary_fields_required')),
    }),
  },
  payrailError('validation_failed'),
);
export type Beneficiary = t.TypeOf<typeof Beneficiary>;

const missingKeys = (fields: object, required: readonly string[]): string[] => [
  ...new Set(required.filter((key) => !Object.hasOwn(fields, key))),
];

/** Every field `required` names that `fields` lacks, in the route's order, through `missing`. */
const requireFields =
  (missing: (fields: string) => PayrailError) =>
  <F extends Readonly<Record<string, string | undefined>>>(
    fields: F,
    required: readonly string[],
  ): E.Either<PayrailError, F> => {
    const keys = missingKeys(fields, required);
    return keys.length === 0 ? E.right(fields) : E.left(missing(keys.join(', ')));
  };

/**
 * A payout whose route requires profile fields: `beneficiary profile incomplete: missing <fields>`,
 * listing every missing one, comma-separated, in the route's order.
 */
export const requireBeneficiaryFields = requireFields((fields) =>
  payrailError('beneficiary_profile_incomplete', { fields }),
);

/**
 * A standalone beneficiary created for a method that requires profile fields:
 * `fields missing required: <fields>`, same listing as `requireBeneficiaryFields`.
 */
export const requireBeneficiaryCreateFields = requireFields((fields) =>
  payrailError('fields_missing_required', { fields }),
);
