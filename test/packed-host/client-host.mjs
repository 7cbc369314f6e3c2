// The packed merchant SDK in plain Node, against a packed payrail in the same process (its HTTP
// app as the client's `fetch`; over a socket it is the same code path): a payout created without
// a client_request_id (the client names it), read back, listed page by page, a refusal read as a
// PayrailError, and a delivery signed as Standard Webhooks signs (node:crypto's HMAC, not the
// SDK's) verified, a tampered copy refused. Run by test/packed-host.test.mjs; prints what it saw.
import { createHmac } from 'node:crypto';
import { createPayrailClient, isPayrailError, verifyWebhook } from '@payrail/client';
import { apiKeyPermissions } from '@payrail/core';
import { createPayrail, orThrow } from '@payrail/server';
import { createMemoryStore } from '@payrail/store-memory';

const payrail = await createPayrail({
  store: createMemoryStore(),
  environment: 'sandbox',
  keySecret: 'a host secret of at least thirty-two bytes',
});
const { merchant } = orThrow(await payrail.admin.createMerchant({ name: 'Acme' }));
const { api_key } = orThrow(
  await payrail.admin.issueApiKey(merchant.account_id, { permissions: [...apiKeyPermissions] }),
);
orThrow(await payrail.admin.credit(merchant.account_id, { currency: 'USD', amount: '100.00' }));

const client = createPayrailClient({
  baseUrl: 'http://payrail.internal',
  apiKey: api_key.token,
  fetch: (request) => payrail.app.fetch(request),
});
const { payout } = await client.POST('/payment/quickpayout', {
  body: {
    reference: 'INV-1001',
    currency: 'USD',
    amount: '25.00',
    method_id: 1,
    notify_url: 'https://acme.example/payrail/payouts',
    beneficiary: { name: 'Jane Doe', fields: { payee_id: 'jane01' } },
    beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: 'j@example.com' } },
  },
});
const named = /^[0-9a-f-]{36}$/.test(payout.client_request_id ?? '') ? 'named' : 'unnamed';
console.log(`payout ${payout.status}, client_request_id ${named} by the client`);
const read = await client.GET('/payment/payouts/{payout_id}', {
  params: { path: { payout_id: payout.payout_id } },
});
console.log(`read back ${read.payout.payout_id === payout.payout_id ? 'the same' : 'another'}`);
const listed = [];
for await (const item of client.paginate('/payment/payouts', { params: { query: { limit: 1 } } })) {
  listed.push(item.payout_id);
}
console.log(`listed ${listed.length} payout page by page`);
try {
  await client.GET('/payment/payouts/{payout_id}', { params: { path: { payout_id: 'po_none' } } });
} catch (error) {
  if (isPayrailError(error, 'payout_not_found')) {
    console.log(`refused ${error.status}/${error.code} ${error.message}`);
  }
}

const key = Buffer.from('a webhook key of thirty-two byte');
const secret = `whsec_${key.toString('base64')}`;
const body = JSON.stringify({
  event_id: 'evt_1',
  event_type: 'payout.review.approved',
  business_type: 'payout',
  business_id: payout.payout_id,
  occurred_at: Math.floor(Date.now() / 1000),
  version: 'v1',
  data: { payout_id: payout.payout_id, status: 'approved' },
});
const timestamp = String(Math.floor(Date.now() / 1000));
const signature = createHmac('sha256', key).update(`evt_1.${timestamp}.${body}`).digest('base64');
const headers = {
  'webhook-id': 'evt_1',
  'webhook-timestamp': timestamp,
  'webhook-signature': `v1,${signature}`,
};
const event = await verifyWebhook(Buffer.from(body), headers, secret);
console.log(`verified ${event.event_type}`);
try {
  await verifyWebhook(body.replace('approved', 'rejected'), headers, secret);
} catch (error) {
  console.log(`tampered: ${error.failure}`);
}
