/**
 * A delivery names the object its event is about (`business_type`, `business_id`), so a payout's
 * callbacks can be listed (`GET /payment/payouts/{payout_id}/deliveries`): `business_id` becomes
 * a filter column with its index. Deliveries already logged take both from their record when it
 * holds them, else from the outbox message they last sent (the outbox keeps its messages), else
 * `null`; their JSONB gets the two fields too, so every record reads with the shape the core
 * declares.
 */
import type { Migration } from './migration.js';

export const deliveryBusinessObject: Migration = {
  id: '0003-delivery-business-object',
  sql: `
ALTER TABLE webhook_deliveries ADD COLUMN business_id TEXT;

UPDATE webhook_deliveries AS delivery
   SET data = delivery.data || jsonb_build_object(
         'business_type', COALESCE(delivery.data->>'business_type', sent.business_type),
         'business_id', COALESCE(delivery.data->>'business_id', sent.business_id))
  FROM webhook_deliveries AS logged
  LEFT JOIN outbox AS sent ON sent.outbox_id = logged.data->>'outbox_id'
 WHERE logged.id = delivery.id;
UPDATE webhook_deliveries SET business_id = data->>'business_id';

CREATE INDEX webhook_deliveries_business_id_idx ON webhook_deliveries (account_id, business_id, created_at, id);
`,
};
