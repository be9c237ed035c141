import { getNotification } from '#lib/domain/notifications/notification-lifecycle';
import { createHandler } from '#lib/http/create-handler';
import { notificationPath } from '#lib/http/schemas/paths';
import { getNotificationRoute } from '#lib/routes';
import { notificationLookup } from '#lib/store/notifications/notification-lifecycle';

/** GET /v1/deployments/{deploymentId}/notifications/{id}: one notification. */
export const handler = createHandler({
  route: getNotificationRoute,
  access: 'admin',
  params: notificationPath,
  operation: ({ params }) => getNotification(notificationLookup, params, Date.now()),
});
