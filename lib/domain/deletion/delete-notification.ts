import { type NotificationRef, notificationNotFound } from '#lib/domain/notifications/notification';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';
import { type EventRecorder, eventToRecord } from '#lib/domain/webhooks/recording';

/**
 * The delete of a notification, by an admin or by the embed user whose subscription it is: the
 * notification goes at once, with its `notification.deleted` event when an endpoint wants it; what it
 * held goes in the background (lib/domain/deletion/purge.ts).
 */

/** Delete. */
export interface NotificationDeletion {
  /**
   * Removes the notification and everything stored under it, recording `event` in the same write;
   * false when there was no notification (and nothing is recorded).
   */
  delete(deploymentId: number, id: number, event?: WebhookEvent): Promise<boolean>;
}

export async function deleteNotification(
  notifications: NotificationDeletion,
  target: NotificationRef,
  events: { recorder: EventRecorder; now: number },
): Promise<void> {
  const data = { deploymentId: target.deploymentId, notificationId: target.id };
  const event = await eventToRecord(
    events.recorder,
    target.deploymentId,
    'notification.deleted',
    data,
    events.now,
  );
  if (!(await notifications.delete(target.deploymentId, target.id, event)))
    throw notificationNotFound(target);
}
