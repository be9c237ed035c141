import { NO_DEADLINE } from '#lib/deadline';
import type { Clock } from '#lib/domain/clock';
import {
  CONTINUATION_START_SECONDS,
  type DueSlice,
  type MeasuredPace,
  planHandOn,
} from '#lib/domain/dispatch/dispatch-fanout';
import type { DispatchStore, DueEntry, JobSink } from '#lib/domain/dispatch/dispatch-ports';
import { fireNotification } from '#lib/domain/dispatch/fire-notification';
import { deliver, leaseFrom, timeLeft } from '#lib/domain/dispatch/page-delivery';
import {
  type DispatchOptions,
  dashboardOf,
  newPassContext,
  type PassContext,
  type PassSummary,
} from '#lib/domain/dispatch/pass-context';
import type { RunRef } from '#lib/domain/runs/runs';
import { scheduleSignature } from '#lib/domain/schedules/schedule';
import type { SchedulePlanner } from '#lib/domain/schedules/schedule-planning';
import { PASS_STEP_RESERVE_MS } from '#lib/timeouts';

/**
 * The dispatcher. A pass reads the due index (schedule entries whose first instant has come, runs
 * whose lease has ended) and, for each notification (lib/domain/dispatch/fire-notification.ts):
 *
 *   1. read: the notification, its schedule entry and its first page of recipients, in one read;
 *   2. claim: in one transaction, create the run of the instant (keyed by the instant, only if it
 *      does not exist) and move the schedule entry on to its next instants (only from the entry
 *      read), with the deliveries of a run that fits in one small page;
 *   3. deliver: hand those deliveries' jobs to the sink, or page through the recipients (per page
 *      write the deliveries, hand their jobs to the sink, record the page as done, only while holding
 *      the run's lease: lib/domain/dispatch/page-delivery.ts);
 *   4. finish: mark the run dispatched and take it out of the index.
 *
 * Every step is safe to repeat and a crash after any of them is completed by a later pass: a claimed
 * run sits in the index under its lease's end until it is finished, and step 2 refuses a second run
 * for the same instant whoever tries. See docs/scheduling.md for the argument. The cron code comes in
 * as a SchedulePlanner, so that send-now, which shares page delivery, does not bundle it.
 */

const DEFAULT_CONCURRENCY = 8;
/** The pass measures its pace over at least this long before it hands anything on. */
const WARM_UP_MS = 1_000;
/** And looks again this often. */
const REVIEW_EVERY_MS = 1_000;

type OnError = (error: unknown, entry: DueEntry) => void;

/** One pass as of `options.now`. Entries fail one by one; a failed one is retried by a later pass. */
export async function dispatchPass(
  store: DispatchStore,
  sink: JobSink,
  options: DispatchOptions & { planner: SchedulePlanner },
  onError: OnError = () => {},
): Promise<PassSummary> {
  const context = newPassContext(store, sink, options);
  const { summary } = context;
  const entries = await store.dueEntries(options.now, options.slices);
  summary.due = entries.length;
  const pace = pacer(options.maxPerSecondPerShard, context.clock);
  const lanes = dueLanes(entries);
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const continuations = handingOn(context, lanes, concurrency, onError);

  const worker = async () => {
    while (timeLeft(context)) {
      const entry = lanes.take();
      if (!entry) return;
      await pace(entry.shard);
      try {
        if (entry.kind === 'notification') await fireNotification(context, options.planner, entry);
        else if (entry.kind === 'change') await settleChange(context, options.planner, entry);
        else await resumeRun(context, entry);
      } catch (error) {
        summary.failed += 1;
        onError(error, entry);
      }
      continuations.entryDone();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, entries.length) }, worker));
  // Out of time: what was not started goes on now, never silently a minute late.
  continuations.handOn([lanes.shards()]);
  await continuations.settled();
  return summary;
}

/**
 * What a pass hands on to continuations: as soon as it has measured its pace, the shards it would
 * not fire by `fireBy`, and whatever it is told to hand on.
 */
function handingOn(context: PassContext, lanes: DueLanes, concurrency: number, onError: OnError) {
  const { clock, options, summary } = context;
  const started = clock.now();
  const measured: MeasuredPace = { done: 0, seconds: 0 };
  const starting: Promise<void>[] = [];

  /** Starts continuations on these groups of shards' remaining entries; what one refuses is left. */
  const handOn = (groups: readonly (readonly number[])[]) => {
    for (const shards of groups) {
      const { slices, count, first } = lanes.handOver(shards);
      if (count === 0 || !first) continue;
      const continuation = options.continuation;
      if (!continuation) {
        summary.left += count;
        continue;
      }
      starting.push(
        continuation.start(slices).then(
          () => {
            summary.handedOn += count;
          },
          (error: unknown) => {
            summary.left += count;
            onError(error, first);
          },
        ),
      );
    }
  };

  /** At the pace measured so far, hands on the shards the pass would not fire by `fireBy`. */
  let reviewedAt = started;
  const review = () => {
    const now = clock.now();
    const { fireBy, continuation } = options;
    if (!continuation || fireBy === undefined || now >= fireBy) return;
    if (now - started < WARM_UP_MS || now - reviewedAt < REVIEW_EVERY_MS || measured.done < concurrency)
      return;
    reviewedAt = now;
    measured.seconds = (now - started) / 1000;
    const untilDeadline = (options.deadline ?? NO_DEADLINE).remainingMs() - PASS_STEP_RESERVE_MS;
    const secondsLeft = Math.min(fireBy - now, untilDeadline) / 1000;
    const plan = planHandOn(lanes.remainingByShard(), measured, secondsLeft);
    // Past the window by the time a continuation would start: it is still sooner than the next minute.
    handOn(secondsLeft > CONTINUATION_START_SECONDS ? plan.continuations : [plan.continuations.flat()]);
  };

  return {
    /** Counts an entry done, and hands on what the pace measured so far says the pass would not fire. */
    entryDone() {
      measured.done += 1;
      review();
    },
    handOn,
    /** Once every continuation started has answered. */
    settled: () => Promise.all(starting),
  };
}

/** Waits for each shard's next slot, so that no shard starts more than `perSecond` entries a second. */
function pacer(perSecond: number | undefined, clock: Clock): (shard: number | undefined) => Promise<void> {
  if (!perSecond) return async () => {};
  const nextSlot = new Map<number, number>();
  return async (shard) => {
    if (shard === undefined) return;
    const now = clock.now();
    const slot = Math.max(now, nextSlot.get(shard) ?? now);
    nextSlot.set(shard, slot + 1000 / perSecond);
    if (slot > now) await clock.sleep(slot - now);
  };
}

type DueLanes = ReturnType<typeof dueLanes>;

/**
 * The entries a pass has still to start, one lane per shard in index order, taken in turn across the
 * lanes so that every shard goes on at its own partition's pace at once (one shard after another
 * would hold the whole pass to one partition's pace).
 */
function dueLanes(entries: readonly DueEntry[]) {
  const lanes = new Map<number, { entries: DueEntry[]; next: number }>();
  for (const entry of entries) {
    const shard = entry.shard ?? -1;
    const lane = lanes.get(shard) ?? { entries: [], next: 0 };
    lanes.set(shard, lane);
    lane.entries.push(entry);
  }
  let turn = lanes.values();
  return {
    /** The next entry to start, each lane in turn; undefined when none is left. */
    take(): DueEntry | undefined {
      for (let tried = 0; tried <= lanes.size; tried++) {
        let step = turn.next();
        if (step.done) {
          turn = lanes.values();
          step = turn.next();
        }
        if (step.done) return undefined;
        const lane = step.value;
        const entry = lane.entries[lane.next];
        if (entry) {
          lane.next += 1;
          return entry;
        }
      }
      return undefined;
    },
    remainingByShard: () =>
      new Map([...lanes].map(([shard, lane]) => [shard, lane.entries.length - lane.next] as const)),
    remaining: () => [...lanes.values()].reduce((sum, lane) => sum + lane.entries.length - lane.next, 0),
    /**
     * Takes the lanes' entries not started out of the pass: the slice of the index each one is (after
     * the last entry started, through the last read), with how many entries it holds.
     */
    handOver(shards: readonly number[]): { slices: DueSlice[]; count: number; first?: DueEntry } {
      const slices: DueSlice[] = [];
      let count = 0;
      let first: DueEntry | undefined;
      for (const shard of shards) {
        const lane = lanes.get(shard);
        const last = lane?.entries.at(-1);
        if (!lane || !last || lane.next >= lane.entries.length) continue;
        count += lane.entries.length - lane.next;
        first ??= lane.entries[lane.next];
        const started = lane.entries[lane.next - 1];
        slices.push({ shard, ...(started && { after: started.dueKey }), through: last.dueKey });
        lane.next = lane.entries.length;
      }
      return { slices, count, first };
    },
    shards: () => [...lanes.keys()],
  };
}

/** A run whose lease ended unfinished: take it over and deliver from where it stopped. */
async function resumeRun(context: PassContext, entry: DueEntry & { kind: 'run' }): Promise<void> {
  const { store } = context;
  const ref: RunRef = { deploymentId: entry.deploymentId, id: entry.notificationId, runId: entry.runId };
  const lease = leaseFrom(context);
  const progress = await store.takeOver(ref, context.clock.now(), lease);
  if (!progress) return;
  context.summary.resumed += 1;
  const stored = await store.findNotification(ref);
  const dashboard = stored && (await dashboardOf(context, ref.deploymentId, stored.notification.dashboardId));
  if (!stored || !dashboard) {
    // Gone since the run was made: nothing more can be delivered; what was queued stands.
    await store.finishRun(ref, lease, progress.run.recipients);
    return;
  }
  await deliver(context, progress, lease, stored.notification, dashboard);
}

/**
 * A schedule-change mark: the state of the schedule written at the mark is stored if its writer did
 * not (a crash between its two writes), with the instants from the moment of the change on, and the
 * mark leaves the index.
 */
async function settleChange(
  context: PassContext,
  planner: SchedulePlanner,
  entry: DueEntry & { kind: 'change' },
): Promise<void> {
  const { store } = context;
  const ref = { deploymentId: entry.deploymentId, id: entry.notificationId };
  const { notification, schedule } = await store.dueNotification(ref, 0);
  if (!notification || notification.changeKey !== entry.dueKey) return;
  if (!schedule || schedule.scheduleVersion < notification.scheduleVersion) {
    const state = planner.planSchedule(notification.value, entry.dueAt - 1);
    await store.storeSchedule(
      ref,
      state,
      scheduleSignature(notification.value),
      notification.scheduleVersion,
    );
  }
  await store.clearChangeMark(ref, entry.dueKey);
}
