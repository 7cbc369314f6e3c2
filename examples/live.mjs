// payrail in live, the whole loop on the memory store: nothing of the sandbox is there (no test
// money, no catalogue, no sandbox endpoints), so the host brings its own parts:
// - a payout catalogue (a bank network, a method, a route), created through the admin facade;
// - a custody port that hands out deposit addresses;
// - a chain watcher, registered as an acquiring provider, that signs its reports of payments to
//   them (an HMAC of the raw body with a secret the two share);
// - a bank behind the executor door (examples/shared/fake-bank.mjs).
// A payer pays an order, which funds the merchant; the merchant pays out; the bank completes it.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { apiKeyPermissions, payrailError, toTronAddress } from '@payrail/core';
import { createPayrail, orThrow } from '@payrail/server';
import { createMemoryStore } from '@payrail/store-memory';
import { createFakeBank } from './shared/fake-bank.mjs';

/** Custody: one TRON address per order, derived so that asking again answers the same one. */
const custody = {
  addressFor: async ({ order_id }) => {
    const digest = createHash('sha256').update(`custody:${order_id}`).digest();
    return toTronAddress(Uint8Array.from([0x41, ...digest.subarray(0, 20)]));
  },
};

/** What the chain watcher and payrail share: the watcher signs, the provider verifies. */
const watcherSecret = randomBytes(32);
const signatureOf = (body) => createHmac('sha256', watcherSecret).update(body).digest();

/**
 * The chain watcher's provider: it verifies the signature over the raw body (in constant time)
 * before anything reads it; its payload is already a list of payment events.
 */
const chainWatcher = {
  name: 'fake-chain',
  allowedSources: ['127.0.0.1/32'],
  verify: ({ body, headers }) => {
    const given = Buffer.from(headers['x-chain-signature'] ?? '', 'hex');
    const expected = signatureOf(body);
    return given.length === expected.length && timingSafeEqual(given, expected);
  },
  parse: (body) =>
    Array.isArray(body) && body.length > 0
      ? { _tag: 'Right', right: body }
      : { _tag: 'Left', left: payrailError('empty_upstream_event') },
};

const bank = createFakeBank();
const payrail = await createPayrail({
  store: createMemoryStore(),
  environment: 'live',
  keySecret: 'a live secret of at least 32 bytes, from your vault',
  publicUrl: 'https://pay.example.com',
  executor: bank.executor,
  depositAddresses: custody,
  acquiringProviders: [chainWatcher],
  timerIntervalMs: 100,
  log: (line) => console.log(`payrail: ${line}`),
});
payrail.start();
try {
  // The operator's catalogue: USDT payouts to TRON addresses, 1 USDT a payout.
  const { admin } = payrail;
  orThrow(
    await admin.createPayoutNetwork({
      code: 'TRON',
      name: 'TRON address',
      fields: [{ field_key: 'address', required: true, validation_rule: 'tron_address' }],
      status: 'active',
    }),
  );
  const { payout_method: method } = orThrow(
    await admin.createPayoutMethod({
      name: 'Stablecoin payout',
      currency_type: 'crypto',
      currencies: ['USDT'],
      network_codes: ['TRON'],
      channel_ids: [],
      status: 'active',
    }),
  );
  orThrow(
    await admin.createRoute({
      account_id: null,
      currency: 'USDT',
      method_id: method.method_id,
      channel_id: null,
      min_amount: '1.000000',
      max_amount: '100000.000000',
      fixed_fee: '1.000000',
      percent_fee: '0',
      channel_account_id: 'custody_hot_wallet',
      required_beneficiary_fields: [],
      status: 'active',
    }),
  );

  // A merchant that takes and pays out USDT on TRON, whose payouts need no operator review,
  // with two keys: a batch is approved by another key than the one that created it.
  const { merchant } = orThrow(
    await admin.createMerchant({ name: 'Acme', currencies: ['USD', 'USDT'] }),
  );
  orThrow(
    await admin.updateAccount(merchant.account_id, {
      auto_approve: true,
      enabled_pay_tokens: ['TRON_USDT'],
      default_pay_tokens: ['TRON_USDT'],
    }),
  );
  const keyFor = async (name) => {
    const { api_key } = orThrow(
      await admin.issueApiKey(merchant.account_id, { name, permissions: [...apiKeyPermissions] }),
    );
    return payrail.merchant(orThrow(await payrail.authenticate(api_key.token)));
  };
  const acme = await keyFor('treasury');
  const approver = await keyFor('finance lead');

  // A payer pays an order; the chain watcher reports the confirmed transfer.
  const { webhook } = orThrow(
    await acme.webhooks.create({ url: 'https://example.com/hooks', events: ['acquiring.*'] }),
  );
  const created = orThrow(
    await acme.orders.create({
      out_trade_no: 'ORDER-1',
      order_currency: 'USD',
      order_amount: '20.00',
      expire_seconds: 900,
      underpay_tolerance: '0',
      notify_webhook_id: webhook.webhook_id,
      mode: 'direct',
      network: 'TRON',
      currency: 'USDT',
    }),
  );
  const address = created.payment_address.address;
  console.log(`order ${created.order.order_id}: pay 20 USDT to ${address}`);
  const report = JSON.stringify([
    {
      kind: 'confirmed',
      network: 'TRON',
      payment_id: 'chain-payment-1',
      token_id: 'TRON_USDT',
      address,
      amount: '20.000000',
      tx_hash: 'a1b2c3',
      confirmations: 20,
      required_confirmations: 20,
    },
  ]);
  orThrow(
    await payrail.engine.upstream.receive('fake-chain', {
      ip: '127.0.0.1',
      headers: {
        'content-type': 'application/json',
        'x-chain-signature': signatureOf(report).toString('hex'),
      },
      body: report,
    }),
  );
  const { order } = orThrow(await acme.orders.get(created.order.order_id));
  console.log(`order ${order.order_id}: ${order.status}`);

  // The merchant pays a supplier 12 USDT out of it in a crypto batch; the bank (here, the
  // custody's hot wallet) sends it and reports back through the executor door.
  const { batch } = orThrow(
    await acme.batches.create({
      currency: 'USDT',
      method_id: method.method_id,
      items: [
        {
          order_no: 'SUPPLIER-7',
          amount: '12.000000',
          beneficiary_account: { address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7' },
        },
      ],
    }),
  );
  // The approver approves the batch as it read it: its version (a batch changed since is refused).
  const { batch: read } = orThrow(await approver.batches.get(batch.batch_id));
  orThrow(await approver.batches.approve(batch.batch_id, { version: read.version }));
  const waited = Date.now();
  while (bank.pending.length === 0) {
    if (Date.now() - waited > 10_000) throw new Error('the bank never received the payout');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const [instruction] = bank.pending;
  await bank.settleAll(payrail.executions);
  const settled = orThrow(await acme.payouts.get(instruction.payout_id)).payout;
  console.log(`payout ${settled.payout_id}: ${settled.status}`);

  const [usdt] = orThrow(await acme.accounts.balances({ currency: 'USDT' })).items;
  console.log(`balance USDT: available ${usdt.available}, held ${usdt.held}`);
} finally {
  await payrail.stop();
}
