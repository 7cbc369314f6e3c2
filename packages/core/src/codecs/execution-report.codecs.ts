/**
 * The executor door's report (`engine.executions.report`), checked as the codecs check a body:
 * JavaScript hosts call the door with whatever their bank's webhook said. Checks, first failure
 * answers: an object (`request required`), `status` present (`status required`) and one of
 * processing | completed | failed (`invalid status`), then for a failure a `reason`
 * (`reason required`) that is a string of at most 256 characters (`Validation Failed`, as the
 * operators' reasons). `null` reads as absent; a reason beside another status, and any other key,
 * is ignored.
 *
 * Whether `reason` is read at all depends on the status, which one stage cannot say: the report
 * is read in two requests, the status first and then, for a failure, the failure's fields.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as t from 'io-ts';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import {
  codePointLength,
  decodeWith,
  leaf,
  oneOfLeaf,
  request,
  requiredField,
} from './codec-toolkit.js';

export const executionReportStatuses = ['processing', 'completed', 'failed'] as const;
export type ExecutionReportStatus = (typeof executionReportStatuses)[number];

export const executionReasonMaxLength = 256;

const ReportStatus = oneOfLeaf('ExecutionReportStatus', executionReportStatuses, 'invalid_status');

const FailedStatus = leaf<'failed'>(
  'FailedExecutionStatus',
  (u): u is 'failed' => u === 'failed',
  'invalid_status',
  { const: 'failed' },
);

const FailureReason = leaf<string>(
  'ExecutionFailureReason',
  (u): u is string => typeof u === 'string' && codePointLength(u) <= executionReasonMaxLength,
  'validation_failed',
  { type: 'string', minLength: 1, maxLength: executionReasonMaxLength },
);

/** Step 1: the status alone (absent or blank -> `status required`, else one of the three). */
const ExecutionReportHead = request('ExecutionReportHead', {
  format: t.type({
    status: requiredField(ReportStatus, payrailError('field_required', { field: 'status' })),
  }),
});

/** Step 2, for `failed` only: the reason becomes the payout's `execution_fail_reason`. */
const FailedExecutionReport = request('FailedExecutionReport', {
  format: t.type({
    status: FailedStatus,
    reason: requiredField(FailureReason, payrailError('field_required', { field: 'reason' })),
  }),
});

/**
 * What a payout executor (`PayoutExecutor`) reports about a payout it received, through
 * `engine.executions.report`: the money is on its way (`processing`: amount + fee are held),
 * arrived (`completed`: the hold is settled), or will not arrive (`failed`: the hold is released;
 * `reason` becomes the payout's `execution_fail_reason`). `completed` or `failed` without
 * `processing` first is fine: the payout passes through processing.
 */
export type ExecutionReport =
  | { readonly status: Exclude<ExecutionReportStatus, 'failed'> }
  | t.TypeOf<typeof FailedExecutionReport>;

export const decodeExecutionReport = (input: unknown): E.Either<PayrailError, ExecutionReport> =>
  pipe(
    decodeWith(ExecutionReportHead)(input),
    E.chain(
      ({ status }): E.Either<PayrailError, ExecutionReport> =>
        status === 'failed' ? decodeWith(FailedExecutionReport)(input) : E.right({ status }),
    ),
  );
