import { type DeliveryRef, type DeliveryStatus, parseJobId, type Run } from '#lib/domain/runs';
import { ConflictError, NotFoundError } from '#lib/errors';

/**
 * The renderer's reports of what became of each job. A report moves its delivery to `delivered` or
 * `failed` and the run's counts with it, in one write; the run is complete once every queued delivery
 * has an outcome. Reports are idempotent, `delivered` is final, and a report for an attempt older than
 * the delivery's current one is ignored; an attempt's first outcome stands.
 */

export const outcomeStatuses = ['delivered', 'failed'] as const;
type OutcomeStatus = (typeof outcomeStatuses)[number];

/** Longest renderer error text kept. */
export const MAX_OUTCOME_ERROR_LENGTH = 1000;

export interface OutcomeReport {
  status: OutcomeStatus;
  /** The renderer's words for a failure; only with `failed`. */
  error?: string;
  attempt: number;
}

/** What a report's decision depends on: the delivery's status and current attempt. */
interface DeliveryState {
  status: DeliveryStatus;
  attempts: number;
}

type OutcomeDecision =
  /** Move the delivery from this state to the report's status. */
  | { kind: 'apply'; from: DeliveryState }
  /** A repeat, a stale attempt, or anything after `delivered`: changes nothing. */
  | { kind: 'ignore' }
  /** An attempt not queued (yet): the retry that queues it has not finished writing. */
  | { kind: 'ahead' };

function decideOutcome(current: DeliveryState, report: OutcomeReport): OutcomeDecision {
  if (report.attempt > current.attempts) return { kind: 'ahead' };
  if (report.attempt < current.attempts) return { kind: 'ignore' };
  // An attempt has one outcome, its first: a renderer reports when it is done with the attempt.
  if (current.status === 'queued') return { kind: 'apply', from: current };
  return { kind: 'ignore' };
}

export type RecordResult = 'recorded' | 'delivery_changed' | 'run_gone';

export interface OutcomeStore {
  /** The delivery's state, or undefined when there is none (or it was skipped: it has no job). */
  deliveryState(ref: DeliveryRef): Promise<DeliveryState | undefined>;
  /**
   * Moves the delivery from `from` (queued, at the report's attempt) to the report's status and adds
   * it to the run's counts, atomically; `delivery_changed` when the delivery is not (or no longer) in
   * `from`, `run_gone` without its run.
   */
  record(ref: DeliveryRef, from: DeliveryState, report: OutcomeReport, now: number): Promise<RecordResult>;
  /** Brings the run's status and `completedAt` in line with its counts; the run when this call completed it. */
  settle(ref: DeliveryRef, now: number): Promise<Run | undefined>;
}

/** Ignored; or applied, with the run when this report was its last outcome. */
export type OutcomeResult = { applied: false } | { applied: true; completedRun: Run | undefined };

/** Reads of a delivery that changed under a report before it gives up (each change is another report's). */
const MAX_ROUNDS = 5;

/** Applies a report, or ignores it (a repeat, a stale attempt, anything after `delivered`). */
export async function reportOutcome(
  store: OutcomeStore,
  jobId: string,
  report: OutcomeReport,
  now: number,
): Promise<OutcomeResult> {
  const ref = parseJobId(jobId);
  const unknown = () => new NotFoundError(`Delivery job ${jobId}`);
  if (!ref) throw unknown();
  // Most reports are the first for a queued attempt: tried at once, read only when that is not so.
  let from: DeliveryState = { status: 'queued', attempts: report.attempt };
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    const result = await store.record(ref, from, report, now);
    if (result === 'recorded') return { applied: true, completedRun: await store.settle(ref, now) };
    if (result === 'run_gone') throw unknown();
    const current = await store.deliveryState(ref);
    if (!current) throw unknown();
    const decision = decideOutcome(current, report);
    if (decision.kind === 'ignore') return { applied: false };
    if (decision.kind === 'ahead') {
      throw new ConflictError(
        `Attempt ${report.attempt} of job ${jobId} is not queued (its current attempt is ${current.attempts}); report it again shortly`,
      );
    }
    from = decision.from;
  }
  throw new ConflictError(`Job ${jobId} keeps changing; report its outcome again`);
}
