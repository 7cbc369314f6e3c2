/**
 * Numbers, lists and times in the payer's language, for the parts of the page the server writes.
 * The browser script formats the parts it rewrites the same way (checkout-page.client.js).
 * An amount is a decimal string and stays one: its whole part is formatted as a BigInt and its
 * fraction digit by digit, so no float ever rounds it.
 */

/** A dictionary text with its `{name}` placeholders filled; an unknown one is left as written. */
export const fillText = (template: string, values: Readonly<Record<string, string>>): string =>
  template.replace(/\{([a-z_]+)\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? (values[name] ?? whole) : whole,
  );

const decimalPattern = /^(\d+)(?:\.(\d+))?$/;

/** "1234.500000" -> "1,234.500000" (en), every digit kept; anything else is shown as it is. */
export const formatDecimal = (amount: string, tag: string): string => {
  const match = decimalPattern.exec(amount);
  if (match === null) return amount;
  const [, whole = '0', fraction] = match;
  const numbers = new Intl.NumberFormat(tag, { useGrouping: true });
  const formatted = numbers.format(BigInt(whole));
  if (fraction === undefined) return formatted;
  const separator =
    new Intl.NumberFormat(tag, { minimumFractionDigits: 1 })
      .formatToParts(0.5)
      .find((part) => part.type === 'decimal')?.value ?? '.';
  const digits = fraction.replace(/\d/g, (digit) => numbers.format(Number(digit)));
  return `${formatted}${separator}${digits}`;
};

/** "USDT or USDC" (en), "USDT或USDC" (zh-CN). */
export const formatAlternatives = (items: readonly string[], tag: string): string =>
  new Intl.ListFormat(tag, { type: 'disjunction' }).format(items);

/** The options of the expiry time, here in UTC and in the browser in the payer's own zone. */
const expiryFormat: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
};

export const formatExpiry = (unixSeconds: number, tag: string): string =>
  new Intl.DateTimeFormat(tag, { ...expiryFormat, timeZone: 'UTC' }).format(unixSeconds * 1000);
