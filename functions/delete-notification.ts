import { auditContextOf } from '#lib/domain/audit/audit';
import { deleteNotification } from '#lib/domain/deletion/delete-notification';
import { createHandler } from '#lib/http/create-handler';
import { notificationPath } from '#lib/http/schemas/paths';
import { deleteNotificationRoute } from '#lib/routes';
import { notificationDeletion } from '#lib/store/deletion/notification-delete';
import { eventRecorder } from '#lib/store/webhooks/subscriptions';

/**
 * DELETE /v1/deployments/{deploymentId}/notifications/{id}: the notification goes at once, what it
 * held in the background (lib/domain/deletion/purge.ts).
 */
export const handler = createHandler({
  route: deleteNotificationRoute,
  access: 'admin',
  params: notificationPath,
  success: { status: 204 },
  operation: ({ params, principal, requestId }) =>
    deleteNotification(notificationDeletion, params, {
      audit: auditContextOf(principal, requestId),
      recorder: eventRecorder,
      now: Date.now(),
    }),
});
