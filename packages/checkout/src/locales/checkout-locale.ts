/**
 * What a language of the checkout page is: one dictionary with every key of the English one
 * (`Messages`), and the language ranges it answers in `Accept-Language` and `?lang=`.
 */
import type { Messages } from './en.js';

export type { MessageKey, Messages } from './en.js';

export interface CheckoutLocale {
  /** BCP 47 tag: `<html lang>`, the `lang` query parameter, the locale of every `Intl` format. */
  readonly tag: string;
  /** The language's name in itself, as the language switch shows it. */
  readonly name: string;
  /**
   * Language ranges, lower case, this dictionary answers (RFC 4647 basic filtering: `zh` takes
   * `zh`, `zh-cn`, `zh-hans-sg`, ...).
   */
  readonly serves: readonly string[];
  /** Ranges inside `serves` it must not answer: another script's or region's writing. */
  readonly unless?: readonly string[];
  readonly messages: Messages;
}
