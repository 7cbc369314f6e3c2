/**
 * Acquiring refunds (issue 21, ADR 0044): a refund of an order's pay-in, its machine snapshot in
 * `data` beside the order and status columns its lists filter on, and the merchant's
 * `client_refund_id`, unique per account. A new table only: nothing that
 * exists changes, so an older payrail keeps running beside this version (it never reads it).
 */
import { collectionTable } from './collection-table.js';
import type { Migration } from './migration.js';

export const acquiringRefundsMigration: Migration = {
  id: '0009-acquiring-refunds',
  sql: collectionTable({
    collection: 'acquiringRefunds',
    table: 'acquiring_refunds',
    id: 'refund_id',
    scope: 'account_id',
    columns: ['account_id', 'order_id', 'status', 'client_refund_id'],
    unique: [['account_id', 'client_refund_id']],
    filters: ['order_id', 'status'],
  }),
};
