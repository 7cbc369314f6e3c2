/**
 * The languages of the checkout page, and which one a request gets. Adding a language is one
 * dictionary file beside en.ts and one line in `checkoutLocales`.
 */
import type { CheckoutLocale } from './checkout-locale.js';
import { en } from './en.js';
import { zhCN } from './zh-CN.js';

/** Every language the page speaks, in the order the language switch lists them. */
export const checkoutLocales: readonly CheckoutLocale[] = [en, zhCN];

/** What a payer gets when nothing they ask for is here. */
export const defaultLocale: CheckoutLocale = en;

/** RFC 4647 basic filtering: `zh` matches `zh` and `zh-cn`, not `zhx`. */
const rangeMatches = (range: string, tag: string): boolean =>
  tag === range || tag.startsWith(`${range}-`);

/** The language serving a tag (`zh-Hans-SG`, `EN-us`), if any; case does not matter. */
export const localeServing = (tag: string): CheckoutLocale | undefined => {
  const wanted = tag.trim().toLowerCase();
  if (!/^[a-z]{1,8}(-[a-z0-9]{1,8})*$/.test(wanted)) return undefined;
  return checkoutLocales.find(
    (locale) =>
      locale.serves.some((range) => rangeMatches(range, wanted)) &&
      !(locale.unless ?? []).some((range) => rangeMatches(range, wanted)),
  );
};

interface Preference {
  readonly range: string;
  readonly q: number;
}

const qualityOf = (parameters: readonly string[]): number => {
  for (const parameter of parameters) {
    const [name, value] = parameter.split('=').map((part) => part.trim());
    if (name?.toLowerCase() !== 'q') continue;
    return value !== undefined && /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value) ? Number(value) : 0;
  }
  return 1;
};

/**
 * The ranges of an `Accept-Language` header, most wanted first (by q, then as written); a range
 * with q=0 ("not this one") or a malformed q is left out.
 */
export const acceptedLanguages = (header: string): readonly string[] =>
  header
    .split(',')
    .map((entry): Preference => {
      const [range = '', ...parameters] = entry.split(';');
      return { range: range.trim(), q: qualityOf(parameters) };
    })
    .filter((preference) => preference.range !== '' && preference.q > 0)
    .sort((a, b) => b.q - a.q)
    .map((preference) => preference.range);

/**
 * The payer's language: the page's own `?lang=` (the switch sets it) when it names one of ours,
 * else the first `Accept-Language` range one of ours serves (`*` takes the default), else English.
 */
export const negotiateLocale = (request: {
  readonly lang?: string | undefined;
  readonly acceptLanguage?: string | undefined;
}): CheckoutLocale => {
  const chosen = request.lang === undefined ? undefined : localeServing(request.lang);
  if (chosen !== undefined) return chosen;
  for (const range of acceptedLanguages(request.acceptLanguage ?? '')) {
    if (range === '*') return defaultLocale;
    const locale = localeServing(range);
    if (locale !== undefined) return locale;
  }
  return defaultLocale;
};
