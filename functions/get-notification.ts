import { notificationPath } from '#lib/domain/notification-input';
import { getNotification } from '#lib/domain/notification-lifecycle';
import { createHandler } from '#lib/http/create-handler';
import { findNotification } from '#lib/store/notification-lifecycle';

/** GET /v1/deployments/{deploymentId}/notifications/{id}: one notification. */
export const handler = createHandler({
  access: 'admin',
  params: notificationPath,
  operation: ({ params }) => getNotification({ find: findNotification }, params),
});
