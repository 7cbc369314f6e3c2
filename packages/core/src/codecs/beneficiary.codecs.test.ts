import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import {
  Beneficiary,
  BeneficiaryFields,
  countryCodes,
  isCalendarDate,
  isEmailAddress,
  requireBeneficiaryCreateFields,
  requireBeneficiaryFields,
} from './beneficiary.codecs.js';
import { decodeWith } from './codec-toolkit.js';

const decodeBeneficiary = decodeWith(Beneficiary);
const decodeFields = decodeWith(BeneficiaryFields);

const messageOf = (result: E.Either<{ message: string }, unknown>): string | undefined =>
  E.isLeft(result) ? result.left.message : undefined;

/** The answer for `fields` = a valid profile with `patch` applied. */
const fieldsMessage = (patch: Record<string, unknown>): string | undefined =>
  messageOf(decodeFields({ payee_id: 'abc123', ...patch }));

describe('beneficiary fields: each rule answers its exact message', () => {
  const cases: readonly [
    rule: string,
    valid: readonly unknown[],
    invalid: readonly unknown[],
    message: string,
  ][] = [
    [
      'payee_id',
      ['abc', 'A1b2C3', 'x'.repeat(60)],
      ['ab', 'x'.repeat(61), 'abc-123', 'abc 123', 'jane@example.com', 'ab😀c', 12345, true],
      'fields.payee_id invalid: expect ^[a-zA-Z0-9]{3,60}$',
    ],
    [
      'language',
      ['en', 'ZH', 'pT'],
      ['e', 'eng', 'e1', 'é n', '', 42],
      'fields.language invalid: expect 2 letters',
    ],
    [
      'country',
      ['US', 'GB', 'XK', 'ZW'],
      ['us', 'Us', 'USA', 'XX', 'ZZ', 'U1', '', 1],
      'fields.country invalid: expect ISO-2 uppercase',
    ],
    [
      'phone',
      ['1234', '123456789012', '+1-5551234', '86-13800138000', '+852-12345678'],
      [
        '123',
        '1234567890123',
        '+1234-5678',
        '+-1234',
        '1-123',
        '+1 5551234',
        '(555) 1234',
        '+15551234',
        5551234,
      ],
      'fields.phone invalid: expect ^(\\+?\\d{1,3}-)?\\d{4,12}$',
    ],
    [
      'birthdate',
      ['2024-02-29', '2000-02-29', '1990-12-31', '2023-01-01'],
      [
        '2023-02-29',
        '1900-02-29',
        '2023-04-31',
        '2023-13-01',
        '2023-00-10',
        '2023-01-00',
        '2023-1-5',
        '20230105',
        '05/01/2023',
        '2023-01-05T00:00:00Z',
        20230105,
      ],
      'fields.birthdate invalid: expect yyyy-MM-dd',
    ],
    [
      'email',
      [
        'jane@example.com',
        'j.doe+tag@mail.example.co.uk',
        "o'brien@example.ie",
        'x@xn--p1ai.xn--p1ai',
      ],
      [
        'jane',
        'jane@',
        '@example.com',
        'jane@example',
        'ja ne@example.com',
        'jane..doe@example.com',
        '.jane@example.com',
        'jane@-example.com',
        'jane@example.c',
        'jane@example.123',
        'jané@example.com',
        `${'a'.repeat(65)}@example.com`,
        7,
      ],
      'fields.email invalid',
    ],
    [
      'first_name',
      [
        'Ann',
        "O'Neil",
        'Jean-Luc',
        'Mary Ann',
        'Zoë',
        'Łukasz',
        '李小龍',
        'Jose\u0301',
        'x'.repeat(100),
      ],
      ['Al', 'x'.repeat(101), 'Ann3', 'Ann_B', 'Ann.', "'- '", '   ', '😀😀😀', 5],
      "fields.first_name invalid: length 3-100, letters/'/-/space only",
    ],
    [
      'last_name',
      ['Smith', "D'Angelo", 'García-López'],
      ['Li', 'Sm1th', 'Smith!'],
      "fields.last_name invalid: length 3-100, letters/'/-/space only",
    ],
    [
      'city',
      ['NY', 'São Paulo', 'x'.repeat(120)],
      ['N', 'x'.repeat(121), '  ', 3],
      'fields.city invalid: length 2-120',
    ],
    [
      'state',
      ['CA', 'x'.repeat(60)],
      ['C', 'x'.repeat(61), '   ', 1],
      'fields.state invalid: length 2-60',
    ],
    [
      'address',
      ['1 A', '221B Baker Street', 'x'.repeat(200)],
      ['1A', 'x'.repeat(201), '    ', {}],
      'fields.address invalid: length 3-200',
    ],
  ];

  for (const [rule, valid, invalid, message] of cases) {
    it(`${rule}: accepts ${valid.length} valid values`, () => {
      for (const value of valid)
        expect(fieldsMessage({ [rule]: value }), String(value)).toBeUndefined();
    });
    it(`${rule}: "${message}"`, () => {
      for (const value of invalid)
        expect(fieldsMessage({ [rule]: value }), String(value)).toBe(message);
    });
  }

  it('zip: 3-30 characters, "fields.zip invalid: length 3-30"', () => {
    expect(fieldsMessage({ zip: 'K1A' })).toBeUndefined();
    expect(fieldsMessage({ zip: 'x'.repeat(30) })).toBeUndefined();
    for (const zip of ['12', 'x'.repeat(31), '     ', 12345]) {
      expect(fieldsMessage({ zip })).toBe('fields.zip invalid: length 3-30');
    }
  });

  it('zip: must match the country, "fields.zip invalid for country <country>"', () => {
    expect(fieldsMessage({ country: 'US', zip: '94105' })).toBeUndefined();
    expect(fieldsMessage({ country: 'US', zip: '94105-1234' })).toBeUndefined();
    expect(fieldsMessage({ country: 'GB', zip: 'SW1A 1AA' })).toBeUndefined();
    expect(fieldsMessage({ country: 'US', zip: 'SW1A 1AA' })).toBe(
      'fields.zip invalid for country US',
    );
    expect(fieldsMessage({ country: 'DE', zip: '1234' })).toBe('fields.zip invalid for country DE');
    expect(fieldsMessage({ country: 'JP', zip: '12-34567' })).toBe(
      'fields.zip invalid for country JP',
    );
  });

  it('zip: a country without a known format, or no country, gets the length rule only', () => {
    expect(fieldsMessage({ country: 'KE', zip: 'anything 123' })).toBeUndefined();
    expect(fieldsMessage({ zip: 'SW1A 1AA' })).toBeUndefined();
    expect(fieldsMessage({ zip: 'ab' })).toBe('fields.zip invalid: length 3-30');
    // The length rule comes before the country's format.
    expect(fieldsMessage({ country: 'US', zip: '12' })).toBe('fields.zip invalid: length 3-30');
  });

  it('lengths count characters, not UTF-16 units', () => {
    expect(fieldsMessage({ city: '😀😀' })).toBeUndefined();
    expect(fieldsMessage({ first_name: '李小' })).toBe(
      "fields.first_name invalid: length 3-100, letters/'/-/space only",
    );
  });
});

describe('beneficiary fields: the object', () => {
  it('payee_id is always required: "fields missing required: payee_id"', () => {
    expect(messageOf(decodeFields({}))).toBe('fields missing required: payee_id');
    expect(messageOf(decodeFields({ payee_id: null, country: 'US' }))).toBe(
      'fields missing required: payee_id',
    );
  });

  it('a key outside the table is rejected: "unknown field fields.<key>"', () => {
    expect(messageOf(decodeFields({ payee_id: 'abc', firstname: 'Ann' }))).toBe(
      'unknown field fields.firstname',
    );
  });

  it('null reads as absent, and is dropped from the decoded profile', () => {
    const decoded = decodeFields({ payee_id: 'abc', phone: null, nickname: null });
    expect(decoded).toEqual(E.right({ payee_id: 'abc' }));
  });

  it('standalone: no fields -> "fields required"; not an object -> "Validation Failed"', () => {
    expect(messageOf(decodeFields(undefined))).toBe('fields required');
    expect(messageOf(decodeFields(null))).toBe('fields required');
    expect(messageOf(decodeFields('payee_id=abc'))).toBe('Validation Failed');
    expect(messageOf(decodeFields([]))).toBe('Validation Failed');
  });

  it('checks rules in the table order: payee_id before country before zip', () => {
    expect(messageOf(decodeFields({ zip: '1', country: 'xx', payee_id: '!' }))).toBe(
      'fields.payee_id invalid: expect ^[a-zA-Z0-9]{3,60}$',
    );
    expect(fieldsMessage({ zip: '1', country: 'xx' })).toBe(
      'fields.country invalid: expect ISO-2 uppercase',
    );
  });
});

describe('inline beneficiary {name, fields}', () => {
  const fields = { payee_id: 'abc123' };

  it('decodes name and fields, dropping other keys', () => {
    expect(decodeBeneficiary({ name: 'Ann Lee', fields, note: 'x' })).toEqual(
      E.right({ name: 'Ann Lee', fields }),
    );
  });

  it('"beneficiary.name required" when the name is missing or blank', () => {
    expect(messageOf(decodeBeneficiary({ fields }))).toBe('beneficiary.name required');
    expect(messageOf(decodeBeneficiary({ name: '  ', fields }))).toBe('beneficiary.name required');
  });

  it('a name that is not a string or longer than 200 characters is "Validation Failed"', () => {
    expect(messageOf(decodeBeneficiary({ name: 5, fields }))).toBe('Validation Failed');
    expect(messageOf(decodeBeneficiary({ name: 'x'.repeat(201), fields }))).toBe(
      'Validation Failed',
    );
  });

  it('"beneficiary fields required" when fields are missing', () => {
    expect(messageOf(decodeBeneficiary({ name: 'Ann' }))).toBe('beneficiary fields required');
    expect(messageOf(decodeBeneficiary({ name: 'Ann', fields: null }))).toBe(
      'beneficiary fields required',
    );
  });

  it('a beneficiary that is not an object is "Validation Failed"', () => {
    expect(messageOf(decodeBeneficiary('Ann'))).toBe('Validation Failed');
  });

  it('is() holds only for values that decode to themselves', () => {
    expect(Beneficiary.is({ name: 'Ann', fields })).toBe(true);
    expect(Beneficiary.is({ name: 'Ann', fields: { ...fields, phone: null } })).toBe(false);
    expect(Beneficiary.is({ name: 'Ann', fields: {} })).toBe(false);
  });
});

describe('required profile fields', () => {
  const fields = { payee_id: 'abc', country: 'US' } as const;

  it('payout route: "beneficiary profile incomplete: missing <fields>", in the order given', () => {
    expect(requireBeneficiaryFields(fields, ['country'])).toEqual(E.right(fields));
    expect(
      messageOf(
        requireBeneficiaryFields(fields, ['last_name', 'country', 'first_name', 'last_name']),
      ),
    ).toBe('beneficiary profile incomplete: missing last_name, first_name');
  });

  it('standalone create: "fields missing required: <fields>"', () => {
    expect(requireBeneficiaryCreateFields(fields, [])).toEqual(E.right(fields));
    expect(messageOf(requireBeneficiaryCreateFields(fields, ['email', 'zip']))).toBe(
      'fields missing required: email, zip',
    );
  });
});

describe('helpers', () => {
  it('isCalendarDate knows leap years', () => {
    expect(isCalendarDate('2024-02-29')).toBe(true);
    expect(isCalendarDate('2023-02-29')).toBe(false);
    expect(isCalendarDate('2000-02-29')).toBe(true);
    expect(isCalendarDate('2100-02-29')).toBe(false);
    expect(isCalendarDate('0000-01-01')).toBe(false);
  });

  it('isEmailAddress caps the whole address at 254 characters', () => {
    const domain = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.com`;
    expect(isEmailAddress(`x@${domain}`)).toBe(true);
    expect(isEmailAddress(`xxxxxxxxxxx@${domain}`)).toBe(false);
  });

  it('the country list holds the 249 ISO codes and XK', () => {
    expect(countryCodes.size).toBe(250);
    for (const code of countryCodes) expect(code).toMatch(/^[A-Z]{2}$/);
  });
});
