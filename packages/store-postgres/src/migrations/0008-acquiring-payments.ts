/**
 * Acquiring payments (issue 20): a provider's payment id bound to the order that saw it first,
 * a collection of its own instead of rows of `idempotency_keys` under the scope
 * `acquiring.payment_id` (whose `resource_id` held the order). The bindings already made move
 * over, each with its order's account, and leave the idempotency keys to client request ids.
 * Run it with every older payrail stopped: an older instance would go on binding payment ids as
 * idempotency keys, which this version no longer reads (docs/storage.md, upgrades).
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

-- One statement, so a binding committed while it runs is either moved or left, never dropped;
-- a binding whose order is gone stays where it was (nothing could use it).
WITH moved AS (
  DELETE FROM idempotency_keys k
   USING acquiring_orders o
   WHERE k.scope = 'acquiring.payment_id' AND o.id = k.resource_id
  RETURNING k.key, o.account_id, k.resource_id AS order_id, k.created_at)
INSERT INTO acquiring_payments (id, account_id, order_id, created_at, updated_at, version, data)
SELECT key, account_id, order_id, created_at, created_at, 1,
       jsonb_build_object(
         'payment_id', key, 'account_id', account_id, 'order_id', order_id,
         'created_at', created_at, 'updated_at', created_at, 'version', 1)
  FROM moved;
`,
};
