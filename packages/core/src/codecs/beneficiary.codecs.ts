/**
 * The beneficiary object of the interface (`{name, fields}`) and the rules of its profile fields,
 * each answering its exact message from the "Beneficiary fields" list. Also the small building
 * blocks the other payout-side codecs share (null as absent, lengths in code points, a codec from
 * an ordered check), so every payout-side request reads its input the same way.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import {
  codecOf,
  codePointLength,
  fail,
  hasLengthBetween,
  isBlank,
  isJsonObject,
  type JsonObject,
  presentValue,
} from './codec-toolkit.js';
import { zipMatchesCountry } from './zip-formats.js';

// ---------------------------------------------------------------------------------------------
// Shared building blocks of the payout-side codecs

// Transitional: the reading helpers now live in the codec toolkit; imports here move to it as
// each codec is rebuilt on `request(...)`.
export {
  codePointLength,
  hasLengthBetween,
  isBlank,
  isJsonObject,
  type JsonObject,
  presentValue,
} from './codec-toolkit.js';

const sameJson = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, i) => sameJson(item, b[i]))
    );
  }
  if (!isJsonObject(a) || !isJsonObject(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]))
  );
};

/**
 * An io-ts codec from an ordered check that stops at the first broken rule, so the precedence of
 * rules is the order of the check's code. `is` holds for values that decode to themselves
 * (defaults filled in, no `null`s).
 */
export const codecFromCheck = <A>(
  name: string,
  check: (u: unknown) => E.Either<PayrailError, A>,
): t.Type<A, A, unknown> =>
  codecOf<A>(
    name,
    (u): u is A => {
      const decoded = check(u);
      return E.isRight(decoded) && sameJson(decoded.right, u);
    },
    (u, c) => {
      const decoded = check(u);
      return E.isRight(decoded) ? t.success(decoded.right) : fail(u, c, decoded.left);
    },
  );

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
  (beneficiaryFieldKeys as readonly string[]).includes(key);

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
export const isCountryCode = (value: unknown): value is string =>
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

const isPersonName = (value: string): boolean =>
  personNameFormat.test(value) && /\p{L}/u.test(value) && hasLengthBetween(value, 3, 100);

/** Each key's rule; `undefined` when the value passes. */
const fieldRules: {
  readonly [K in BeneficiaryFieldKey]: (
    value: unknown,
    fields: JsonObject,
  ) => PayrailError | undefined;
} = {
  payee_id: (v) =>
    typeof v === 'string' && payeeIdFormat.test(v) ? undefined : payrailError('payee_id_invalid'),
  language: (v) =>
    typeof v === 'string' && languageFormat.test(v) ? undefined : payrailError('language_invalid'),
  country: (v) => (isCountryCode(v) ? undefined : payrailError('country_invalid')),
  phone: (v) =>
    typeof v === 'string' && phoneFormat.test(v) ? undefined : payrailError('phone_invalid'),
  birthdate: (v) => (isCalendarDate(v) ? undefined : payrailError('birthdate_invalid')),
  email: (v) => (isEmailAddress(v) ? undefined : payrailError('email_invalid')),
  first_name: (v) =>
    typeof v === 'string' && isPersonName(v) ? undefined : payrailError('first_name_invalid'),
  last_name: (v) =>
    typeof v === 'string' && isPersonName(v) ? undefined : payrailError('last_name_invalid'),
  zip: (v, fields) => {
    if (typeof v !== 'string' || !hasLengthBetween(v, 3, 30)) {
      return payrailError('zip_invalid_length');
    }
    const country = presentValue(fields, 'country');
    return isCountryCode(country) && !zipMatchesCountry(v, country)
      ? payrailError('zip_invalid_for_country', { country })
      : undefined;
  },
  city: (v) =>
    typeof v === 'string' && hasLengthBetween(v, 2, 120) ? undefined : payrailError('city_invalid'),
  state: (v) =>
    typeof v === 'string' && hasLengthBetween(v, 2, 60) ? undefined : payrailError('state_invalid'),
  address: (v) =>
    typeof v === 'string' && hasLengthBetween(v, 3, 200)
      ? undefined
      : payrailError('address_invalid'),
};

// ---------------------------------------------------------------------------------------------
// The fields object and the beneficiary

/** A recipient profile: payee_id always (it is how a beneficiary is found again), the rest optional. */
export type BeneficiaryFields = { readonly payee_id: string } & {
  readonly [K in Exclude<BeneficiaryFieldKey, 'payee_id'>]?: string;
};

/**
 * Checks a `fields` object, first broken rule wins: not there -> `missing` (which message that is
 * depends on where the object sits); not an object -> `Validation Failed`; a key outside the table
 * -> `unknown field fields.<key>` (a typo must not silently drop a profile field); no payee_id ->
 * `fields missing required: payee_id`; then each key's rule in the table's order.
 */
export const checkBeneficiaryFields = (
  u: unknown,
  missing: PayrailError,
): E.Either<PayrailError, BeneficiaryFields> => {
  if (u === undefined || u === null) return E.left(missing);
  if (!isJsonObject(u)) return E.left(payrailError('validation_failed'));
  const unknownKey = Object.keys(u).find(
    (key) => !isBeneficiaryFieldKey(key) && presentValue(u, key) !== undefined,
  );
  if (unknownKey !== undefined) {
    return E.left(payrailError('account_field_unknown', { name: `fields.${unknownKey}` }));
  }
  if (presentValue(u, 'payee_id') === undefined) {
    return E.left(payrailError('fields_missing_required', { fields: 'payee_id' }));
  }
  const decoded: Record<string, string> = {};
  for (const key of beneficiaryFieldKeys) {
    const value = presentValue(u, key);
    if (value === undefined) continue;
    const broken = fieldRules[key](value, u);
    if (broken) return E.left(broken);
    decoded[key] = value as string;
  }
  return E.right(decoded as BeneficiaryFields);
};

/** The `fields` object of a standalone beneficiary request: `fields required` when absent. */
export const BeneficiaryFields = codecFromCheck<BeneficiaryFields>('BeneficiaryFields', (u) =>
  checkBeneficiaryFields(u, payrailError('fields_required')),
);

/** Checks the recipient name: required (not blank), at most 200 characters. */
export const checkBeneficiaryName = (u: unknown, field: string): E.Either<PayrailError, string> => {
  if (u === undefined || (typeof u === 'string' && isBlank(u))) {
    return E.left(payrailError('field_required', { field }));
  }
  return typeof u === 'string' && codePointLength(u) <= 200
    ? E.right(u)
    : E.left(payrailError('validation_failed'));
};

export interface Beneficiary {
  readonly name: string;
  readonly fields: BeneficiaryFields;
}

/**
 * The inline beneficiary of a payout (`{name, fields}`): not an object -> `Validation Failed`;
 * then `beneficiary.name required`, then `beneficiary fields required`, then the fields' rules.
 * Other keys are ignored.
 */
export const checkBeneficiary = (u: unknown): E.Either<PayrailError, Beneficiary> => {
  if (!isJsonObject(u)) return E.left(payrailError('validation_failed'));
  const name = checkBeneficiaryName(presentValue(u, 'name'), 'beneficiary.name');
  if (E.isLeft(name)) return name;
  const fields = checkBeneficiaryFields(
    presentValue(u, 'fields'),
    payrailError('beneficiary_fields_required'),
  );
  if (E.isLeft(fields)) return fields;
  return E.right({ name: name.right, fields: fields.right });
};

/** The inline beneficiary as an io-ts codec (see `checkBeneficiary`). */
export const Beneficiary = codecFromCheck<Beneficiary>('Beneficiary', checkBeneficiary);

const missingKeys = (fields: BeneficiaryFields, required: readonly string[]): string[] => [
  ...new Set(required.filter((key) => !Object.hasOwn(fields, key))),
];

/**
 * A payout whose route requires profile fields: `beneficiary profile incomplete: missing <fields>`,
 * listing every missing one, comma-separated, in the route's order.
 */
export const requireBeneficiaryFields = (
  fields: BeneficiaryFields,
  required: readonly string[],
): E.Either<PayrailError, BeneficiaryFields> => {
  const missing = missingKeys(fields, required);
  return missing.length === 0
    ? E.right(fields)
    : E.left(payrailError('beneficiary_profile_incomplete', { fields: missing.join(', ') }));
};

/**
 * A standalone beneficiary created for a method that requires profile fields:
 * `fields missing required: <fields>`, same listing as `requireBeneficiaryFields`.
 */
export const requireBeneficiaryCreateFields = (
  fields: BeneficiaryFields,
  required: readonly string[],
): E.Either<PayrailError, BeneficiaryFields> => {
  const missing = missingKeys(fields, required);
  return missing.length === 0
    ? E.right(fields)
    : E.left(payrailError('fields_missing_required', { fields: missing.join(', ') }));
};
