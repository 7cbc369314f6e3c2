/**
 * HTML by a tagged template that escapes every interpolated value unless it is already markup,
 * so a merchant's string (out_trade_no, logo_url, redirect_url) can only ever be text.
 */

const markupBrand: unique symbol = Symbol('markup');

export interface Markup {
  readonly [markupBrand]: true;
  readonly html: string;
}

const trusted = (value: string): Markup => ({ [markupBrand]: true, html: value });

const isMarkup = (value: unknown): value is Markup =>
  typeof value === 'object' && value !== null && markupBrand in value;

const entities: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text safe in element content and in a double- or single-quoted attribute. */
export const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (ch) => entities[ch] ?? ch);

export type Interpolation = Markup | string | number | readonly Interpolation[] | null | undefined;

const render = (value: Interpolation): string => {
  if (value === null || value === undefined) return '';
  if (isMarkup(value)) return value.html;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
};

export const html = (strings: TemplateStringsArray, ...values: readonly Interpolation[]): Markup =>
  trusted(strings.reduce((out, part, i) => out + render(values[i - 1] ?? null) + part));

/**
 * A dictionary text as markup: the text is escaped, and each `{name}` placeholder is filled with
 * its value (escaped text, or markup of ours such as an element the script writes into later).
 * A placeholder without a value stays as written.
 */
export const fill = (template: string, values: Readonly<Record<string, Interpolation>>): Markup =>
  trusted(
    template
      .split(/(\{[a-z_]+\})/)
      .map((part, i) => {
        if (i % 2 === 0) return escapeHtml(part);
        const name = part.slice(1, -1);
        return Object.hasOwn(values, name) ? render(values[name]) : escapeHtml(part);
      })
      .join(''),
  );

/**
 * JSON inside `<script type="application/json">`: `<`, `>` and `&` as `\u` escapes, so no value
 * can close the element or open a comment; U+2028/U+2029 too, for older parsers.
 */
export const jsonScriptContent = (value: unknown): Markup =>
  trusted(
    JSON.stringify(value)
      .replace(/</g, '\\u003c')
      .replace(/>/g, '\\u003e')
      .replace(/&/g, '\\u0026')
      .replace(/\u2028/g, '\\u2028')
      .replace(/\u2029/g, '\\u2029'),
  );

/** Source the page ships itself (its stylesheet and script), never a merchant's string. */
export const ownSource = (source: string): Markup => trusted(source);
