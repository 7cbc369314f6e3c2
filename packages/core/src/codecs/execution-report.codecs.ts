/**
 * The executor door's report (`engine.executions.report`), checked as the codecs check a body:
 * JavaScript hosts call the door with whatever their bank's webhook said. Checks, first failure
 * answers: an object (`request required`), `status` present (`status required`) and one of
 * processing | completed | failed | returned (`invalid status`), then for a failure or a return
 * a `reason` (`reason required`) that is a string of at most 256 characters (`Validation
 * Failed`, as the operators' reasons). `null` reads as absent; a reason beside another status, and any other key,
 * is ignored.
 *
 * Whether `reason` is read at all depends on the status, which one stage cannot say: the report
 * is read in two requests, the status first and then, for a failure or a return, its reason.
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

export const executionReportStatuses = ['processing', 'completed', 'failed', 'returned'] as const;
export type ExecutionReportStatus = (typeof executionReportStatuses)[number];

export const executionReasonMaxLength = 256;

const ReportStatus = oneOfLeaf('ExecutionReportStatus', executionReportStatuses, 'invalid_status');

/** The statuses that come with the executor's words: a failure, and a return (ADR 0043). */
type ReasonedStatus = 'failed' | 'returned';

const ReasonedStatus = leaf<ReasonedStatus>(
  'ReasonedExecutionStatus',
  (u): u is ReasonedStatus => u === 'failed' || u === 'returned',
  'invalid_status',
  { enum: ['failed', 'returned'] },
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

/**
 * Step 2, for `failed` and `returned`: the reason becomes the payout's `execution_fail_reason`,
 * or its `return_reason`.
 */
const ReasonedExecutionReport = request('ReasonedExecutionReport', {
  format: t.type({
    status: ReasonedStatus,
    reason: requiredField(FailureReason, payrailError('field_required', { field: 'reason' })),
  }),
});

/**
 * What a payout executor (`PayoutExecutor`) reports about a payout it received, through
 * `engine.executions.report`: the money is on its way (`processing`: amount + fee are held),
 * arrived (`completed`: the hold is settled), or will not arrive (`failed`: the hold is released;
 * `reason` becomes the payout's `execution_fail_reason`), or, once completed, came back
 * (`returned`: the amount sent is credited back, ADR 0043; `reason` becomes its
 * `return_reason`). `completed` or `failed` without `processing` first is fine: the payout
 * passes through processing.
 */
export type ExecutionReport =
  | { readonly status: Exclude<ExecutionReportStatus, ReasonedStatus> }
  | t.TypeOf<typeof ReasonedExecutionReport>;

export const decodeExecutionReport = (input: unknown): E.Either<PayrailError, ExecutionReport> =>
  pipe(
    decodeWith(ExecutionReportHead)(input),
    E.chain(
      ({ status }): E.Either<PayrailError, ExecutionReport> =>
        status === 'failed' || status === 'returned'
          ? decodeWith(ReasonedExecutionReport)(input)
          : E.right({ status }),
    ),
  );
