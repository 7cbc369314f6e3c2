/**
 * @public The executor port and its report, declared in the core (its ports), named here too for
 * hosts.
 */
export type {
  ExecutionReport,
  ExecutionReportStatus,
  OutboundUrlGuardPort,
  OutboundUrlKind,
  PayoutExecutionRequest,
  PayoutExecutor,
} from '@payrail/core';
export * from './access/access-control.policy.js';
export { minKeySecretBytes } from './access/api-key-token.crypto.js';
export { openSecret } from './access/secrets-at-rest.crypto.js';
export { deliveredEventIdOf } from './access/webhook-redelivery.policy.js';
/** @public The sandbox's deposit addresses, a host's default (docs/engine.md). */
export { sandboxDepositAddresses } from './acquiring/deposit-addresses.store.js';
export { sandboxRequiredConfirmations } from './acquiring/sandbox-payment-event.policy.js';
export type { Outcome } from './command/command.handler.js';
export * from './engine.api.js';
export * from './engine.deps.js';
/** @public The observer port a host measures the engine with (docs/observability.md). */
export type {
  CommittedTransition,
  EngineObserver,
  ObservedMachine,
  TimerFired,
  UnitOfWorkEnded,
  UnitOfWorkOutcome,
} from './engine.observer.js';
export * from './engine.wiring.js';
export type * from './engine-answers.views.js';
/** @public What an `EngineInspector` receives, named for hosts that write one. */
export type {
  EngineInspectionEvent,
  EngineInspector,
  InspectedActorRef,
  InspectedEvent,
  InspectedInitEvent,
  InspectedMachine,
  InspectedSnapshot,
} from './inspection.observer.js';
export { adminPermissions } from './operators/admin-permissions.policy.js';
export { bootstrapOperator } from './operators/operators.use-cases.js';
export { seedSandboxCatalogue } from './payouts/sandbox-catalogue.use-cases.js';
export { manualLoopScheduler } from './workers/manual-scheduler.worker.js';
export { type LoopScheduler, startWorkLoop, type WorkLoop } from './workers/work-loop.worker.js';
