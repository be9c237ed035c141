import { type Deadline, hasTimeFor, NO_DEADLINE } from '#lib/deadline';
import { type AuditContext, auditEvent, type NewAuditEvent } from '#lib/domain/audit/audit';
import type { JobSink } from '#lib/domain/dispatch/dispatch-ports';
import type { Dashboard } from '#lib/domain/entities';
import {
  type HeldKey,
  type IdempotencyKeyInput,
  type IdempotencyKeys,
  onceForKey,
  requestFingerprint,
} from '#lib/domain/idempotency';
import type { Notification, NotificationRef } from '#lib/domain/notifications/notification';
import {
  type Delivery,
  type DeliveryJob,
  type JobRecipient,
  jobOf,
  RUN_ID_PATTERN,
  type Run,
  type RunDto,
  type RunRef,
  runMadeByKey,
  toRunDto,
} from '#lib/domain/runs/runs';
import { type SuppressionLookup, suppressionKeyOf } from '#lib/domain/suppressions/suppressions';
import { ConflictError, NotFoundError } from '#lib/errors';
import { RETRY_PAGE_RESERVE_MS } from '#lib/timeouts';

/**
 * Retry: queue each failed delivery of a run again, as the same job (same `jobId`) with the next
 * attempt. Only failed deliveries are read (the store keeps a list of them), a page at a time, and a
 * request queues at most RETRY_LIMIT_PER_REQUEST of them: the answer's `recipients.failed` says how
 * many are left for another request.
 *
 * The race with a delete: before a page's jobs leave, the notification is read again, and the page's
 * record is written only if it still exists. A retry whose first check finds it gone answers 404 and
 * has sent and written nothing; one that had sent jobs before the delete stops there and answers the
 * run (it completed, in part, before the delete; the purge removes what it wrote).
 */

/** Deliveries one retry request queues at most: bounded work whatever the run's size. */
const RETRY_LIMIT_PER_REQUEST = 1000;
/**
 * Failed deliveries read and queued together: one transaction with the run's counts, the check that
 * the notification exists, on the first page that moves any the request's audit event and, on the
 * last page, the Idempotency-Key's done mark (DynamoDB's 100).
 */
const RETRY_PAGE_SIZE = 96;

/** What a page's record did: moved deliveries (and marked the key done), or found the notification gone. */
type Requeued = { gone: false; moved: number; keyDone: boolean } | { gone: true };

export interface RetryStore extends IdempotencyKeys, SuppressionLookup {
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
   * them, atomically, only while the notification exists; a delivery that changed meanwhile is left as
   * it is. With a held key, the same write marks it done with the run; with an event, the same write
   * records it (only when it moves any).
   */
  requeue(
    ref: RunRef,
    deliveries: readonly Delivery[],
    now: number,
    held?: HeldKey,
    event?: NewAuditEvent,
  ): Promise<Requeued>;
  /** The run after its status follows its counts again. */
  settle(ref: RunRef, now: number): Promise<Run | undefined>;
  /** Whether the notification still exists: the race guard with a delete (lib/store/notifications/notification-guard.ts). */
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
  options: { now: number; deadline?: Deadline; audit: AuditContext },
  idempotency?: IdempotencyKeyInput,
): Promise<RetryResult> {
  const notFound = () => new NotFoundError(`Run ${ref.runId} of notification ${ref.id}`);
  // Run ids are opaque to clients: one of a form the service never issues names no run.
  if (!RUN_ID_PATTERN.test(ref.runId)) throw notFound();
  // A deleted notification's runs stay until the purge: they are gone for this route already.
  const stored = await store.findNotification(ref);
  if (!stored) throw notFound();
  const run = await store.findRun(ref);
  if (!run) throw notFound();
  const claim = idempotency && {
    ...idempotency,
    fingerprint: requestFingerprint({ operation: 'retry', target: ref, body: {} }),
  };
  return onceForKey(
    store,
    ref.deploymentId,
    claim,
    (held) => requeueFailed(store, sink, run, stored.notification, options, held),
    async (done) => ({ run: await runMadeByKey(store, done), queued: 0 }),
  );
}

async function requeueFailed(
  store: RetryStore,
  sink: JobSink,
  run: Run,
  notification: Notification,
  options: { now: number; deadline?: Deadline; audit: AuditContext },
  held: HeldKey | undefined,
): Promise<RetryResult> {
  const ref: RunRef = { deploymentId: run.deploymentId, id: run.notificationId, runId: run.runId };
  const result = { kind: 'run', run: ref } as const;
  if (run.recipients.failed === 0) {
    if (held) await store.completeKey(held, result);
    return { run: toRunDto(run), queued: 0 };
  }
  const dashboard = await store.findDashboard(notification.deploymentId, notification.dashboardId);
  if (!dashboard?.published) {
    throw new ConflictError(
      'The dashboard is unpublished or gone: nothing can be delivered until it is back',
    );
  }
  const { deadline = NO_DEADLINE } = options;
  let after: string | undefined;
  let queued = 0;
  // Failed deliveries read, suppressed ones included: what bounds the request's work.
  let read = 0;
  let sent = 0;
  let keyDone = false;
  // The request's one event goes with the first page that moves deliveries: no change without it.
  let event: NewAuditEvent | undefined = auditEvent(
    options.audit,
    ref,
    'retried',
    { runId: ref.runId },
    options.now,
  );
  for (let last = false; !last; ) {
    const limit = Math.min(RETRY_PAGE_SIZE, RETRY_LIMIT_PER_REQUEST - read);
    const page = await store.failedPage(ref, after, limit);
    if (page.deliveries.length === 0) break;
    read += page.deliveries.length;
    // A failure whose address is suppressed since (its hard bounce, mostly) stays failed: never mailed again.
    const deliveries = await unsuppressed(store, ref.deploymentId, page.deliveries);
    if (deliveries.length === 0) {
      after = page.last;
      last =
        page.last === undefined ||
        read >= RETRY_LIMIT_PER_REQUEST ||
        !hasTimeFor(deadline, RETRY_PAGE_RESERVE_MS);
      continue;
    }
    const recipients = await store.jobRecipients(ref, deliveries);
    // Raced by a delete: no job leaves for a notification that is gone (its purge removes the rest).
    if (!(await store.isLive(ref))) {
      if (sent === 0) throw new NotFoundError(`Run ${ref.runId} of notification ${ref.id}`);
      return { run: toRunDto(run), queued };
    }
    const jobs: DeliveryJob[] = deliveries.map((delivery, i) =>
      jobOf(
        run,
        { ...delivery, attempts: delivery.attempts + 1 },
        notification,
        dashboard,
        // The store gives one recipient per delivery; the delivery's own is the same without properties.
        recipients[i] ?? delivery.recipient,
      ),
    );
    last =
      page.last === undefined ||
      read >= RETRY_LIMIT_PER_REQUEST ||
      !hasTimeFor(deadline, RETRY_PAGE_RESERVE_MS);
    // Jobs first: a job queued twice is dropped by its id, a job lost after its delivery was marked
    // queued would leave it waiting for an outcome that never comes.
    await sink.send(jobs);
    sent += jobs.length;
    const requeued = await store.requeue(ref, deliveries, options.now, last ? held : undefined, event);
    // Deleted since the check: the jobs sent stand, nothing more is written.
    if (requeued.gone) return { run: toRunDto(run), queued };
    if (requeued.moved > 0) event = undefined;
    queued += requeued.moved;
    keyDone ||= requeued.keyDone;
    after = page.last;
  }
  if (held && !keyDone) await store.completeKey(held, result);
  return { run: toRunDto((await store.settle(ref, options.now)) ?? run), queued };
}

/** The deliveries whose addresses the deployment does not suppress: one read for the page. */
async function unsuppressed(
  store: SuppressionLookup,
  deploymentId: number,
  deliveries: readonly Delivery[],
): Promise<Delivery[]> {
  const emails = deliveries.flatMap(({ recipient }) => (recipient.email ? [recipient.email] : []));
  const suppressed = await store.suppressedAmong(deploymentId, emails);
  return deliveries.filter(({ recipient }) => !suppressed.has(suppressionKeyOf(recipient.email)));
}
