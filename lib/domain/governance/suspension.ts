import { auditEvent, type NewAuditEvent, systemContext } from '#lib/domain/audit/audit';
import type { HoldTarget, NotificationHold } from '#lib/domain/governance/governance';
import {
  type NotificationRef,
  type ScheduledNotification,
  toNotificationDto,
} from '#lib/domain/notifications/notification';
import { isComplete, type Run } from '#lib/domain/runs/runs';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';
import { type EventRecorder, wantedEvent } from '#lib/domain/webhooks/recording';

/**
 * Suspension: after `limit` consecutive scheduled runs that ended `completed_with_failures` with
 * nothing delivered, the notification is suspended (its scheduled instants are not fired until a
 * resume). A scheduled run that delivers to anyone starts the count again; a resume does too. The
 * count moves when a run settles, by the one call that completed it (an outcome report, its repeat or
 * the dispatcher's minute), so each run counts once; a process that dies between the settle and the
 * count loses that run's count, which errs on the side of sending.
 */

export interface SuspensionStore {
  /** Counts one more failed run; the count, the hold, the dashboard and the item's version after it; undefined when gone. */
  countFailedRun(
    ref: NotificationRef,
  ): Promise<{ count: number; hold: NotificationHold; dashboardId: number; version: number } | undefined>;
  /** Starts the count again (nothing is written when it is 0 or the notification is gone). */
  clearFailedRuns(ref: NotificationRef): Promise<void>;
  /** Sets the hold, as a schedule change, on condition that the item is still at `version`; `audit` and `event` with it. */
  writeHold(
    target: HoldTarget,
    hold: NotificationHold,
    version: number,
    clearFailedRuns: boolean,
    audit: NewAuditEvent,
    event?: WebhookEvent,
  ): Promise<unknown>;
  /** The notification with its schedule entry, as a read answers it; undefined when gone. */
  findScheduled(ref: NotificationRef): Promise<ScheduledNotification | undefined>;
}

/**
 * The `notification.suspended` event of a suspension, when an endpoint wants it: the notification as
 * the suspension leaves it, read for it (a suspension is rare; a deployment without such an endpoint
 * reads nothing more).
 */
async function suspensionEvent(
  store: SuspensionStore,
  { recorder, now }: { recorder: EventRecorder; now: number },
  ref: NotificationRef,
  hold: NotificationHold,
): Promise<WebhookEvent | undefined> {
  const subscribed = await recorder.subscribedTypes(ref.deploymentId);
  if (!subscribed.has('notification.suspended')) return undefined;
  const read = await store.findScheduled(ref);
  if (!read) return undefined;
  const notification = toNotificationDto({ ...read, notification: { ...read.notification, hold } }, now);
  return wantedEvent(subscribed, recorder, ref.deploymentId, 'notification.suspended', { notification }, now);
}

/** Whether a run failed to everyone it was queued for. */
const failedToEveryone = (run: Run) =>
  run.status === 'completed_with_failures' && run.recipients.delivered === 0;

/** Takes a run that has just completed into its notification's count; true when that suspended it. */
export async function countSettledRun(
  store: SuspensionStore,
  run: Run,
  limit: number,
  events: { recorder: EventRecorder; now: number },
): Promise<boolean> {
  if (run.trigger !== 'schedule' || !isComplete(run.status)) return false;
  const ref = { deploymentId: run.deploymentId, id: run.notificationId };
  if (run.recipients.delivered > 0) {
    await store.clearFailedRuns(ref);
    return false;
  }
  if (!failedToEveryone(run)) return false;
  const counted = await store.countFailedRun(ref);
  if (!counted || counted.count < limit || counted.hold.suspended) return false;
  // A change in between (a pause, a resume) wins: the next failed run counts again.
  const hold = { ...counted.hold, suspended: true };
  const recorded = auditEvent(systemContext(), ref, 'suspended', null, events.now);
  const event = await suspensionEvent(store, events, ref, hold);
  const written = await store.writeHold(
    { ...ref, dashboardId: counted.dashboardId },
    hold,
    counted.version,
    false,
    recorded,
    event,
  );
  return written !== undefined;
}
