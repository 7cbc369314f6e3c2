/**
 * Assembles the engine from its parts. Each part is a factory over the same dependencies; the
 * timer handlers of the parts are gathered here so one worker fires every kind of timer.
 */

import { accessUseCases } from './access/access.use-cases.js';
import { acquiringUseCases } from './acquiring/acquiring.use-cases.js';
import { requireDepositAddressesForProviders } from './acquiring/deposit-addresses.js';
import { batchUseCases } from './batches/batch.use-cases.js';
import type { Engine } from './engine-api.js';
import type { EngineDeps } from './engine-deps.js';
import { inspectingStore } from './inspection.js';
import { payoutUseCases } from './payouts/payout.use-cases.js';
import { upstreamUseCases } from './upstream/upstream.use-cases.js';
import { timerWorker } from './workers/timer-worker.js';

export const createEngine = (given: EngineDeps): Engine => {
  requireDepositAddressesForProviders(given);
  // Only a watched engine pays for noting its decisions.
  const deps: EngineDeps =
    given.inspect === undefined
      ? given
      : { ...given, store: inspectingStore(given.store, given.inspect) };
  const access = accessUseCases(deps);
  const payouts = payoutUseCases(deps);
  const acquiring = acquiringUseCases(deps);
  const workers = timerWorker(deps, { ...payouts.timerHandlers, ...acquiring.timerHandlers });
  return {
    auth: access.auth,
    accounts: access.accounts,
    webhooks: access.webhooks,
    payoutSetup: payouts.payoutSetup,
    payouts: payouts.payouts,
    beneficiaries: payouts.beneficiaries,
    beneficiaryAccounts: payouts.beneficiaryAccounts,
    acquiring: acquiring.acquiring,
    batches: batchUseCases(deps),
    checkout: acquiring.checkout,
    admin: {
      ...access.admin,
      ...payouts.admin,
      ...acquiring.admin,
      advanceClock: workers.advanceClock,
    },
    upstream: upstreamUseCases(deps),
    executions: payouts.executions,
    callbacks: {
      verificationAnswered: payouts.answerVerification,
      verificationRequestOpen: payouts.verificationRequestOpen,
    },
    workers: { runDueTimers: workers.runDueTimers },
  };
};
