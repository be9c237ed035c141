import { notificationPath } from '#lib/domain/notification-input';
import { deleteNotification } from '#lib/domain/notification-lifecycle';
import { createHandler } from '#lib/http/create-handler';
import { deleteNotification as remove } from '#lib/store/notification-lifecycle';

/** DELETE /v1/deployments/{deploymentId}/notifications/{id}: the notification and all it holds. */
export const handler = createHandler({
  access: 'admin',
  params: notificationPath,
  success: { status: 204 },
  operation: ({ params }) => deleteNotification({ delete: remove }, params),
});
