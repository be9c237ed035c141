import { type Deadline, hasTimeFor, NO_DEADLINE } from '#lib/deadline';
import { type Clock, stoppedClock } from '#lib/domain/clock';
import type { NotificationRef } from '#lib/domain/notifications/notification';
import { PASS_STEP_RESERVE_MS } from '#lib/timeouts';

/**
 * The background purge of deleted notifications. A delete answers after one write: the notification
 * item goes and a tombstone (a pending purge) comes, in one transaction. Everything else the
 * notification held (recipients, runs, deliveries, anything else in its partition) is deleted here,
 * a bounded number of items per step, by passes that any number of times may start, stop or crash:
 * the tombstone is the only state, and deleting is idempotent, so the next pass simply goes on.
 *
 * A notification that exists is never touched. The service never reuses an id and the fixture loader
 * refuses one still being purged, so only a fixture load that raced the delete can put a notification
 * under a purged id; its partition is then the live notification's, and the purge is given up.
 *
 * A request that raced the delete may still write into the partition for a while after it (it had
 * read the notification before the delete; it answers 404 when it checks again, see
 * lib/store/notifications/notification-guard.ts). So a tombstone is removed only once a sweep that started after
 * its `sweepAfter` (the delete plus longer than any writer can run) found the partition empty:
 * whatever a racing request wrote is gone by then too. docs/data-model.md gives the argument.
 */

export interface PendingPurge extends NotificationRef {
  /** When the notification was deleted (epoch ms). */
  deletedAt: number;
  /** No writer that saw the notification can still write into its partition after this (epoch ms). */
  sweepAfter: number;
}

export interface PurgeStore {
  /** Pending purges, oldest delete first, at most `limit`. */
  pending(limit: number): Promise<PendingPurge[]>;
  /** Whether a notification exists under the purge's id (strongly consistent). */
  notificationExists(ref: NotificationRef): Promise<boolean>;
  /** Deletes at most `limit` items of the notification's partition; how many it deleted (0: it is empty). */
  deleteSome(ref: NotificationRef, limit: number): Promise<number>;
  /** Removes the tombstone (unless a later delete of the same id replaced it). */
  finish(purge: PendingPurge): Promise<void>;
}

export interface PurgeOptions {
  /** The instant the pass runs as of (epoch ms). */
  now: number;
  /** The pass's clock, running on from `now` (lib/clock.ts's `clockFrom`); without one, time stands at `now`. */
  clock?: Clock;
  /** The invocation's end; no step starts with less than a reserve left. */
  deadline?: Deadline;
  /** Items deleted per step (one Query of keys and its BatchWrites). */
  itemsPerStep?: number;
  /** Pending purges read per pass. */
  purgesPerPass?: number;
  /** Purges worked on at once (each partition takes its own write throughput). */
  concurrency?: number;
}

export interface PurgeSummary {
  /** Pending purges read. */
  pending: number;
  /** Items deleted. */
  deleted: number;
  /** Purges finished: partition empty after the grace, tombstone removed. */
  finished: number;
  /** Partitions found empty, waiting for the grace to end before the last sweep. */
  waiting: number;
  /** Purges left with items for a later pass (out of time). */
  unfinished: number;
  /** Purges whose step failed; a later pass retries them. */
  failed: number;
  /** Purges given up untouched: a notification exists under the id again (a fixture loaded it). */
  recreated: number;
}

const DEFAULT_ITEMS_PER_STEP = 1_000;
const DEFAULT_PURGES_PER_PASS = 100;
const DEFAULT_CONCURRENCY = 4;

async function purgeOne(
  store: PurgeStore,
  purge: PendingPurge,
  options: PurgeOptions,
  clock: Clock,
  summary: PurgeSummary,
): Promise<void> {
  const { deadline = NO_DEADLINE } = options;
  for (;;) {
    if (!hasTimeFor(deadline, PASS_STEP_RESERVE_MS)) {
      summary.unfinished += 1;
      return;
    }
    // The partition is the live notification's now: whatever of the deleted one is left stays with it.
    if (await store.notificationExists(purge)) {
      await store.finish(purge);
      summary.recreated += 1;
      return;
    }
    // Decided before the sweep starts: an empty sweep that began after the grace is final.
    const afterGrace = clock.now() >= purge.sweepAfter;
    const deleted = await store.deleteSome(purge, options.itemsPerStep ?? DEFAULT_ITEMS_PER_STEP);
    summary.deleted += deleted;
    if (deleted > 0) continue;
    if (afterGrace) {
      await store.finish(purge);
      summary.finished += 1;
    } else summary.waiting += 1;
    return;
  }
}

/** One pass as of `options.now` over the pending purges. A failed purge is retried by a later pass. */
export async function purgePass(
  store: PurgeStore,
  options: PurgeOptions,
  onError: (error: unknown, purge: PendingPurge) => void = () => {},
): Promise<PurgeSummary> {
  const clock = options.clock ?? stoppedClock(options.now);
  const summary: PurgeSummary = {
    pending: 0,
    deleted: 0,
    finished: 0,
    waiting: 0,
    unfinished: 0,
    failed: 0,
    recreated: 0,
  };
  const purges = await store.pending(options.purgesPerPass ?? DEFAULT_PURGES_PER_PASS);
  summary.pending = purges.length;
  // One queue that every worker takes its next purge from.
  const queue = purges.values();
  const worker = async () => {
    for (const purge of queue) {
      try {
        await purgeOne(store, purge, options, clock, summary);
      } catch (error) {
        summary.failed += 1;
        onError(error, purge);
      }
    }
  };
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  await Promise.all(Array.from({ length: Math.min(concurrency, purges.length) }, worker));
  return summary;
}

/** The pass's one-line summary, as `npm start` prints it and the function logs it. */
export const purgeSummaryLine = (now: number, summary: PurgeSummary) =>
  `purge ${new Date(now).toISOString()}: ${summary.pending} pending, ${summary.deleted} items deleted, ` +
  `${summary.finished} finished, ${summary.waiting} waiting, ${summary.unfinished} unfinished, ${summary.failed} failed, ${summary.recreated} recreated`;
