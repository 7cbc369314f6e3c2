/**
 * The payout side of the engine: setup lookups, quick payouts and their operations,
 * beneficiaries and their accounts, the operator's review and payout configuration, the sandbox's
 * execution outcomes, the `payout.execute` timer that hands approved payouts to the executor, and
 * the executor's door for their outcomes.
 */

import { payoutExecutionTimer } from '../command/command.handler.js';
import type { Engine } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import type { TimerHandler } from '../workers/timer.worker.js';
import { beneficiaryUseCases } from './beneficiary.use-cases.js';
import { payoutCatalogue } from './payout-catalogue.store.js';
import { payoutConfigUseCases } from './payout-config.use-cases.js';
import { createPayout } from './payout-create.use-case.js';
import { payoutDeliveries } from './payout-deliveries.use-cases.js';
import { executeTimer, executionReport, sandboxExecution } from './payout-execution.use-cases.js';
import { getPayout, listPayouts } from './payout-reads.use-cases.js';
import { reviewPayout } from './payout-review.use-case.js';
import { cancelPayout, submitPayout } from './payout-submission.use-cases.js';
import { updatePayout } from './payout-update.use-case.js';
import { answerVerification, verificationRequestOpen } from './payout-verification.use-cases.js';

/** How long the payout catalogue may be read from memory by default (ADR 0031). */
const defaultCatalogueCacheMs = 1000;

export const payoutUseCases = (deps: EngineDeps) => {
  const catalogue = payoutCatalogue({
    ttlMs: deps.settings.catalogueCacheMs ?? defaultCatalogueCacheMs,
  });
  const config = payoutConfigUseCases(deps, catalogue);
  const { beneficiaries, beneficiaryAccounts } = beneficiaryUseCases(deps, catalogue);

  const payouts: Engine['payouts'] = {
    create: (caller, body) => createPayout(deps, catalogue, caller, body),
    get: (caller, payoutId) => getPayout(deps, caller, payoutId),
    list: (caller, query) => listPayouts(deps, caller, query),
    update: (caller, payoutId, body) => updatePayout(deps, catalogue, caller, payoutId, body),
    submit: (caller, payoutId) => submitPayout(deps, caller, payoutId),
    cancel: (caller, payoutId) => cancelPayout(deps, caller, payoutId),
    deliveries: payoutDeliveries(deps),
  };
  /** The operator's doors (`engine.wiring.ts` puts the role check and the audit trail in front). */
  const admin = {
    reviewPayout: (payoutId: string, body: unknown) => reviewPayout(deps, payoutId, body),
    sandboxExecution: (payoutId: string, body: unknown) => sandboxExecution(deps, payoutId, body),
    ...config.admin,
  };
  const timerHandlers: Readonly<Record<typeof payoutExecutionTimer, TimerHandler>> = {
    [payoutExecutionTimer]: executeTimer(deps),
  };

  return {
    payoutSetup: config.payoutSetup satisfies Engine['payoutSetup'],
    payouts,
    beneficiaries: beneficiaries satisfies Engine['beneficiaries'],
    beneficiaryAccounts: beneficiaryAccounts satisfies Engine['beneficiaryAccounts'],
    admin,
    timerHandlers,
    executions: {
      report: (payoutId, body) => executionReport(deps, payoutId, body),
    } satisfies Pick<Engine['executions'], 'report'>,
    /** Not part of `Engine`: for the adapter that delivers verification requests. */
    answerVerification: (
      payoutId: string,
      verified: boolean | null,
      attempt: number,
      round?: number,
    ) => answerVerification(deps, payoutId, verified, attempt, round),
    verificationRequestOpen: (payoutId: string, accountId: string, round: number) =>
      verificationRequestOpen(deps, payoutId, accountId, round),
  };
};
