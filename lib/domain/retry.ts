import { type Deadline, hasTimeFor, NO_DEADLINE } from '#lib/deadline';
import type { JobSink } from '#lib/domain/dispatch';
import type { Dashboard } from '#lib/domain/entities';
import type { Notification, NotificationRef } from '#lib/domain/notification';
import {
  type Delivery,
  type DeliveryJob,
  type JobRecipient,
  jobOf,
  RUN_ID_PATTERN,
  type Run,
  type RunDto,
  type RunRef,
  toRunDto,
} from '#lib/domain/runs';
import { ConflictError, NotFoundError } from '#lib/errors';

/**
 * Retry: queue each failed delivery of a run again, as the same job (same `jobId`) with the next
 * attempt. Only failed deliveries are read (the store keeps a list of them), a page at a time, and a
 * request queues at most RETRY_LIMIT_PER_REQUEST of them: the answer's `recipients.failed` says how
 * many are left for another request. Before each page's jobs leave, the notification is read again: a
 * retry that races a delete answers 404 and sends nothing more.
 */

/** Deliveries one retry request queues at most: bounded work whatever the run's size. */
const RETRY_LIMIT_PER_REQUEST = 1000;
/** Failed deliveries read and queued together (one transaction with the run's counts). */
const RETRY_PAGE_SIZE = 99;
/** Less than this left and no new page is started. */
const TIME_RESERVE_MS = 3_000;

export interface RetryStore {
  findRun(ref: RunRef): Promise<Run | undefined>;
  findNotification(ref: NotificationRef): Promise<{ notification: Notification } | undefined>;
  findDashboard(deploymentId: number, dashboardId: number): Promise<Dashboard | undefined>;
  /** A page of the run's failed deliveries, after `after` (a previous page's `last`). */
  failedPage(
    ref: RunRef,
    after: string | undefined,
    limit: number,
  ): Promise<{ deliveries: Delivery[]; last: string | undefined }>;
  /** The recipient each delivery's job goes to, with an embed user's stored properties. */
  jobRecipients(ref: NotificationRef, deliveries: readonly Delivery[]): Promise<JobRecipient[]>;
  /**
   * Moves each delivery from `failed` at its attempt to `queued` at the next, and the run's counts with
   * them, atomically; a delivery that changed meanwhile is left as it is. Returns how many moved.
   */
  requeue(ref: RunRef, deliveries: readonly Delivery[], now: number): Promise<number>;
  /** The run after its status follows its counts again. */
  settle(ref: RunRef, now: number): Promise<Run | undefined>;
  /** Whether the notification still exists: the race guard with a delete (lib/store/notification-guard.ts). */
  isLive(ref: NotificationRef): Promise<boolean>;
}

/** The run after the retry, and how many deliveries this request queued again. */
export interface RetryResult {
  run: RunDto;
  queued: number;
}

export async function retryRun(
  store: RetryStore,
  sink: JobSink,
  ref: RunRef,
  options: { now: number; deadline?: Deadline },
): Promise<RetryResult> {
  const notFound = () => new NotFoundError(`Run ${ref.runId} of notification ${ref.id}`);
  // Run ids are opaque to clients: one of a form the service never issues names no run.
  if (!RUN_ID_PATTERN.test(ref.runId)) throw notFound();
  const run = await store.findRun(ref);
  if (!run) throw notFound();
  if (run.recipients.failed === 0) return { run: toRunDto(run), queued: 0 };
  const stored = await store.findNotification(ref);
  if (!stored) throw notFound();
  const { notification } = stored;
  const dashboard = await store.findDashboard(notification.deploymentId, notification.dashboardId);
  if (!dashboard?.published) {
    throw new ConflictError(
      'The dashboard is unpublished or gone: nothing can be delivered until it is back',
    );
  }
  const { deadline = NO_DEADLINE } = options;
  let after: string | undefined;
  let queued = 0;
  do {
    const limit = Math.min(RETRY_PAGE_SIZE, RETRY_LIMIT_PER_REQUEST - queued);
    const page = await store.failedPage(ref, after, limit);
    if (page.deliveries.length === 0) break;
    const recipients = await store.jobRecipients(ref, page.deliveries);
    // Raced by a delete: no job leaves for a notification that is gone (its purge removes the rest).
    if (!(await store.isLive(ref))) throw notFound();
    const jobs: DeliveryJob[] = page.deliveries.map((delivery, i) =>
      jobOf(
        run,
        { ...delivery, attempts: delivery.attempts + 1 },
        notification,
        dashboard,
        // The store gives one recipient per delivery; the delivery's own is the same without properties.
        recipients[i] ?? delivery.recipient,
      ),
    );
    // Jobs first: a job queued twice is dropped by its id, a job lost after its delivery was marked
    // queued would leave it waiting for an outcome that never comes.
    await sink.send(jobs);
    queued += await store.requeue(ref, page.deliveries, options.now);
    after = page.last;
  } while (after !== undefined && queued < RETRY_LIMIT_PER_REQUEST && hasTimeFor(deadline, TIME_RESERVE_MS));
  return { run: toRunDto((await store.settle(ref, options.now)) ?? run), queued };
}
