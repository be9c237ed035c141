import { type AuditContext, auditEvent, type NewAuditEvent } from '#lib/domain/audit/audit';
import type { Clock, RandomHex } from '#lib/domain/clock';
import type { DispatchStore, JobSink, Lease, RunDeliveryStore } from '#lib/domain/dispatch/dispatch-ports';
import { deliver, leaseFrom, newDeliveryContext, newRun } from '#lib/domain/dispatch/page-delivery';
import {
  type HeldKey,
  type IdempotencyKeyInput,
  type IdempotencyKeys,
  onceForKey,
  requestFingerprint,
} from '#lib/domain/idempotency';
import {
  type Notification,
  type NotificationRef,
  notificationNotFound,
} from '#lib/domain/notifications/notification';
import {
  type Delivery,
  manualRunId,
  type Run,
  type RunDto,
  type RunRef,
  runMadeByKey,
  runSkipReason,
  toRunDto,
} from '#lib/domain/runs/runs';
import { TooManyRequestsError } from '#lib/errors';

/** What became of a send-now's run: made, or refused by the send-now limit, or the notification is gone. */
export type ManualRunClaim =
  | { created: true }
  | { created: false; reason: 'too_soon'; previousAt: number }
  | { created: false; reason: 'dispatching' }
  | { created: false; reason: 'gone' };

/**
 * Send-now's storage: the notification, its dashboard, the write that decides the send-now limit, the
 * run's deliveries, and the Idempotency-Key and the run it made.
 */
export interface SendNowStore extends RunDeliveryStore, IdempotencyKeys {
  findNotification: DispatchStore['findNotification'];
  findDashboard: DispatchStore['findDashboard'];
  findRun(ref: RunRef): Promise<Run | undefined>;
  /**
   * Creates a manual run and records it as the notification's latest send-now, in one atomic write,
   * unless the previous send-now was after `previousNoLaterThan` or its run is still dispatching. The
   * same write marks a held key done with the run, and writes `deliveries` (a test run's, all of them).
   */
  createManualRun(
    run: Run,
    lease: Lease | undefined,
    previousNoLaterThan: number,
    /** The request's audit event (`sent`, `test_sent`), written with the run. */
    event: NewAuditEvent,
    held?: HeldKey,
    deliveries?: readonly Delivery[],
  ): Promise<ManualRunClaim>;
}

export interface SendNowOptions {
  /** The request's time (epoch ms). */
  now: number;
  /** The request's clock, running on from `now`; without one, time stands at `now`. */
  clock?: Clock;
  /** Draws the run id's random part and the lease owner. */
  randomHex: RandomHex;
  /** A send-now less than this after the notification's previous one is refused. */
  minIntervalMs: number;
  pageSize?: number;
  leaseMs?: number;
  /** Who asks, for the audit event the run is written with. */
  audit: AuditContext;
}

/**
 * Send now: a manual run at once, whether or not the schedule or delivery is enabled (an unavailable
 * dashboard still skips it). The request does a bounded amount of work whatever the number of
 * recipients: it records the run and delivers its first page of recipients
 * (lib/domain/dispatch/page-delivery.ts); a run with more is left `dispatching` under a lease that has
 * already ended, and the next dispatcher pass takes it over and finishes it. Refused (429) less than
 * `minIntervalMs` after the notification's previous send-now, or while that one is still dispatching,
 * decided by one conditional write, so concurrent send-nows cannot all pass.
 */
export async function sendNow(
  store: SendNowStore,
  sink: JobSink,
  ref: NotificationRef,
  options: SendNowOptions,
  idempotency?: IdempotencyKeyInput,
): Promise<RunDto> {
  const stored = await store.findNotification(ref);
  if (!stored) throw notificationNotFound(ref);
  const claim = idempotency && {
    ...idempotency,
    fingerprint: requestFingerprint({ operation: 'send', target: ref, body: {} }),
  };
  return onceForKey(
    store,
    ref.deploymentId,
    claim,
    (held) => makeManualRun(store, sink, stored.notification, options, held),
    (done) => runMadeByKey(store, done),
  );
}

async function makeManualRun(
  store: SendNowStore,
  sink: JobSink,
  notification: Notification,
  options: SendNowOptions,
  held: HeldKey | undefined,
): Promise<RunDto> {
  const ref: NotificationRef = { deploymentId: notification.deploymentId, id: notification.id };
  const dashboard = await store.findDashboard(notification.deploymentId, notification.dashboardId);
  const skipReason = runSkipReason('manual', notification, dashboard);
  const run = newRun(
    ref,
    'manual',
    manualRunId(options.now, options.randomHex(4)),
    options.now,
    options.now,
    skipReason,
  );
  const context = newDeliveryContext(store, sink, options);
  const lease = skipReason ? undefined : leaseFrom(context);
  const event = auditEvent(options.audit, ref, 'sent', { runId: run.runId }, options.now);
  const claim = await store.createManualRun(run, lease, options.now - options.minIntervalMs, event, held);
  if (!claim.created) throw refusalOf(claim, ref, options);
  // The run itself was written on the condition that the notification exists (the claim above); from
  // here a crash leaves it under its lease, and the next dispatcher pass finishes it.
  if (!lease || !dashboard) return toRunDto(run);
  const made = await deliver(context, { run, cursor: undefined }, lease, notification, dashboard, 1);
  // Raced by a delete (lib/store/notifications/notification-guard.ts): what the page wrote is the purge's.
  if (!made) throw notificationNotFound(ref);
  return toRunDto(made);
}

/** Why a send-now (or a test send, which shares its limit) was not made: 404, or 429 with when to retry. */
export function refusalOf(
  claim: ManualRunClaim & { created: false },
  ref: NotificationRef,
  options: Pick<SendNowOptions, 'now' | 'minIntervalMs'>,
): Error {
  if (claim.reason === 'gone') return notificationNotFound(ref);
  const intervalSeconds = options.minIntervalMs / 1000;
  if (claim.reason === 'dispatching')
    return new TooManyRequestsError(
      'The previous send-now of this notification is still dispatching; send again when it is dispatched',
      intervalSeconds,
    );
  return new TooManyRequestsError(
    `At most one send-now of a notification every ${intervalSeconds} s`,
    // A previous send-now stamped later than this request's clock counts as just made.
    (Math.min(claim.previousAt, options.now) + options.minIntervalMs - options.now) / 1000,
  );
}
