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
export { minKeySecretBytes } from './access/api-key-token.js';
export { openSecret } from './access/secrets-at-rest.js';
export { deliveredEventIdOf } from './access/webhook-management.js';
export * from './access-control.js';
/** @public The sandbox's deposit addresses, a host's default (docs/engine.md). */
export { sandboxDepositAddresses } from './acquiring/deposit-addresses.js';
export { sandboxRequiredConfirmations } from './acquiring/sandbox-payments.js';
export * from './commit-effects.js';
export * from './engine.js';
export type * from './engine-answers.js';
export * from './engine-api.js';
export * from './engine-deps.js';
/** @public What an `EngineInspector` receives, named for hosts that write one. */
export type {
  EngineInspectionEvent,
  EngineInspector,
  InspectedActorRef,
  InspectedEvent,
  InspectedInitEvent,
  InspectedMachine,
  InspectedSnapshot,
} from './inspection.js';
export { adminPermissions } from './operators/admin-permissions.js';
export { bootstrapOperator } from './operators/operators.use-cases.js';
export { seedSandboxCatalogue } from './payouts/sandbox-catalogue.js';
export * from './unit-of-work.js';
export { manualLoopScheduler } from './workers/manual-scheduler.js';
export { type LoopScheduler, startWorkLoop, type WorkLoop } from './workers/work-loop.js';
