import { type AuditContext, auditEvent, type NewAuditEvent } from '#lib/domain/audit/audit';
import { type NotificationRef, notificationNotFound } from '#lib/domain/notifications/notification';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';
import { type EventRecorder, eventToRecord } from '#lib/domain/webhooks/recording';

/**
 * The delete of a notification, by an admin or by the embed user whose subscription it is: the
 * notification goes at once, with its audit event and its `notification.deleted` webhook event when an
 * endpoint wants it; what it held goes in the background (lib/domain/deletion/purge.ts).
 */

/** Who deletes, who wants to hear of it, and when. */
export interface DeletionContext {
  audit: AuditContext;
  recorder: EventRecorder;
  now: number;
}

export interface NotificationDeletion {
  /**
   * Removes the notification and everything stored under it, recording `audit` and `event` in the
   * same write; false when there was no notification (and nothing is recorded).
   */
  delete(deploymentId: number, id: number, audit: NewAuditEvent, event?: WebhookEvent): Promise<boolean>;
}

export async function deleteNotification(
  notifications: NotificationDeletion,
  target: NotificationRef,
  { audit, recorder, now }: DeletionContext,
): Promise<void> {
  const recorded = auditEvent(audit, target, 'deleted', null, now);
  const data = { deploymentId: target.deploymentId, notificationId: target.id };
  const event = await eventToRecord(recorder, target.deploymentId, 'notification.deleted', data, now);
  if (!(await notifications.delete(target.deploymentId, target.id, recorded, event)))
    throw notificationNotFound(target);
}
