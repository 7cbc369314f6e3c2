/**
 * The beneficiary account object and its `fields` checked against the receiving network's schema
 * (the interface's "Beneficiary account object" and "Beneficiary account fields" errors). The
 * shape is an io-ts codec; the schema part needs the network, so it takes a lookup.
 */
import * as E from 'fp-ts/lib/Either.js';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import { isEvmAddress, isTronAddress } from './addresses.js';
import {
  codecFromCheck,
  codePointLength,
  hasLengthBetween,
  isBlank,
  isEmailAddress,
  isJsonObject,
  presentValue,
} from './beneficiary.codecs.js';

/**
 * What a network schema field's `validation_rule` may say. `''` is any non-empty string;
 * `prefix:<p>` is `<p>` followed by at least one character; `regex:<pattern>` must match the whole
 * value (the pattern is anchored for you, Unicode mode); `length:<min>-<max>` counts characters.
 */
export type ValidationRule =
  | ''
  | 'email'
  | 'evm_address'
  | 'tron_address'
  | `prefix:${string}`
  | `regex:${string}`
  | `length:${number}-${number}`;

export interface NetworkSchemaField {
  readonly field_key: string;
  readonly required: boolean;
  readonly validation_rule: string;
}

/** A receiving network and the fields its accounts carry (the payout-networks lookup). */
export interface NetworkSchema {
  readonly code: string;
  readonly fields: readonly NetworkSchemaField[];
}

export type NetworkLookup = (code: string) => NetworkSchema | undefined;

/** Whatever its rule says, the longest field value stored: keeps one account row bounded. */
export const maxAccountFieldLength = 256;

interface CompiledRule {
  readonly test: (value: string) => boolean;
  /** Completes `field <name> invalid: <hint>`; without one the message is `field <name> invalid`. */
  readonly hint?: string;
}

const compileRule = (rule: string): CompiledRule | undefined => {
  if (rule === '') return { test: () => true };
  if (rule === 'email') return { test: isEmailAddress, hint: 'expect an e-mail address' };
  if (rule === 'evm_address') {
    return { test: isEvmAddress, hint: 'expect 0x + 40 hex with a valid EIP-55 checksum' };
  }
  if (rule === 'tron_address') {
    return { test: isTronAddress, hint: 'expect a base58check TRON address starting with T' };
  }
  if (rule.startsWith('prefix:') && rule.length > 'prefix:'.length) {
    const prefix = rule.slice('prefix:'.length);
    return {
      test: (v) => v.startsWith(prefix) && v.length > prefix.length,
      hint: `expect ${prefix} followed by at least one character`,
    };
  }
  if (rule.startsWith('regex:') && rule.length > 'regex:'.length) {
    const pattern = rule.slice('regex:'.length);
    try {
      const regex = new RegExp(`^(?:${pattern})$`, 'u');
      return { test: (v) => regex.test(v), hint: `expect ${pattern}` };
    } catch {
      return undefined;
    }
  }
  const length = /^length:(\d{1,4})-(\d{1,4})$/.exec(rule);
  if (length) {
    const [min, max] = [Number(length[1]), Number(length[2])];
    if (min > max) return undefined;
    return {
      test: (v) => codePointLength(v) >= min && codePointLength(v) <= max,
      hint: `expect length ${min}-${max}`,
    };
  }
  return undefined;
};

/**
 * Whether a schema's `validation_rule` is one this service understands (a `regex:` must compile).
 * The admin API refuses others; a stored unknown rule fails closed as `field <name> invalid`.
 */
export const isValidationRule = (rule: string): rule is ValidationRule =>
  compileRule(rule) !== undefined;

/** The account field that must carry its `$` prefix, with its own message from the interface. */
const walletbAccountKey = 'walletb_account';

export interface BeneficiaryAccount {
  readonly network_code: string;
  readonly display_name?: string;
  readonly fields: Readonly<Record<string, string>>;
  readonly account_type?: string;
}

const optionalLabel = (u: unknown, max: number): E.Either<PayrailError, string | undefined> =>
  u === undefined || (typeof u === 'string' && hasLengthBetween(u, 1, max))
    ? E.right(u)
    : E.left(payrailError('validation_failed'));

/**
 * The account's shape, before its network is known: not an object -> `Validation Failed`;
 * `network_code required` (absent or blank); display_name, an optional label of 1-100 characters,
 * else `Validation Failed`; `fields required` when absent, `Validation Failed` when not an object,
 * every present field value a string, else `field <name> invalid`; account_type, an optional
 * label of 1-64 characters, else `Validation Failed` (the table's order).
 */
export const checkBeneficiaryAccountShape = (
  u: unknown,
): E.Either<PayrailError, BeneficiaryAccount> => {
  if (!isJsonObject(u)) return E.left(payrailError('validation_failed'));
  const networkCode = presentValue(u, 'network_code');
  if (networkCode === undefined || (typeof networkCode === 'string' && isBlank(networkCode))) {
    return E.left(payrailError('network_code_required'));
  }
  if (typeof networkCode !== 'string') return E.left(payrailError('validation_failed'));
  const displayName = optionalLabel(presentValue(u, 'display_name'), 100);
  if (E.isLeft(displayName)) return displayName;
  const rawFields = presentValue(u, 'fields');
  if (rawFields === undefined) return E.left(payrailError('fields_required'));
  if (!isJsonObject(rawFields)) return E.left(payrailError('validation_failed'));
  // Entries, not assignment: a key such as `__proto__` must stay a key (and be refused later).
  const entries: [string, string][] = [];
  for (const key of Object.keys(rawFields)) {
    const value = presentValue(rawFields, key);
    if (value === undefined) continue;
    if (typeof value !== 'string') {
      return E.left(payrailError('account_field_invalid', { name: key }));
    }
    entries.push([key, value]);
  }
  const fields: Readonly<Record<string, string>> = Object.fromEntries(entries);
  const accountType = optionalLabel(presentValue(u, 'account_type'), 64);
  if (E.isLeft(accountType)) return accountType;
  return E.right({
    network_code: networkCode,
    ...(displayName.right === undefined ? {} : { display_name: displayName.right }),
    fields,
    ...(accountType.right === undefined ? {} : { account_type: accountType.right }),
  });
};

/** The beneficiary account's shape as an io-ts codec (no network lookup). */
export const BeneficiaryAccount = codecFromCheck<BeneficiaryAccount>(
  'BeneficiaryAccount',
  checkBeneficiaryAccountShape,
);

const checkFieldValue = (field: NetworkSchemaField, value: string): PayrailError | undefined => {
  const name = field.field_key;
  if (name === walletbAccountKey && !value.startsWith('$')) {
    return payrailError('walletb_account_prefix');
  }
  if (codePointLength(value) > maxAccountFieldLength) {
    return payrailError('account_field_invalid_hint', {
      name,
      hint: `expect at most ${maxAccountFieldLength} characters`,
    });
  }
  const rule = compileRule(field.validation_rule);
  if (rule === undefined) return payrailError('account_field_invalid', { name });
  if (rule.test(value)) return undefined;
  return rule.hint === undefined
    ? payrailError('account_field_invalid', { name })
    : payrailError('account_field_invalid_hint', { name, hint: rule.hint });
};

/**
 * An account's fields against its network schema, first broken rule wins: `schema required`
 * (no schema fields); `unknown field <name>` (a key outside the schema, in the order sent);
 * then each schema field in schema order: `field <name> required` (absent or empty), then its rule
 * (`walletb_account must start with $`, `field <name> invalid[: <hint>]`). Empty optional values
 * are dropped.
 */
export const checkAccountFields = (
  schema: NetworkSchema,
  fields: Readonly<Record<string, string>>,
): E.Either<PayrailError, Readonly<Record<string, string>>> => {
  if (schema.fields.length === 0) return E.left(payrailError('schema_required'));
  const known = new Set(schema.fields.map((f) => f.field_key));
  const unknownKey = Object.keys(fields).find((key) => !known.has(key));
  if (unknownKey !== undefined) {
    return E.left(payrailError('account_field_unknown', { name: unknownKey }));
  }
  const checked: [string, string][] = [];
  for (const field of schema.fields) {
    const value = Object.hasOwn(fields, field.field_key) ? fields[field.field_key] : undefined;
    if (value === undefined || value === '') {
      if (field.required) {
        return E.left(payrailError('account_field_required', { name: field.field_key }));
      }
      continue;
    }
    const broken = checkFieldValue(field, value);
    if (broken) return E.left(broken);
    checked.push([field.field_key, value]);
  }
  return E.right(Object.fromEntries(checked));
};

/** A decoded account against its network: `network not found`, then `checkAccountFields`. */
export const checkAccountNetwork = (
  account: BeneficiaryAccount,
  lookupNetwork: NetworkLookup,
): E.Either<PayrailError, BeneficiaryAccount> => {
  const schema = lookupNetwork(account.network_code);
  if (schema === undefined) return E.left(payrailError('network_not_found'));
  const fields = checkAccountFields(schema, account.fields);
  return E.isLeft(fields) ? fields : E.right({ ...account, fields: fields.right });
};

/** A beneficiary account from the wire: its shape, then its network's schema. */
export const decodeBeneficiaryAccount = (
  input: unknown,
  options: { readonly lookupNetwork: NetworkLookup },
): E.Either<PayrailError, BeneficiaryAccount> => {
  const shape = checkBeneficiaryAccountShape(input);
  return E.isLeft(shape) ? shape : checkAccountNetwork(shape.right, options.lookupNetwork);
};

/** A lookup over a fixed list of schemas (network codes match exactly). */
export const networkLookupOf =
  (schemas: readonly NetworkSchema[]): NetworkLookup =>
  (code) =>
    schemas.find((schema) => schema.code === code);

const schemaOf = (code: string, field_key: string, validation_rule: ValidationRule) =>
  ({
    code,
    fields: [{ field_key, required: true, validation_rule }],
  }) as const satisfies NetworkSchema;

/** Sandbox default: the WALLETA e-mail wallet; its receiving e-mail goes in walleta_email. */
export const walletaNetworkSchema = schemaOf('WALLETA', 'walleta_email', 'email');
/** Sandbox default: the WALLETB network, whose account handle starts with `$`. */
export const walletbNetworkSchema = schemaOf('WALLETB', 'walletb_account', 'prefix:$');
/** Sandbox default: crypto payouts to an EVM address (EIP-55 checksummed when mixed case). */
export const evmNetworkSchema = schemaOf('EVM', 'address', 'evm_address');
/** Sandbox default: crypto payouts to a TRON address. */
export const tronNetworkSchema = schemaOf('TRON', 'address', 'tron_address');

/** The network schemas a sandbox starts with, for the server to seed. */
export const sandboxNetworkSchemas: readonly NetworkSchema[] = [
  walletaNetworkSchema,
  walletbNetworkSchema,
  evmNetworkSchema,
  tronNetworkSchema,
];
