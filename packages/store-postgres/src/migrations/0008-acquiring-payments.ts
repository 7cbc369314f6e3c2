/**
 * Acquiring payments (issue 20): a provider's payment id bound to the order that saw it first,
 * a collection of its own instead of rows of `idempotency_keys` under the scope
 * `acquiring.payment_id` (whose `resource_id` held the order). The bindings already made move
 * over, each with its order's account, and leave the idempotency keys to client request ids.
 */
import { collectionTable } from './collection-table.js';
import type { Migration } from './migration.js';

const acquiringPayments = collectionTable({
  collection: 'acquiringPayments',
  table: 'acquiring_payments',
  id: 'payment_id',
  scope: 'account_id',
  columns: ['account_id', 'order_id'],
  filters: ['order_id'],
});

export const acquiringPaymentsMigration: Migration = {
  id: '0008-acquiring-payments',
  sql: `
${acquiringPayments}

INSERT INTO acquiring_payments (id, account_id, order_id, created_at, updated_at, version, data)
SELECT k.key, o.account_id, k.resource_id, k.created_at, k.created_at, 1,
       jsonb_build_object(
         'payment_id', k.key, 'account_id', o.account_id, 'order_id', k.resource_id,
         'created_at', k.created_at, 'updated_at', k.created_at, 'version', 1)
  FROM idempotency_keys k
  JOIN acquiring_orders o ON o.id = k.resource_id
 WHERE k.scope = 'acquiring.payment_id';

DELETE FROM idempotency_keys WHERE scope = 'acquiring.payment_id';
`,
};
