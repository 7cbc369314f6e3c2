import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { toEvmChecksumAddress, toTronAddress } from './addresses.js';
import {
  BeneficiaryAccount,
  checkAccountFields,
  decodeBeneficiaryAccount,
  evmNetworkSchema,
  isValidationRule,
  type NetworkSchema,
  networkLookupOf,
  sandboxNetworkSchemas,
  tronNetworkSchema,
  walletaNetworkSchema,
  walletbNetworkSchema,
} from './beneficiary-account.codecs.js';
import { decodeWith } from './codec-toolkit.js';

const lookupNetwork = networkLookupOf(sandboxNetworkSchemas);
const decode = (input: unknown, lookup = lookupNetwork) =>
  decodeBeneficiaryAccount(input, { lookupNetwork: lookup });
const messageOf = (result: E.Either<{ message: string }, unknown>): string | undefined =>
  E.isLeft(result) ? result.left.message : undefined;

const evm = toEvmChecksumAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed');
const tron = toTronAddress(Uint8Array.from([0x41, ...new Array<number>(19).fill(7), 1]));

const schema = (fields: NetworkSchema['fields']): NetworkSchema => ({ code: 'TEST', fields });
const rule = (validation_rule: string, required = true) =>
  schema([{ field_key: 'value', required, validation_rule }]);
const fieldMessage = (s: NetworkSchema, value: unknown) =>
  messageOf(decode({ network_code: 'TEST', fields: { value } }, () => s));

describe('beneficiary account: shape', () => {
  it('decodes a WALLETA account with its receiving e-mail in walleta_email', () => {
    const account = {
      network_code: 'WALLETA',
      display_name: 'Main wallet',
      fields: { walleta_email: 'ann@example.com' },
      account_type: 'personal',
    };
    expect(decode(account)).toEqual(E.right(account));
  });

  it('"network_code required" when absent, null or blank', () => {
    for (const network_code of [undefined, null, '', '  ']) {
      expect(messageOf(decode({ network_code, fields: {} }))).toBe('network_code required');
    }
  });

  it('"fields required" when the account has no fields object', () => {
    expect(messageOf(decode({ network_code: 'WALLETA' }))).toBe('fields required');
  });

  it('"Validation Failed" for wrong shapes: not an object, non-string code, fields not an object, bad labels', () => {
    for (const input of [
      'WALLETA',
      [],
      { network_code: 7, fields: {} },
      { network_code: 'WALLETA', fields: ['ann@example.com'] },
      { network_code: 'WALLETA', fields: { walleta_email: 'a@b.co' }, display_name: '' },
      {
        network_code: 'WALLETA',
        fields: { walleta_email: 'a@b.co' },
        display_name: 'x'.repeat(101),
      },
      { network_code: 'WALLETA', fields: { walleta_email: 'a@b.co' }, account_type: 3 },
      {
        network_code: 'WALLETA',
        fields: { walleta_email: 'a@b.co' },
        account_type: 'x'.repeat(65),
      },
    ]) {
      expect(messageOf(decode(input)), JSON.stringify(input)).toBe('Validation Failed');
    }
  });

  it('a field value that is not a string is "field <name> invalid"', () => {
    expect(messageOf(decode({ network_code: 'WALLETA', fields: { walleta_email: 42 } }))).toBe(
      'field walleta_email invalid',
    );
  });

  it('the io-ts codec checks the shape without a network', () => {
    const unknownNetwork = { network_code: 'NOPE', fields: { anything: 'x' } };
    expect(decodeWith(BeneficiaryAccount)(unknownNetwork)).toEqual(E.right(unknownNetwork));
    expect(BeneficiaryAccount.is(unknownNetwork)).toBe(true);
  });
});

describe('beneficiary account: against its network schema', () => {
  it('"network not found" when the lookup has no such network', () => {
    expect(messageOf(decode({ network_code: 'WALLETZ', fields: {} }))).toBe('network not found');
    expect(messageOf(decode({ network_code: 'walleta', fields: {} }))).toBe('network not found');
  });

  it('"schema required" when the network has no field schema', () => {
    expect(messageOf(decode({ network_code: 'TEST', fields: {} }, () => schema([])))).toBe(
      'schema required',
    );
  });

  it('"unknown field <name>" for a key outside the schema, before any missing field', () => {
    expect(
      messageOf(decode({ network_code: 'WALLETA', fields: { walleta_emial: 'ann@example.com' } })),
    ).toBe('unknown field walleta_emial');
  });

  it('"field <name> required" for a required field absent, null or empty', () => {
    for (const fields of [{}, { walleta_email: null }, { walleta_email: '' }]) {
      expect(messageOf(decode({ network_code: 'WALLETA', fields }))).toBe(
        'field walleta_email required',
      );
    }
  });

  it('an optional field may be absent or empty; empty is dropped', () => {
    const optional = schema([
      { field_key: 'tag', required: false, validation_rule: 'length:1-5' },
      { field_key: 'id', required: true, validation_rule: '' },
    ]);
    expect(decode({ network_code: 'TEST', fields: { id: 'x', tag: '' } }, () => optional)).toEqual(
      E.right({ network_code: 'TEST', fields: { id: 'x' } }),
    );
    expect(
      messageOf(
        decode({ network_code: 'TEST', fields: { id: 'x', tag: 'toolong' } }, () => optional),
      ),
    ).toBe('field tag invalid: expect length 1-5');
  });

  it('checks schema fields in schema order', () => {
    const two = schema([
      { field_key: 'b', required: true, validation_rule: 'email' },
      { field_key: 'a', required: true, validation_rule: 'email' },
    ]);
    expect(messageOf(checkAccountFields(two, { a: 'bad', b: 'bad' }))).toBe(
      'field b invalid: expect an e-mail address',
    );
    expect(messageOf(checkAccountFields(two, { a: 'bad' }))).toBe('field b required');
  });

  it('WALLETB: "walletb_account must start with $"', () => {
    expect(decode({ network_code: 'WALLETB', fields: { walletb_account: '$ann' } })).toEqual(
      E.right({ network_code: 'WALLETB', fields: { walletb_account: '$ann' } }),
    );
    for (const walletb_account of ['ann', 'ann$', ' $ann']) {
      expect(messageOf(decode({ network_code: 'WALLETB', fields: { walletb_account } }))).toBe(
        'walletb_account must start with $',
      );
    }
    expect(messageOf(decode({ network_code: 'WALLETB', fields: { walletb_account: '$' } }))).toBe(
      'field walletb_account invalid: expect $ followed by at least one character',
    );
  });

  it('walletb_account gets its message whatever its schema rule says', () => {
    const loose = schema([{ field_key: 'walletb_account', required: true, validation_rule: '' }]);
    expect(
      decode({ network_code: 'TEST', fields: { walletb_account: '$x' } }, () => loose),
    ).toEqual(E.right({ network_code: 'TEST', fields: { walletb_account: '$x' } }));
    expect(
      messageOf(decode({ network_code: 'TEST', fields: { walletb_account: 'ann' } }, () => loose)),
    ).toBe('walletb_account must start with $');
  });

  it('EVM: a checksummed, all-lower or all-upper address; "field address invalid: <hint>" otherwise', () => {
    const hint = 'field address invalid: expect 0x + 40 hex with a valid EIP-55 checksum';
    for (const address of [evm, evm.toLowerCase(), `0x${evm.slice(2).toUpperCase()}`]) {
      expect(
        messageOf(decode({ network_code: 'EVM', fields: { address } })),
        address,
      ).toBeUndefined();
    }
    const badChecksum = evm.replace(/[a-f]/, (c) => c.toUpperCase());
    for (const address of [badChecksum, evm.slice(0, 41), `${evm}0`, evm.slice(2), tron]) {
      expect(messageOf(decode({ network_code: 'EVM', fields: { address } })), address).toBe(hint);
    }
  });

  it('TRON: a base58check T-address; "field address invalid: <hint>" otherwise', () => {
    const hint = 'field address invalid: expect a base58check TRON address starting with T';
    expect(messageOf(decode({ network_code: 'TRON', fields: { address: tron } }))).toBeUndefined();
    const lastChanged = tron.slice(0, -1) + (tron.endsWith('a') ? 'b' : 'a');
    for (const address of [lastChanged, tron.slice(1), evm]) {
      expect(messageOf(decode({ network_code: 'TRON', fields: { address } })), address).toBe(hint);
    }
  });

  it('WALLETA: walleta_email must be an e-mail address', () => {
    expect(messageOf(decode({ network_code: 'WALLETA', fields: { walleta_email: 'ann' } }))).toBe(
      'field walleta_email invalid: expect an e-mail address',
    );
  });

  it('any value longer than 256 characters is invalid', () => {
    expect(fieldMessage(rule(''), 'x'.repeat(256))).toBeUndefined();
    expect(fieldMessage(rule(''), 'x'.repeat(257))).toBe(
      'field value invalid: expect at most 256 characters',
    );
  });
});

describe('validation_rule vocabulary', () => {
  it('"" is any non-empty string', () => {
    expect(fieldMessage(rule(''), 'anything')).toBeUndefined();
    expect(fieldMessage(rule(''), '')).toBe('field value required');
  });

  it('prefix:<p> needs the prefix and something after it', () => {
    expect(fieldMessage(rule('prefix:acct-'), 'acct-1')).toBeUndefined();
    expect(fieldMessage(rule('prefix:acct-'), 'acct-')).toBe(
      'field value invalid: expect acct- followed by at least one character',
    );
    expect(fieldMessage(rule('prefix:acct-'), '1-acct-')).toBe(
      'field value invalid: expect acct- followed by at least one character',
    );
  });

  it('regex:<pattern> must match the whole value', () => {
    expect(fieldMessage(rule('regex:[0-9]{4}'), '1234')).toBeUndefined();
    expect(fieldMessage(rule('regex:[0-9]{4}'), '12345')).toBe(
      'field value invalid: expect [0-9]{4}',
    );
    expect(fieldMessage(rule('regex:a|b'), 'ab')).toBe('field value invalid: expect a|b');
    expect(fieldMessage(rule('regex:a|b'), 'b')).toBeUndefined();
  });

  it('length:<min>-<max> counts characters', () => {
    expect(fieldMessage(rule('length:2-3'), '😀😀😀')).toBeUndefined();
    expect(fieldMessage(rule('length:2-3'), 'x')).toBe('field value invalid: expect length 2-3');
    expect(fieldMessage(rule('length:2-3'), 'xxxx')).toBe('field value invalid: expect length 2-3');
  });

  it('isValidationRule accepts the vocabulary and refuses anything else', () => {
    for (const r of [
      '',
      'email',
      'evm_address',
      'tron_address',
      'prefix:$',
      'regex:^\\d+$',
      'length:1-64',
    ]) {
      expect(isValidationRule(r), r).toBe(true);
    }
    for (const r of [
      'iban',
      'prefix:',
      'regex:',
      'regex:(',
      'length:5-1',
      'length:a-b',
      'length:1',
      'EMAIL',
    ]) {
      expect(isValidationRule(r), r).toBe(false);
    }
  });

  it('a stored rule outside the vocabulary fails closed: "field <name> invalid"', () => {
    expect(fieldMessage(rule('iban'), 'DE89370400440532013000')).toBe('field value invalid');
    expect(fieldMessage(rule('regex:('), '(')).toBe('field value invalid');
  });
});

describe('sandbox network schemas', () => {
  it('WALLETA, WALLETB, EVM and TRON, each with one required field and a known rule', () => {
    expect(sandboxNetworkSchemas.map((s) => s.code)).toEqual(['WALLETA', 'WALLETB', 'EVM', 'TRON']);
    expect(walletaNetworkSchema.fields).toEqual([
      { field_key: 'walleta_email', required: true, validation_rule: 'email' },
    ]);
    expect(walletbNetworkSchema.fields).toEqual([
      { field_key: 'walletb_account', required: true, validation_rule: 'prefix:$' },
    ]);
    expect(evmNetworkSchema.fields).toEqual([
      { field_key: 'address', required: true, validation_rule: 'evm_address' },
    ]);
    expect(tronNetworkSchema.fields).toEqual([
      { field_key: 'address', required: true, validation_rule: 'tron_address' },
    ]);
    for (const s of sandboxNetworkSchemas) {
      for (const f of s.fields) expect(isValidationRule(f.validation_rule)).toBe(true);
    }
  });
});
