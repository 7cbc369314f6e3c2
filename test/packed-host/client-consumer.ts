// A merchant's TypeScript service using the SDK, type-checked against the packed .d.ts under
// strict nodenext (test/packed-host.test.mjs): no cast, no `any`. The `@ts-expect-error` lines
// are the type test: if a wrong path, field or key stopped being an error, tsc would fail on
// the unused directive.
import type { IncomingHttpHeaders } from 'node:http';
import {
  type AnswerOf,
  createPayrailClient,
  hasErrorCode,
  isPayrailError,
  type PayrailWebhook,
  verifyWebhook,
} from '@payrail/client';

type Payout = AnswerOf<'get', '/payment/payouts/{payout_id}'>['payout'];

/** @public The merchant's program, exported so that strict tsc neither drops nor flags it. */
export const merchantService = async (apiKey: string): Promise<readonly string[]> => {
  const client = createPayrailClient({ baseUrl: 'https://payrail.example.com', apiKey });
  const seen: string[] = [];
  const body = {
    reference: 'INV-1001',
    currency: 'USD',
    amount: '25.00',
    method_id: 1,
    notify_url: 'https://acme.example/payrail/payouts',
    beneficiary: { name: 'Jane Doe', fields: { payee_id: 'jane01' } },
    beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: 'j@example.com' } },
  } as const;
  try {
    const { payout } = await client.POST('/payment/quickpayout', { body });
    const created: Payout = payout;
    seen.push(created.status, created.execution_status);
    const read = await client.GET('/payment/payouts/{payout_id}', {
      params: { path: { payout_id: payout.payout_id } },
    });
    seen.push(read.payout.review_status);
  } catch (error) {
    if (isPayrailError(error, 'reference_already_exists')) seen.push('repeat');
    if (isPayrailError(error, 'field_required')) seen.push(error.params.field);
    if (hasErrorCode(error, 61)) seen.push(`${error.status} ${error.message}`);
  }
  // @ts-expect-error the admin API is not the merchant's
  await client.GET('/admin/merchants');
  // @ts-expect-error an amount is a decimal string, not a number
  await client.POST('/payment/quickpayout', { body: { ...body, amount: 25 } });
  // @ts-expect-error a status the filter does not know
  await client.GET('/payment/payouts', { params: { query: { status: 'paid' } } });
  for await (const payout of client.paginate('/payment/payouts', {
    params: { query: { status: 'completed', limit: 50 } },
  })) {
    seen.push(payout.payout_id);
  }
  // @ts-expect-error balances are one page, not a paged list
  client.paginate('/payment/balances');
  return seen;
};

/** @public A receiver's handler: the raw body and Node's headers, then the typed event. */
export const onDelivery = async (
  body: Buffer,
  headers: IncomingHttpHeaders,
  secret: string,
): Promise<string> => {
  const delivered: PayrailWebhook = await verifyWebhook(body, headers, secret);
  if (!('event_type' in delivered)) return `verify ${delivered.payout_id}`;
  switch (delivered.event_type) {
    case 'payout.execution.completed':
      return `paid ${delivered.business_id}`;
    // @ts-expect-error not an event payrail sends
    case 'payout.teleported':
      return 'never';
    default:
      return delivered.event_type;
  }
};
