/**
 * The answers of crypto mass payout (docs/spec/decisions.md §6): a batch (the core's `cryptoBatchView`, plus
 * the notify_url it was created with) and the rows of its items.
 */
import * as t from 'io-ts';
import { cryptoCurrencies } from '../money/money.js';
import { DecimalString, oneOf, UnixSeconds, WholeNumber } from './common-answers.codecs.js';
import { cryptoNetworkCodes } from './crypto-batch.codecs.js';

const CryptoCurrencyCode = oneOf('CryptoCurrency', cryptoCurrencies);

/** `data.batch`: approval and submission fields appear once they happen. */
export const BatchView = t.exact(
  t.intersection([
    t.type({
      batch_id: t.string,
      status: t.keyof({ draft: null, approved: null, submitted: null }),
      currency: CryptoCurrencyCode,
      method_id: WholeNumber,
      item_count: WholeNumber,
      total_amount: DecimalString,
      submit_on_approve: t.boolean,
      created_by_key_id: t.string,
      /** Bumped by every change; an approval names it (`POST .../approve {version}`). */
      version: WholeNumber,
      created_at: UnixSeconds,
      updated_at: UnixSeconds,
    }),
    t.partial({
      approved_by_key_id: t.string,
      approved_at: UnixSeconds,
      submitted_by_key_id: t.string,
      submitted_at: UnixSeconds,
      /** When the batch was created with one. */
      notify_url: t.string,
    }),
  ]),
);
export type BatchView = t.TypeOf<typeof BatchView>;

/** The receiving account of an item, its network sent or inferred. */
const BatchItemAccountView = t.exact(
  t.intersection([
    t.type({ address: t.string, network_code: oneOf('CryptoNetworkCode', cryptoNetworkCodes) }),
    t.partial({ display_name: t.string }),
  ]),
);

/** One row of `GET .../batches/{batch_id}/items`; `payout_id` once the batch is submitted. */
export const BatchItemView = t.exact(
  t.intersection([
    t.type({
      batch_id: t.string,
      order_no: t.string,
      currency: CryptoCurrencyCode,
      amount: DecimalString,
      beneficiary_account: BatchItemAccountView,
      status: t.keyof({ pending: null, submitted: null }),
      created_at: UnixSeconds,
    }),
    t.partial({ payout_id: t.string }),
  ]),
);
export type BatchItemView = t.TypeOf<typeof BatchItemView>;
