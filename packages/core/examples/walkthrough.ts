/**
 * `pnpm start` until the server exists: a payout and an acquiring order walk through the core's
 * machines, and every state and effect is printed. Nothing here touches a store or the network;
 * the ledger is a list of journals in memory, as the engine would post them.
 */
import type { AnyStateMachine, EventFromLogic, SnapshotFrom } from 'xstate';
import {
  type AcquiringOrderEvent,
  acquiringOrderMachine,
  balancesOf,
  decide,
  depositJournal,
  type Effect,
  eventIdOf,
  type Journal,
  money,
  orderStatusOf,
  type PayoutEvent,
  payoutMachine,
  payoutStatePairOf,
  start,
  toTronAddress,
} from '../src/index.js';

const journals: Journal[] = [];
let clock = 1_767_225_600; // 2026-01-01T00:00:00Z
const tick = (seconds: number): number => {
  clock += seconds;
  return clock;
};

const describeEffect = (effect: Effect): string => {
  switch (effect.type) {
    case 'emit':
      return `emit     ${effect.event.eventType} (${eventIdOf(effect.event)})`;
    case 'post':
      return `post     ${effect.journal.recordType} ${effect.journal.amount} ${effect.journal.currency}`;
    case 'setTimer':
      return `setTimer ${effect.timer} at ${new Date(effect.dueAt * 1000).toISOString()}`;
    case 'clearTimer':
      return `clear    ${effect.timer}`;
    case 'requestExecution':
      return `execute  ${effect.payoutId}`;
  }
};

const show = (label: string, state: string, effects: readonly Effect[]): void => {
  process.stdout.write(`\n${label}\n  state    ${state}\n`);
  for (const effect of effects) {
    process.stdout.write(`  ${describeEffect(effect)}\n`);
    if (effect.type === 'post') journals.push(effect.journal);
  }
};

const walk = <M extends AnyStateMachine>(
  machine: M,
  first: SnapshotFrom<M>,
  stateOf: (snapshot: SnapshotFrom<M>) => string,
  steps: readonly { readonly label: string; readonly event: () => EventFromLogic<M> }[],
): SnapshotFrom<M> => {
  let snapshot = first;
  for (const { label, event } of steps) {
    const decision = decide(machine, snapshot, event());
    show(label, stateOf(decision.snapshot), decision.effects);
    snapshot = decision.snapshot;
  }
  return snapshot;
};

const accountId = 'acc_demo';
const availableUsd = (): string =>
  balancesOf(
    accountId,
    journals.flatMap((j) => j.postings),
  ).find((b) => b.currency === 'USD')?.available ?? '0.00';

process.stdout.write('payrail walkthrough: the core decides, and returns its effects as data.\n');

// A merchant funds its USD balance.
const deposit = depositJournal({ accountId, businessId: 'dep_1' }, money('USD', '500.00'));
show('deposit 500.00 USD', 'balance credited', [{ type: 'post', journal: deposit }]);

// ─── A payout: created, submitted, approved by an operator, executed ─────────────────────────
const payoutEvents: { label: string; event: () => PayoutEvent }[] = [
  // Events that move money carry the account's status and, for execution, its balance.
  {
    label: 'operator approves',
    event: () => ({ type: 'payout.review.approve', at: tick(60), account_status: 'active' }),
  },
  {
    label: 'executor starts the payout',
    event: () => ({
      type: 'payout.execution.processing',
      at: tick(5),
      available: availableUsd(),
      account_status: 'active',
    }),
  },
  {
    label: 'executor reports success',
    event: () => ({
      type: 'payout.execution.completed',
      at: tick(30),
      available: availableUsd(),
      account_status: 'active',
    }),
  },
];
const created = start(payoutMachine, {
  payout_id: 'po_demo',
  account_id: accountId,
  reference: 'INV-1001',
  client_request_id: 'req-1001',
  currency: 'USD',
  amount: '120.00',
  fee: '2.30',
  fee_bearer: 'merchant',
  notify_url: 'https://merchant.example/payrail/callbacks',
  beneficiary_id: 'ben_demo',
  beneficiary_account_id: 'bacc_demo',
  verification_enabled: false,
  auto_approve: false,
  verification: {
    beneficiary_name: 'Ada Lovelace',
    network_code: 'WALLETA',
    account_type: null,
    beneficiary_account: {
      network_code: 'WALLETA',
      display_name: 'Ada',
      fields_masked: { walleta_email: 'a***@example.com' },
    },
  },
  submit: true,
  at: tick(0),
});
const pairOf = (s: SnapshotFrom<typeof payoutMachine>): string => {
  const pair = payoutStatePairOf(s);
  return `${pair.review_status} / ${pair.execution_status}`;
};
show('payout created with submit=true', pairOf(created.snapshot), created.effects);
walk(payoutMachine, created.snapshot, pairOf, payoutEvents);
process.stdout.write(`\n  USD available after the payout: ${availableUsd()}\n`);

// ─── An acquiring order: paid in two parts on TRON ──────────────────────────────────────────
const address = toTronAddress(Uint8Array.from([0x41, ...new Array<number>(20).fill(7)]));
const orderStart = start(acquiringOrderMachine, {
  order_id: 'ord_demo',
  platform_order_no: 'P-0001',
  out_trade_no: 'SHOP-42',
  account_id: accountId,
  order_currency: 'USD',
  order_amount: '50.00',
  pay_amount: '50.000000',
  allowed_pay_currencies: ['TRON_USDT', 'ETH_USDC'],
  underpay_tolerance: '0.100000',
  expire_time: clock + 1800,
  notify_webhook_id: 'wh_demo',
  checkout_type: 'hosted',
  mode: 'checkout',
  at: tick(10),
});
const orderState = (s: SnapshotFrom<typeof acquiringOrderMachine>): string =>
  orderStatusOf(s.context);
show('order created', orderState(orderStart.snapshot), orderStart.effects);
const payment = (
  id: string,
  kind: 'detected' | 'confirmed',
  amount: string,
  confirmations: number,
) =>
  ({
    type: 'acquiring.payment.observed',
    at: tick(20),
    payment: {
      kind,
      payment_id: id,
      token_id: 'TRON_USDT',
      address,
      amount,
      tx_hash: `0x${id.padEnd(64, '0')}`,
      confirmations,
      required_confirmations: 19,
    },
  }) as const satisfies AcquiringOrderEvent;
const orderSteps: { label: string; event: () => AcquiringOrderEvent }[] = [
  {
    label: 'payer picks TRON_USDT',
    event: () => ({
      type: 'acquiring.order.select_token',
      token_id: 'TRON_USDT',
      address,
      at: tick(30),
    }),
  },
  { label: 'first transfer seen', event: () => payment('pay1', 'detected', '30.000000', 1) },
  { label: 'first transfer confirmed', event: () => payment('pay1', 'confirmed', '30.000000', 19) },
  {
    label: 'second transfer confirmed (within tolerance)',
    event: () => payment('pay2', 'confirmed', '19.950000', 19),
  },
];
walk(acquiringOrderMachine, orderStart.snapshot, orderState, orderSteps);

process.stdout.write('\nbalances derived from the ledger:\n');
for (const b of balancesOf(
  accountId,
  journals.flatMap((j) => j.postings),
)) {
  process.stdout.write(`  ${b.currency.padEnd(5)} available ${b.available}  held ${b.held}\n`);
}
