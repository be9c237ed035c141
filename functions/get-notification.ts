import { notificationPath } from '#lib/domain/notification-input';
import { getNotification } from '#lib/domain/notification-lifecycle';
import { createHandler } from '#lib/http/create-handler';
import { notificationOutput } from '#lib/http/schemas/api-outputs';
import { findNotification } from '#lib/store/notification-lifecycle';

/** GET /v1/deployments/{deploymentId}/notifications/{id}: one notification. */
export const handler = createHandler({
  access: 'admin',
  params: notificationPath,
  response: notificationOutput,
  operation: ({ params }) => getNotification({ find: findNotification }, params),
});
