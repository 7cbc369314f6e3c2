import { describe, expect, it } from 'vitest';
import { zipFormats, zipMatchesCountry } from './zip-formats.js';

const examples: Readonly<Record<string, { valid: readonly string[]; invalid: readonly string[] }>> =
  {
    US: { valid: ['94105', '94105-1234'], invalid: ['9410', '941051234', '94105-12', 'ABCDE'] },
    GB: {
      valid: ['SW1A 1AA', 'sw1a1aa', 'M1 1AE', 'B33 8TH', 'CR2 6XH', 'DN55 1PT', 'GIR 0AA'],
      invalid: ['SW1A 1A', '12345', 'SW1A  1AA', 'Q'],
    },
    CA: {
      valid: ['K1A 0B1', 'k1a0b1', 'H0H 0H0'],
      invalid: ['D1A 0B1', 'K1A 0D1', '12345', 'K1A-0B1'],
    },
    DE: { valid: ['10115', '01067'], invalid: ['1011', '101155', '1011A'] },
    FR: { valid: ['75008', '20000'], invalid: ['7500', '750088', '2A000'] },
    NL: { valid: ['1012 AB', '1012ab'], invalid: ['0123 AB', '1012', '1012 A', '1012-AB'] },
    CN: { valid: ['100000'], invalid: ['10000', '1000000'] },
    JP: { valid: ['100-0001', '1000001'], invalid: ['100-001', '10-00001', '1000-001'] },
    IN: { valid: ['110001', '110 001'], invalid: ['011001', '11001', '1100011'] },
    BR: { valid: ['01310-100', '01310100'], invalid: ['01310-10', '0131-0100'] },
    AU: { valid: ['2000', '0800'], invalid: ['200', '20000', 'A000'] },
  };

describe('zip formats', () => {
  it('covers at least the countries the interface names as examples', () => {
    for (const country of ['US', 'GB', 'CA', 'DE', 'FR', 'NL', 'CN', 'JP', 'IN', 'BR', 'AU']) {
      expect(zipFormats[country], country).toBeInstanceOf(RegExp);
    }
  });

  for (const [country, { valid, invalid }] of Object.entries(examples)) {
    it(`${country}: accepts ${valid.join(', ')}; refuses ${invalid.join(', ')}`, () => {
      for (const zip of valid) expect(zipMatchesCountry(zip, country), zip).toBe(true);
      for (const zip of invalid) expect(zipMatchesCountry(zip, country), zip).toBe(false);
    });
  }

  it('a country without a format accepts any zip (the length rule lives in the codec)', () => {
    expect(zipMatchesCountry('anything at all', 'KE')).toBe(true);
    expect(zipMatchesCountry('x', 'toString')).toBe(true);
  });

  it('formats match whole strings, never a part of one', () => {
    for (const [country, format] of Object.entries(zipFormats)) {
      expect(format.global, country).toBe(false);
      expect(format.source.startsWith('^') && format.source.endsWith('$'), country).toBe(true);
    }
  });
});
