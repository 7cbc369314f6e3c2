/**
 * The payout side of the engine: setup lookups, quick payouts and their operations,
 * beneficiaries and their accounts, the operator's review and payout configuration, the sandbox's
 * execution outcomes, the `payout.execute` timer that hands approved payouts to the executor, and
 * the executor's door for their outcomes.
 */

import { payoutExecutionTimer } from '../commit-effects.js';
import type { Engine } from '../engine-api.js';
import type { EngineDeps } from '../engine-deps.js';
import type { TimerHandler } from '../workers/timer-worker.js';
import { beneficiaryUseCases } from './beneficiary.use-cases.js';
import { payoutCatalogue } from './payout-catalogue.js';
import { payoutCommands } from './payout-commands.js';
import { payoutConfigUseCases } from './payout-config.use-cases.js';
import { payoutDeliveries } from './payout-deliveries.js';
import { payoutOperator } from './payout-operator.js';

/** How long the payout catalogue may be read from memory by default (ADR 0031). */
const defaultCatalogueCacheMs = 1000;

export const payoutUseCases = (deps: EngineDeps) => {
  const catalogue = payoutCatalogue({
    ttlMs: deps.settings.catalogueCacheMs ?? defaultCatalogueCacheMs,
  });
  const commands = payoutCommands(deps, catalogue);
  const operator = payoutOperator(deps);
  const config = payoutConfigUseCases(deps, catalogue);
  const { beneficiaries, beneficiaryAccounts } = beneficiaryUseCases(deps, catalogue);

  const payouts: Engine['payouts'] = { ...commands, deliveries: payoutDeliveries(deps) };
  /** The operator's doors (`engine.ts` puts the role check and the audit trail in front). */
  const admin = {
    reviewPayout: operator.reviewPayout,
    sandboxExecution: operator.sandboxExecution,
    ...config.admin,
  };
  const timerHandlers: Readonly<Record<typeof payoutExecutionTimer, TimerHandler>> = {
    [payoutExecutionTimer]: operator.executeTimer,
  };

  return {
    payoutSetup: config.payoutSetup satisfies Engine['payoutSetup'],
    payouts,
    beneficiaries: beneficiaries satisfies Engine['beneficiaries'],
    beneficiaryAccounts: beneficiaryAccounts satisfies Engine['beneficiaryAccounts'],
    admin,
    timerHandlers,
    executions: { report: operator.executionReport } satisfies Engine['executions'],
    /** Not part of `Engine`: for the adapter that delivers verification requests. */
    answerVerification: operator.answerVerification,
    verificationRequestOpen: operator.verificationRequestOpen,
  };
};
