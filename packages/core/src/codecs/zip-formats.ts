/**
 * Postal code formats by country, for the beneficiary rule "zip must match the country's format"
 * (`fields.zip invalid for country <country>`). One table, so adding a country is one line; a
 * country that is not in it gets the 3-30 length rule only. Letters match in either case and one
 * separating space or hyphen is optional where the national format has one, because merchants
 * copy zips from forms that normalise them differently.
 */

/** Country (ISO-2) -> the whole-string format of its postal codes. */
export const zipFormats: Readonly<Record<string, RegExp>> = {
  AT: /^\d{4}$/,
  AU: /^\d{4}$/,
  BE: /^\d{4}$/,
  BR: /^\d{5}-?\d{3}$/,
  CA: /^[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z] ?\d[ABCEGHJ-NPRSTV-Z]\d$/i,
  CH: /^\d{4}$/,
  CN: /^\d{6}$/,
  DE: /^\d{5}$/,
  DK: /^\d{4}$/,
  ES: /^(?:0[1-9]|[1-4]\d|5[0-2])\d{3}$/,
  FI: /^\d{5}$/,
  FR: /^\d{5}$/,
  GB: /^(?:[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}|GIR ?0AA)$/i,
  IN: /^[1-9]\d{2} ?\d{3}$/,
  IT: /^\d{5}$/,
  JP: /^\d{3}-?\d{4}$/,
  KR: /^\d{5}$/,
  MX: /^\d{5}$/,
  NL: /^[1-9]\d{3} ?[A-Z]{2}$/i,
  NO: /^\d{4}$/,
  NZ: /^\d{4}$/,
  PL: /^\d{2}-\d{3}$/,
  PT: /^\d{4}-\d{3}$/,
  RU: /^\d{6}$/,
  SE: /^\d{3} ?\d{2}$/,
  SG: /^\d{6}$/,
  US: /^\d{5}(?:-\d{4})?$/,
};

/** Whether `zip` fits `country`'s format; true for a country without a known format. */
export const zipMatchesCountry = (zip: string, country: string): boolean => {
  const format = Object.hasOwn(zipFormats, country) ? zipFormats[country] : undefined;
  return format === undefined || format.test(zip);
};
