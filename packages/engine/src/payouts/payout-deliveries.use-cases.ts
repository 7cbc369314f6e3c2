/**
 * `GET /payment/payouts/{payout_id}/deliveries`: the payout's callbacks to its notify_url from
 * the delivery log (result events and verification requests), newest first, in the view of the
 * webhook deliveries list, so a merchant finds the `delivery_id` to redeliver
 * (`POST /payment/webhook-deliveries/{delivery_id}/redeliver`). Read like the payout itself:
 * `payment.payout.read`, an active account with payouts, and `payout not found` for another
 * merchant's payout.
 */
import { decodeWith, PageQuery, payrailError } from '@payrail/core';
import { deliveryView } from '../access/access.views.js';
import { merchantRead } from '../access/caller-account.store.js';
import { pageView } from '../access/list-pages.views.js';
import { orRefuse, refuse } from '../command/command.handler.js';
import type { Caller, Query } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { payoutReader } from './payout-account.policy.js';

export const payoutDeliveries =
  (deps: EngineDeps) => (caller: Caller, payoutId: string, raw: Query) =>
    merchantRead(deps.store, caller, payoutReader('payment.payout.read'), async (tx) => {
      const query = orRefuse(decodeWith(PageQuery)(raw));
      const payout =
        (await tx.payouts.get(payoutId, caller.account_id)) ??
        refuse(payrailError('payout_not_found'));
      const page = await tx.webhookDeliveries.list({
        scope: caller.account_id,
        where: { business_id: payout.payout_id },
        limit: query.limit,
        offset: query.offset,
      });
      return pageView(page, deliveryView);
    });
