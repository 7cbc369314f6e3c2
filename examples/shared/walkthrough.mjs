// The walkthrough every embedding example runs: a merchant and its key, a payout completed by a
// fake bank through the executor door, an order paid in the sandbox, the balance and the ledger
// that explains it, and the webhooks a receiver on this machine got. It takes the store the
// example opened, so the same program runs on memory, PGlite and PostgreSQL.
import { createServer } from 'node:http';
import { apiKeyPermissions } from '@payrail/core';
import { createPayrail, orThrow } from '@payrail/server';
import { createFakeBank } from './fake-bank.mjs';

/** A webhook receiver on 127.0.0.1: every body it gets, parsed. */
const startReceiver = async () => {
  const received = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ id: request.headers['webhook-id'], body: JSON.parse(body) });
      response.writeHead(200, { 'content-type': 'application/json' });
      // A payout's verification request is answered here too: this merchant approves.
      response.end(JSON.stringify({ verified: true }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
};

const waitFor = async (what, check, timeoutMs = 15_000) => {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/**
 * Runs the walkthrough on `store` and answers what a host would check: the payout's status,
 * the USD balance, the ledger records, and the webhook event types received.
 */
export const runWalkthrough = async (store, log = console.log) => {
  const receiver = await startReceiver();
  const bank = createFakeBank();
  const payrail = await createPayrail({
    store,
    environment: 'sandbox',
    keySecret: 'an example secret of at least 32 bytes, never this one',
    executor: bank.executor,
    // The receiver listens on http://127.0.0.1: the sandbox may call it.
    allowInsecureWebhooks: true,
    timerIntervalMs: 100,
    dispatchIntervalMs: 100,
    log: (line) => log(`payrail: ${line}`),
  });
  payrail.start();
  try {
    // The operator's side: a merchant, an API key, test money.
    const { merchant } = orThrow(await payrail.admin.createMerchant({ name: 'Acme' }));
    const { api_key } = orThrow(
      await payrail.admin.issueApiKey(merchant.account_id, { permissions: [...apiKeyPermissions] }),
    );
    orThrow(await payrail.admin.credit(merchant.account_id, { currency: 'USD', amount: '100.00' }));
    log(`merchant ${merchant.merchant_id}, account ${merchant.account_id}`);

    // The merchant's side, authenticated by its key as the HTTP API would.
    const acme = payrail.merchant(orThrow(await payrail.authenticate(api_key.token)));

    const { payout } = orThrow(
      await acme.payouts.create({
        client_request_id: 'example-1',
        reference: 'INV-1001',
        currency: 'USD',
        amount: '25.00',
        method_id: 1,
        notify_url: `${receiver.url}/payouts`,
        beneficiary: { name: 'Jane Doe', fields: { payee_id: 'jane01' } },
        beneficiary_account: {
          network_code: 'WALLETA',
          fields: { walleta_email: 'jane@example.com' },
        },
      }),
    );
    log(`payout ${payout.payout_id}: ${payout.status}`);
    orThrow(await payrail.admin.reviewPayout(payout.payout_id, { action: 'approve' }));

    // The timer loop hands the approved payout to the bank; the bank reports back.
    await waitFor('the bank to receive the payout', () => bank.pending.length > 0);
    await bank.settleAll(payrail.executions);
    const settled = orThrow(await acme.payouts.get(payout.payout_id)).payout;
    log(`payout ${settled.payout_id}: ${settled.status}`);

    const { webhook } = orThrow(
      await acme.webhooks.create({ url: `${receiver.url}/hooks`, events: ['acquiring.*'] }),
    );
    const { order } = orThrow(
      await acme.orders.create({
        out_trade_no: 'ORDER-1001',
        order_currency: 'USD',
        order_amount: '10.00',
        expire_seconds: 600,
        underpay_tolerance: '0',
        notify_webhook_id: webhook.webhook_id,
      }),
    );
    orThrow(
      await payrail.admin.sandboxPayment(order.order_id, {
        token_id: 'TRON_USDT',
        amount: '10.000000',
        status: 'confirmed',
        tx_hash: '0xfeed',
      }),
    );
    const paid = orThrow(await acme.orders.get(order.order_id)).order;
    log(`order ${paid.order_id}: ${paid.status}`);

    const { items: balances } = orThrow(await acme.accounts.balances({ currency: 'USD' }));
    const usd = balances[0];
    log(`balance USD: available ${usd.available}, held ${usd.held}`);
    const ledger = orThrow(await acme.accounts.ledger({ currency: 'USD', sort_order: 'asc' }));
    // One record per balance a movement touched: signed, with that balance after it.
    for (const record of ledger.items) {
      log(
        `  ledger ${record.record_type} ${record.bucket} ${record.amount} -> ${record.balance_after}`,
      );
    }

    await waitFor(
      'the webhooks',
      () =>
        receiver.received.some((m) => m.body.event_type === 'payout.execution.completed') &&
        receiver.received.some((m) => m.body.event_type === 'acquiring.order.updated'),
    );
    const events = receiver.received.map((message) => message.body.event_type);
    log(`webhooks received: ${events.join(', ')}`);
    return {
      payoutStatus: settled.status,
      orderStatus: paid.status,
      balance: usd,
      ledger: ledger.items,
      events,
    };
  } finally {
    await payrail.stop();
    await receiver.close();
  }
};
