/**
 * The executor door's report (`engine.executions.report`), checked as the codecs check a body:
 * JavaScript hosts call the door with whatever their bank's webhook said. Checks, first failure
 * answers: an object (`request required`), `status` present (`status required`) and one of
 * processing | completed | failed (`invalid status`), then for a failure a `reason`
 * (`reason required`) that is a string of at most 256 characters (`Validation Failed`, as the
 * operators' reasons). `null` reads as absent; a reason beside another status, and any other key,
 * is ignored.
 */
import * as E from 'fp-ts/lib/Either.js';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import { isBlank, isJsonObject, presentValue } from './beneficiary.codecs.js';

/**
 * What a payout executor (`PayoutExecutor`) reports about a payout it received, through
 * `engine.executions.report`: the money is on its way (`processing`: amount + fee are held),
 * arrived (`completed`: the hold is settled), or will not arrive (`failed`: the hold is released;
 * `reason` becomes the payout's `execution_fail_reason`). `completed` or `failed` without
 * `processing` first is fine: the payout passes through processing.
 */
export type ExecutionReport =
  | { readonly status: 'processing' }
  | { readonly status: 'completed' }
  | { readonly status: 'failed'; readonly reason: string };

export type ExecutionReportStatus = ExecutionReport['status'];

export const executionReportStatuses = [
  'processing',
  'completed',
  'failed',
] as const satisfies readonly ExecutionReportStatus[];

const isStatus = (u: unknown): u is ExecutionReportStatus =>
  (executionReportStatuses as readonly unknown[]).includes(u);

export const executionReasonMaxLength = 256;

export const decodeExecutionReport = (input: unknown): E.Either<PayrailError, ExecutionReport> => {
  if (!isJsonObject(input)) return E.left(payrailError('request_required'));
  const status = presentValue(input, 'status');
  if (status === undefined || (typeof status === 'string' && isBlank(status))) {
    return E.left(payrailError('field_required', { field: 'status' }));
  }
  if (!isStatus(status)) return E.left(payrailError('invalid_status'));
  if (status !== 'failed') return E.right({ status });
  const reason = presentValue(input, 'reason');
  if (reason === undefined || (typeof reason === 'string' && isBlank(reason))) {
    return E.left(payrailError('field_required', { field: 'reason' }));
  }
  return typeof reason === 'string' && Array.from(reason).length <= executionReasonMaxLength
    ? E.right({ status, reason })
    : E.left(payrailError('validation_failed'));
};
