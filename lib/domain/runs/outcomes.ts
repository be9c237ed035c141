import {
  type DeliveryRef,
  type DeliveryStatus,
  isComplete,
  parseJobId,
  type Run,
  settledStatus,
} from '#lib/domain/runs/runs';
import type { BounceKind } from '#lib/domain/suppressions/suppressions';
import type { WebhookEventType } from '#lib/domain/webhooks/event-types';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';
import { type EventRecorder, wantedEvent } from '#lib/domain/webhooks/recording';
import { ConflictError, NotFoundError } from '#lib/errors';

/**
 * The renderer's reports of what became of each job. A report moves its delivery to `delivered` or
 * `failed` and the run's counts with it, in one write; the run is complete once every queued delivery
 * has an outcome. Reports are idempotent, `delivered` is final, and a report for an attempt older than
 * the delivery's current one is ignored; an attempt's first outcome stands.
 *
 * Settling a run (its status and `completedAt` following its counts) is a step of its own, derived from
 * the counts alone and safe to repeat: the report that moved the counts last takes it, a repeat of a
 * report takes it again (its first sending may have died between the two writes), and the dispatcher's
 * minute takes it for any run left awaiting outcomes with its counts complete (`settleStalledRuns`).
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
  /**
   * The address bounced hard (`failed` only) or its owner complained (either status): the report's
   * transaction suppresses it in the deployment (lib/domain/suppressions/suppressions.ts).
   */
  bounce?: BounceKind;
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

/** The webhook event types a deployment's endpoints subscribe to. */
type Subscribed = ReadonlySet<WebhookEventType>;

/** A report's own event, made once the store knows which types are wanted (it reads them with what it reads anyway). */
type ReportEvent = (subscribed: Subscribed) => WebhookEvent | undefined;

export type RecordResult =
  /**
   * `run`: the run as this write left it, when the store knows it without a read of its own;
   * `subscribed`: the deployment's subscribed types, when the write read them (the settle reuses them).
   */
  | { outcome: 'recorded'; run?: Run; subscribed?: Subscribed }
  /** The delivery is not (or no longer) in the state the write expected: as it is instead. */
  | { outcome: 'changed'; current: DeliveryState }
  /** No such job: no delivery (or a skipped one, which has no job), no run, or its notification deleted. */
  | { outcome: 'unknown' };

export interface OutcomeStore {
  /**
   * Moves the delivery from `from` (queued, at the report's attempt) to the report's status and adds
   * it to the run's counts, atomically, on condition that the notification still exists; otherwise
   * writes nothing and says why. The event `event` makes is recorded in the same write, and only with it.
   */
  record(
    ref: DeliveryRef,
    from: DeliveryState,
    report: OutcomeReport,
    now: number,
    event?: ReportEvent,
  ): Promise<RecordResult>;
  /**
   * Brings the run's status and `completedAt` in line with its counts (recording its completion's
   * event with it); the run when this call completed it. `written`: the run as the report's write left
   * it, and `subscribed`, when known (each saves a read).
   */
  settle(ref: DeliveryRef, now: number, written?: Run, subscribed?: Subscribed): Promise<Run | undefined>;
}

/** Whether the report changed its delivery, and the run when this report's call completed it. */
export interface OutcomeResult {
  applied: boolean;
  completedRun: Run | undefined;
}

/** A `delivery.failed` message's data: the run, and the delivery as the report tells it. */
const failureData = (ref: DeliveryRef, jobId: string, report: OutcomeReport) => ({
  deploymentId: ref.deploymentId,
  notificationId: ref.notificationId,
  runId: ref.runId,
  delivery: { jobId, status: 'failed', attempt: report.attempt, error: report.error ?? null },
});

/** Reads of a delivery that changed under a report before it gives up (each change is another report's). */
const MAX_ROUNDS = 5;

/** Applies a report, or ignores it (a repeat, a stale attempt, anything after `delivered`). */
export async function reportOutcome(
  store: OutcomeStore,
  jobId: string,
  report: OutcomeReport,
  now: number,
  recorder: EventRecorder,
): Promise<OutcomeResult> {
  const ref = parseJobId(jobId);
  const unknown = () => new NotFoundError(`Delivery job ${jobId}`);
  if (!ref) throw unknown();
  // Only a failure is an event of its own; whether it is wanted, the store learns with its reads.
  const event: ReportEvent | undefined =
    report.status === 'failed'
      ? (subscribed) =>
          wantedEvent(
            subscribed,
            recorder,
            ref.deploymentId,
            'delivery.failed',
            failureData(ref, jobId, report),
            now,
          )
      : undefined;
  // Most reports are the first for a queued attempt: tried at once, read only when that is not so.
  let from: DeliveryState = { status: 'queued', attempts: report.attempt };
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    const result = await store.record(ref, from, report, now, event);
    if (result.outcome === 'recorded')
      return { applied: true, completedRun: await store.settle(ref, now, result.run, result.subscribed) };
    if (result.outcome === 'unknown') throw unknown();
    const { current } = result;
    const decision = decideOutcome(current, report);
    // A repeat settles too: its first sending may have recorded the run's last outcome and died before settling.
    if (decision.kind === 'ignore') return { applied: false, completedRun: await store.settle(ref, now) };
    if (decision.kind === 'ahead') {
      throw new ConflictError(
        `Attempt ${report.attempt} of job ${jobId} is not queued (its current attempt is ${current.attempts}); report it again shortly`,
      );
    }
    from = decision.from;
  }
  throw new ConflictError(`Job ${jobId} keeps changing; report its outcome again`);
}

/** How long a run awaits outcomes before the dispatcher's minute checks whether it was left unsettled. */
export const SETTLE_CHECK_AFTER_MS = 60_000;

export interface StalledRunStore {
  /** Runs awaiting outcomes since before `instant`, page by page, oldest first, a bounded number of pages a call. */
  awaitingSince(instant: number): AsyncIterable<Run[]>;
  /** Brings the run's status in line with its counts, on condition that it is still as given; the run as it then stands. */
  settle(run: Run, now: number): Promise<Run>;
}

/**
 * Settles every run that has awaited outcomes for over `SETTLE_CHECK_AFTER_MS` although its counts are
 * complete: the report that recorded its last outcome died before settling it. Called once a minute by
 * the dispatcher, so such a run is complete within two minutes of its last outcome. Returns the runs it
 * completed.
 */
export async function settleStalledRuns(store: StalledRunStore, now: number): Promise<Run[]> {
  const settled: Run[] = [];
  for await (const page of store.awaitingSince(now - SETTLE_CHECK_AFTER_MS)) {
    // One after another: such runs are rare (a process died between a report's two writes).
    for (const run of page.filter((awaiting) => isComplete(settledStatus(awaiting)))) {
      const after = await store.settle(run, now);
      if (isComplete(after.status)) settled.push(after);
    }
  }
  return settled;
}
