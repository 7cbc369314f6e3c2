import { CorruptSnapshotError } from '@payrail/core';
import { describe, expect, it } from 'vitest';
import { merchantA, payoutHarness, payoutOf, walletaPayout } from './payouts.test-support.js';

describe('a stored payout whose snapshot is corrupt', () => {
  it('stops the use case with CorruptSnapshotError (internal error), never a guessed answer', async () => {
    const h = await payoutHarness();
    const created = payoutOf(await h.engine.payouts.create(merchantA, walletaPayout()));
    await h.store.transaction(async (tx) => {
      const record = await tx.payouts.get(created.payout_id);
      if (record === undefined) throw new Error('the payout was not stored');
      // a hand edit that left the machine's context empty
      await tx.payouts.update({
        ...record,
        snapshot: { version: 1, snapshot: { value: 'draft', context: {} } },
      });
    });
    const read = h.engine.payouts.get(merchantA, created.payout_id);
    await expect(read).rejects.toBeInstanceOf(CorruptSnapshotError);
    await expect(read).rejects.toThrow(/^payout snapshot is corrupt: snapshot\.context\./);
    await expect(h.engine.payouts.cancel(merchantA, created.payout_id)).rejects.toBeInstanceOf(
      CorruptSnapshotError,
    );
  });
});
