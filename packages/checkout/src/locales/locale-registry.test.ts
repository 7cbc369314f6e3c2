import { describe, expect, it } from 'vitest';
import type { CheckoutLocale } from './checkout-locale.js';
import { en } from './en.js';
import {
  acceptedLanguages,
  checkoutLocales,
  defaultLocale,
  localeServing,
  negotiateLocale,
} from './locale-registry.js';
import { zhCN } from './zh-CN.js';

const tagOf = (locale: CheckoutLocale) => locale.tag;

describe('negotiateLocale', () => {
  it.each([
    ['zh', 'zh-CN'],
    ['zh-CN', 'zh-CN'],
    ['zh-cn', 'zh-CN'],
    ['zh-Hans', 'zh-CN'],
    ['zh-Hans-CN', 'zh-CN'],
    ['zh-SG', 'zh-CN'],
    ['zh-Hans-HK', 'zh-CN'],
    ['en', 'en'],
    ['en-GB', 'en'],
    ['fr-FR', 'en'],
    ['zh-TW', 'en'],
    ['zh-Hant', 'en'],
    ['zh-HK', 'en'],
    ['*', 'en'],
    ['', 'en'],
    ['zhx', 'en'],
    ['garbage;;,', 'en'],
  ])('Accept-Language %j answers %s', (header, tag) => {
    expect(tagOf(negotiateLocale({ acceptLanguage: header }))).toBe(tag);
  });

  it('honours q-values: the most wanted language we speak wins, whatever the order written', () => {
    expect(tagOf(negotiateLocale({ acceptLanguage: 'en;q=0.5, zh-CN;q=0.9' }))).toBe('zh-CN');
    expect(tagOf(negotiateLocale({ acceptLanguage: 'zh-CN;q=0.4, en' }))).toBe('en');
    expect(tagOf(negotiateLocale({ acceptLanguage: 'fr, zh;q=0.8, en;q=0.7' }))).toBe('zh-CN');
    // The header Chromium sends for zh-CN.
    expect(tagOf(negotiateLocale({ acceptLanguage: 'zh-CN,zh;q=0.9' }))).toBe('zh-CN');
    // Traditional Chinese first, then Simplified: the payer's second choice, not English.
    expect(tagOf(negotiateLocale({ acceptLanguage: 'zh-TW, zh-CN;q=0.8, en;q=0.5' }))).toBe(
      'zh-CN',
    );
  });

  it('skips q=0 ("not this one") and malformed q-values; equal q keeps the written order', () => {
    expect(tagOf(negotiateLocale({ acceptLanguage: 'zh;q=0, en;q=0.1' }))).toBe('en');
    expect(tagOf(negotiateLocale({ acceptLanguage: 'zh;q=0' }))).toBe('en');
    expect(tagOf(negotiateLocale({ acceptLanguage: 'zh;q=2, en;q=0.5' }))).toBe('en');
    expect(tagOf(negotiateLocale({ acceptLanguage: 'zh;q=abc' }))).toBe('en');
    expect(tagOf(negotiateLocale({ acceptLanguage: 'zh;q=0.5, en;q=0.5' }))).toBe('zh-CN');
    expect(tagOf(negotiateLocale({ acceptLanguage: 'en;q=0.5, zh;q=0.5' }))).toBe('en');
    expect(tagOf(negotiateLocale({ acceptLanguage: '*;q=0.9, zh;q=0.5' }))).toBe('en');
  });

  it('lets the page’s own ?lang= win over the header, when it names a language we speak', () => {
    expect(tagOf(negotiateLocale({ lang: 'en', acceptLanguage: 'zh-CN' }))).toBe('en');
    expect(tagOf(negotiateLocale({ lang: 'zh-CN', acceptLanguage: 'en' }))).toBe('zh-CN');
    expect(tagOf(negotiateLocale({ lang: 'ZH', acceptLanguage: 'en' }))).toBe('zh-CN');
    expect(tagOf(negotiateLocale({ lang: 'klingon', acceptLanguage: 'zh-CN' }))).toBe('zh-CN');
    expect(tagOf(negotiateLocale({ lang: '<script>', acceptLanguage: undefined }))).toBe('en');
  });

  it('reads the ranges of a header most wanted first', () => {
    expect(acceptedLanguages('da, en-gb;q=0.8, en;q=0.7, *;q=0.1')).toEqual([
      'da',
      'en-gb',
      'en',
      '*',
    ]);
  });
});

/** The `{name}` placeholders of a text, sorted. */
const placeholdersOf = (text: string) =>
  [...text.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]).sort();

describe('the registry', () => {
  it('lists English first, as the default, and each language serves its own tag', () => {
    expect(checkoutLocales.map(tagOf)).toEqual(['en', 'zh-CN']);
    expect(defaultLocale).toBe(en);
    for (const locale of checkoutLocales) expect(localeServing(locale.tag)).toBe(locale);
    expect(new Set(checkoutLocales.map(tagOf)).size).toBe(checkoutLocales.length);
  });

  it.each(checkoutLocales.map((locale) => [locale.tag, locale] as const))(
    '%s translates every text, with the same placeholders as English',
    (_, locale) => {
      for (const [key, english] of Object.entries(en.messages)) {
        const text = locale.messages[key as keyof typeof en.messages];
        expect(text, key).toMatch(/\S/);
        expect(placeholdersOf(text), key).toEqual(placeholdersOf(english));
      }
    },
  );

  it('has Chinese words in the Chinese dictionary (no English left over)', () => {
    const untranslated = Object.entries(zhCN.messages).filter(
      ([key, text]) =>
        !key.startsWith('network.') && key !== 'amount' && !/\p{Script=Han}/u.test(text),
    );
    expect(untranslated).toEqual([]);
  });
});
