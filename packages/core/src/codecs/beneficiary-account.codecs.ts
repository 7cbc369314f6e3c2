/**
 * The beneficiary account object and its `fields` checked against the receiving network's schema
 * (the interface's "Beneficiary account object" and "Beneficiary account fields" errors). The
 * shape is an io-ts codec on the codec toolkit; the schema part needs the network, so it takes a
 * lookup and runs once the whole shape holds.
 *
 * Precedence of the shape, field by field in the table's order (the first broken rule wins):
 *  1. not an object -> `Validation Failed`;
 *  2. network_code: absent or blank -> `network_code required`; not a string -> `Validation Failed`;
 *  3. display_name: an optional label of 1-100 characters, else `Validation Failed`;
 *  4. fields: absent -> `fields required`; not an object -> `Validation Failed`; a present value
 *     that is not a string -> `field <name> invalid`;
 *  5. account_type: an optional label of 1-64 characters, else `Validation Failed`.
 * Then its network: `network not found`, then `checkAccountFields`.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as t from 'io-ts';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import { isEvmAddress, isTronAddress } from './addresses.js';
import { isEmailAddress } from './beneficiary.codecs.js';
import {
  codePointLength,
  decodeWith,
  hasLengthBetween,
  isJsonObject,
  leaf,
  leafFrom,
  presentValue,
  request,
  requiredField,
} from './codec-toolkit.js';

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
const maxAccountFieldLength = 256;

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

/**
 * A merchant-chosen identifier or label (reference, client_request_id, ids, display names): 1 to
 * `max` characters, not blank; `Validation Failed` otherwise.
 */
export const labelLeaf = (name: string, max: number, description?: string) =>
  leaf<string>(
    name,
    (u): u is string => typeof u === 'string' && hasLengthBetween(u, 1, max),
    'validation_failed',
    {
      type: 'string',
      minLength: 1,
      maxLength: max,
      ...(description === undefined ? {} : { description }),
    },
  );

/** Any string (blank is the presence rule's): `Validation Failed` otherwise. */
const NetworkCode = leaf<string>(
  'NetworkCode',
  (u): u is string => typeof u === 'string',
  'validation_failed',
  { type: 'string', description: 'receiving network code (payout-networks lookup), e.g. WALLETA' },
);

type AccountFieldValues = Readonly<Record<string, string>>;

const isAccountFieldValues = (u: unknown): u is AccountFieldValues =>
  isJsonObject(u) && Object.values(u).every((value) => typeof value === 'string');

/**
 * The account's `fields`: an object (`Validation Failed`) whose present values are strings
 * (`field <name> invalid`, the first in the order sent); `null` values are dropped. Which keys and
 * values its network accepts is `checkAccountFields`'s.
 */
const AccountFields = leafFrom<AccountFieldValues>(
  'BeneficiaryAccountFields',
  isAccountFieldValues,
  (u) => {
    if (!isJsonObject(u)) return E.left(payrailError('validation_failed'));
    // Entries, not assignment: a key such as `__proto__` must stay a key (and be refused later).
    const entries = Object.keys(u).flatMap((key): [string, unknown][] => {
      const value = presentValue(u, key);
      return value === undefined ? [] : [[key, value]];
    });
    const broken = entries.find(([, value]) => typeof value !== 'string');
    const texts = entries.flatMap(([key, value]): [string, string][] =>
      typeof value === 'string' ? [[key, value]] : [],
    );
    return broken === undefined
      ? E.right(Object.fromEntries(texts))
      : E.left(payrailError('account_field_invalid', { name: broken[0] }));
  },
  {
    type: 'object',
    additionalProperties: { type: 'string' },
    description: "keys of the network's schema only (walleta_email, walletb_account, address)",
  },
);

/**
 * The account's fields in the table's order, each judged whole (presence, then format) before
 * the next: the format stage of `BeneficiaryAccount` and of the requests that carry one.
 */
export const beneficiaryAccountFields = [
  t.type({
    network_code: requiredField(NetworkCode, payrailError('network_code_required')),
  }),
  t.partial({ display_name: labelLeaf('DisplayName', 100) }),
  t.type({
    fields: requiredField(
      AccountFields,
      payrailError('fields_required'),
      (u) => u === undefined || u === null,
    ),
  }),
  t.partial({ account_type: labelLeaf('AccountType', 64, 'send only the value the service gave') }),
] as const;

/** The beneficiary account's shape, before its network is known (no network lookup). */
export const BeneficiaryAccount = request(
  'BeneficiaryAccount',
  { format: t.intersection([...beneficiaryAccountFields]) },
  payrailError('validation_failed'),
);
export type BeneficiaryAccount = t.TypeOf<typeof BeneficiaryAccount>;

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
export const checkAccountNetwork = <A extends BeneficiaryAccount>(
  account: A,
  lookupNetwork: NetworkLookup,
): E.Either<PayrailError, A> => {
  const schema = lookupNetwork(account.network_code);
  if (schema === undefined) return E.left(payrailError('network_not_found'));
  const fields = checkAccountFields(schema, account.fields);
  return E.isLeft(fields) ? fields : E.right({ ...account, fields: fields.right });
};

/** A beneficiary account from the wire: its shape, then its network's schema. */
export const decodeBeneficiaryAccount = (
  input: unknown,
  options: { readonly lookupNetwork: NetworkLookup },
): E.Either<PayrailError, BeneficiaryAccount> =>
  pipe(
    decodeWith(BeneficiaryAccount)(input),
    E.chain((account) => checkAccountNetwork(account, options.lookupNetwork)),
  );

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
