/**
 * English: the checkout page's words, and the keys every other language translates (a missing
 * or extra key in another dictionary is a compile error). `{name}` marks a value the page fills
 * in: an amount, a currency, a network, a reference; a translation may move it, never drop it.
 */
import type { CheckoutLocale } from './checkout-locale.js';

const messages = {
  'page.title': 'Pay {amount} {currency}',
  'page.order': 'Order {out_trade_no}',
  'page.logo': 'Merchant logo',
  'page.footer': 'Order {order_id} · hosted checkout by payrail',
  'page.noscript': 'This page needs JavaScript to choose a token and to follow your payment.',
  'language.label': 'Language',

  amount: '{amount} {currency}',
  'facts.order_amount': 'Order amount',
  'facts.pay_amount': 'Amount to pay',
  'facts.received': 'Received',
  'facts.due': 'Still due',
  'facts.time_left': 'Time left',
  'facts.expires_at': 'Expires',

  'status.pending': 'Waiting for your payment',
  'status.processing': 'Payment seen on the network',
  'status.confirming': 'Payment received, waiting for confirmations',
  'status.partial_paid': 'Part of the payment has arrived',
  'status.completed': 'Payment complete',
  'status.underpaid': 'The order expired before the full amount arrived',
  'status.expired': 'This order has expired',
  'status.closed': 'This order was closed',

  'detail.pending.choose': 'Choose a currency and network below.',
  'detail.pending.send': 'Send the amount below to the address shown. This page updates by itself.',
  'detail.processing': 'It is being processed. Keep this page open; it updates by itself.',
  'detail.confirming': 'The network is confirming it. This usually takes a few minutes.',
  'detail.partial_paid':
    'Still due: {amount} {currency}. Send it to the same address before the time runs out.',
  'detail.completed': 'Thank you. The merchant has received your payment.',
  'detail.underpaid':
    'Received {paid} of {due} {currency}. Contact the merchant about the amount paid.',
  'detail.expired':
    "Do not send anything to this order's address. Ask the merchant for a new order.",
  'detail.closed': 'The merchant closed this order. Do not send a payment.',

  'warning.overpaid':
    'You paid {amount} {currency} more than the order asked for. Contact the merchant about the difference.',
  'warning.expiring':
    'Less than {minutes} minutes left. A payment that arrives after the order expires has to be settled with the merchant.',

  'refund.title': 'Refunds to you, asked for or sent: {amount} {currency}',
  'refund.line': '{amount} {currency}: {status}',
  'refund.status.requested': 'requested',
  'refund.status.approved': 'approved, about to be sent',
  'refund.status.processing': 'on its way',
  'refund.status.completed': 'sent',
  'refund.status.failed': 'failed; contact the merchant',
  'refund.status.rejected': 'declined',

  'choose.title': 'Choose what to pay with',
  'choose.option': '{currency} on {network}',
  'choose.error.final': 'This order can no longer be paid.',
  'choose.error.retry': 'That did not work. Please try again.',

  'pay.title': 'Send {amount} {currency} on {network}',
  'pay.qr': 'QR code of the deposit address',
  'pay.address': 'Deposit address',
  'pay.copy': 'Copy',
  'pay.copied': 'Address copied.',
  'pay.copy_failed': 'Select the address and copy it.',
  'pay.warning':
    'Send only {currency} on {network} to this address. Another token, or {currency} on another network, cannot be credited.',
  'pay.change': 'Choose another token',

  'done.return': 'Return to the merchant',
  'done.redirecting': 'Taking you back to the merchant in {seconds} seconds.',

  'network.TRON': 'TRON (TRC-20)',
  'network.ETH': 'Ethereum (ERC-20)',
  'network.BSC': 'BNB Smart Chain (BEP-20)',
  'network.MATIC': 'Polygon',
  'network.ARBITRUM': 'Arbitrum One',
  'network.BASE': 'Base',
  'network.SOL': 'Solana',

  'message.reference': 'Reference for the merchant: {message}',
  'message.order_not_found.title': 'Order not found',
  'message.order_not_found.explanation':
    'Check the link you were given, or ask the merchant for a new one.',
  'message.checkout_url_not_found.title': 'No checkout page for this order',
  'message.checkout_url_not_found.explanation':
    'The merchant gave this order a payment address directly; pay as they told you.',
  'message.no_address.title': 'No payment address yet',
  'message.no_address.explanation': 'Choose what to pay with on the checkout page first.',
  'message.failure.title': 'Something went wrong',
  'message.failure.explanation':
    'The checkout could not be shown right now. Please try again in a moment.',
} as const;

export type MessageKey = keyof typeof messages;
/** A dictionary: a text for every key of the English one. */
export type Messages = { readonly [K in MessageKey]: string };

export const en: CheckoutLocale = {
  tag: 'en',
  name: 'English',
  serves: ['en'],
  messages,
};
