// A fake bank behind payrail's executor port. `execute` runs inside payrail's unit of work, so
// it only records the instruction (a real one would enqueue it with its bank); the outcome comes
// back later through the executor door, `payrail.executions.report`, as a bank's callback would.
// Reports are idempotent by payout and status: a callback the bank sends twice changes nothing.

export const createFakeBank = () => {
  const pending = [];
  const paid = new Set();
  return {
    pending,
    paid,
    executor: {
      execute: async (request) => {
        if (!paid.has(request.payout_id)) pending.push(request);
      },
    },
    /** Sends every pending instruction: the bank accepts each (processing), then pays it. */
    settleAll: async (executions) => {
      while (pending.length > 0) {
        const instruction = pending.shift();
        for (const status of ['processing', 'completed']) {
          const outcome = await executions.report(instruction.payout_id, { status });
          if (outcome._tag === 'Left') throw new Error(outcome.left.message);
        }
        paid.add(instruction.payout_id);
      }
    },
  };
};
