import { type Deadline, hasTimeFor, NO_DEADLINE } from '#lib/deadline';
import { type Clock, type RandomHex, stoppedClock } from '#lib/domain/clock';
import type { JobSink, Lease, RunDeliveryStore, RunProgress } from '#lib/domain/dispatch/dispatch-ports';
import type { ConsoleUser, Dashboard } from '#lib/domain/entities';
import type { Notification, NotificationRef } from '#lib/domain/notifications/notification';
import {
  countDeliveries,
  type Delivery,
  type DeliveryJob,
  decideDeliveries,
  noRecipients,
  type RecipientRow,
  type Run,
  type RunRef,
  type RunTrigger,
} from '#lib/domain/runs/runs';
import { recipientEmails } from '#lib/domain/suppressions/suppressions';
import { PASS_STEP_RESERVE_MS } from '#lib/timeouts';

/**
 * Delivering a run's recipients (steps 3 and 4 of a fire, lib/domain/dispatch/dispatch-pass.ts):
 * page after page under the run's lease, each page's deliveries written and their jobs handed to
 * the sink, then the run finished. A dispatcher pass and a send-now (lib/domain/runs/send-now.ts)
 * share it.
 */

const DEFAULT_LEASE_MS = 2 * 60_000;
export const DEFAULT_PAGE_SIZE = 100;

/** What delivering reads of the options of the pass or the send-now it is part of. */
export interface DeliveryOptions {
  /** The instant the work runs as of (epoch ms). */
  now: number;
  /**
   * Its clock, running on from `now` (lib/clock.ts's `clockFrom`); without one, time stands at `now`
   * and a pass's pace waits for nothing (a test's fixed clock).
   */
  clock?: Clock;
  /** Draws the lease owner. */
  randomHex: RandomHex;
  /** The invocation's end; work stops in time and a later pass resumes it. */
  deadline?: Deadline;
  leaseMs?: number;
  pageSize?: number;
}

/** What delivering adds to the summary of the work it is part of. */
interface DeliveryCounts {
  queued: number;
  skipped: number;
  /** Runs left for a later pass (out of time). */
  unfinished: number;
}

/** The working state delivering shares with the pass or the send-now it is part of. */
export interface DeliveryContext<Store extends RunDeliveryStore = RunDeliveryStore> {
  store: Store;
  sink: JobSink;
  clock: Clock;
  options: DeliveryOptions;
  /** The lease owner, unique to the pass or the send-now. */
  owner: string;
  summary: DeliveryCounts;
  /**
   * Console users read in this pass (undefined: none such): a deployment's notifications go to its
   * few console users. A pass decides with reads no older than itself.
   */
  users: Map<number, Promise<ConsoleUser | undefined>>;
}

/** A pass's (or a send-now's) working state: its clock runs on from `options.now`, its lease owner is its own. */
export function newDeliveryContext<Store extends RunDeliveryStore>(
  store: Store,
  sink: JobSink,
  options: DeliveryOptions,
): DeliveryContext<Store> {
  return {
    store,
    sink,
    options,
    clock: options.clock ?? stoppedClock(options.now),
    owner: options.randomHex(8),
    users: new Map(),
    summary: { queued: 0, skipped: 0, unfinished: 0 },
  };
}

export const timeLeft = (context: DeliveryContext) =>
  hasTimeFor(context.options.deadline ?? NO_DEADLINE, PASS_STEP_RESERVE_MS);

export const leaseFrom = (context: DeliveryContext): Lease => ({
  owner: context.owner,
  until: context.clock.now() + (context.options.leaseMs ?? DEFAULT_LEASE_MS),
});

export const newRun = (
  ref: NotificationRef,
  trigger: RunTrigger,
  runId: string,
  scheduledFor: number,
  createdAt: number,
  skipReason: Run['skipReason'],
): Run => ({
  runId,
  deploymentId: ref.deploymentId,
  notificationId: ref.id,
  trigger,
  scheduledFor: new Date(scheduledFor).toISOString(),
  createdAt: new Date(createdAt).toISOString(),
  status: skipReason ? 'skipped' : 'dispatching',
  skipReason,
  recipients: noRecipients(),
  completedAt: null,
});

/**
 * Step 3 and 4: delivers page after page from the cursor; returns the run as it stands, or undefined
 * when the notification was deleted meanwhile: each page's jobs leave only after a read that finds it
 * still there, so no job is sent after a delete's answer, and what the page wrote is the purge's.
 * After `maxPages` pages the run is handed over: its progress is recorded with a lease that ends at
 * once, so the next pass takes it over from there.
 */
export async function deliver(
  context: DeliveryContext,
  progress: RunProgress,
  lease: Lease,
  notification: Notification,
  dashboard: Dashboard,
  maxPages = Number.POSITIVE_INFINITY,
): Promise<Run | undefined> {
  const { store, sink } = context;
  const { run } = progress;
  const ref: RunRef = { deploymentId: run.deploymentId, id: run.notificationId, runId: run.runId };
  let { cursor } = progress;
  let counts = { ...run.recipients };
  for (let pages = 1; ; pages++) {
    if (!timeLeft(context)) {
      await store.releaseLease(ref, lease, context.clock.now());
      context.summary.unfinished += 1;
      return { ...run, recipients: counts };
    }
    const page = await store.recipientsPage(ref, cursor, context.options.pageSize ?? DEFAULT_PAGE_SIZE);
    if (page.rows.length > 0) {
      const { deliveries, jobs } = await decidePage(context, run, notification, dashboard, page.rows);
      await store.putDeliveries(run, deliveries);
      if (!(await store.notificationIsLive(ref))) return undefined;
      if (jobs.length > 0) await sink.send(jobs);
      const added = countDeliveries(deliveries);
      counts = { ...counts, queued: counts.queued + added.queued, skipped: counts.skipped + added.skipped };
    }
    if (page.last === undefined) {
      if (!(await store.finishRun(ref, lease, counts))) return { ...run, recipients: counts };
      context.summary.queued += counts.queued;
      context.summary.skipped += counts.skipped;
      return { ...run, status: 'dispatched', recipients: counts };
    }
    const handOver = pages >= maxPages;
    lease.until = context.clock.now() + (handOver ? 0 : (context.options.leaseMs ?? DEFAULT_LEASE_MS));
    if (!(await store.saveProgress(ref, lease, page.last, counts, lease.until)) || handOver)
      return { ...run, recipients: counts };
    cursor = page.last;
  }
}

/** Who of a page of recipients gets a delivery, reading the console users among them. */
export async function decidePage(
  context: DeliveryContext,
  run: Run,
  notification: Notification,
  dashboard: Dashboard,
  rows: readonly RecipientRow[],
): Promise<{ deliveries: Delivery[]; jobs: DeliveryJob[] }> {
  const users = await consoleUsers(context, consoleUserIds(rows));
  const suppressed = await context.store.suppressedAmong(run.deploymentId, recipientEmails(rows, users));
  return decideDeliveries(run, notification, dashboard, rows, users, suppressed);
}

export const consoleUserIds = (rows: readonly RecipientRow[]) =>
  rows.flatMap(({ recipient }) => (recipient.type === 'USER' ? [recipient.userId] : []));

/** Console users by id, each read once a pass: those not read yet in one request. */
export async function consoleUsers(
  context: DeliveryContext,
  ids: readonly number[],
): Promise<Map<number, ConsoleUser>> {
  const userIds = [...new Set(ids)];
  const unread = userIds.filter((id) => !context.users.has(id));
  if (unread.length > 0) {
    const read = context.store.users(unread);
    // A failed read is not kept: the next notification that needs these users reads them again.
    read.catch(() => {
      for (const id of unread) context.users.delete(id);
    });
    for (const id of unread)
      context.users.set(
        id,
        read.then((found) => found.get(id)),
      );
  }
  const found = await Promise.all(userIds.map((id) => context.users.get(id)));
  return new Map(found.flatMap((user) => (user ? [[user.id, user] as const] : [])));
}
