import { auditEvent, type ChangeContext, type NewAuditEvent } from '#lib/domain/audit/audit';
import {
  type NotificationOwner,
  type NotificationRef,
  notificationNotFound,
} from '#lib/domain/notifications/notification';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';
import { eventToRecord } from '#lib/domain/webhooks/recording';

/**
 * The delete of a notification, by an admin or by the embed user whose subscription it is: the
 * notification goes at once, with its audit event and its `notification.deleted` webhook event when an
 * endpoint wants it; what it held goes in the background (lib/domain/deletion/purge.ts).
 */

export interface NotificationDeletion {
  /**
   * Removes the notification and everything stored under it, recording `audit` and `event` in the
   * same write; false when there was no notification (and nothing is recorded). `owner`: its owner as
   * the caller read it, when it did (saves a try when it is an embed user, whose count goes with it).
   */
  delete(
    deploymentId: number,
    id: number,
    audit: NewAuditEvent,
    event?: WebhookEvent,
    owner?: NotificationOwner | null,
  ): Promise<boolean>;
}

export async function deleteNotification(
  notifications: NotificationDeletion,
  target: NotificationRef,
  { audit, recorder, now }: ChangeContext,
  owner?: NotificationOwner | null,
): Promise<void> {
  const recorded = auditEvent(audit, target, 'deleted', null, now);
  const data = { deploymentId: target.deploymentId, notificationId: target.id };
  const event = await eventToRecord(recorder, target.deploymentId, 'notification.deleted', data, now);
  if (!(await notifications.delete(target.deploymentId, target.id, recorded, event, owner)))
    throw notificationNotFound(target);
}
