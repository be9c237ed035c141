import { listNotifications } from '#lib/domain/notification-lifecycle';
import { createHandler } from '#lib/http/create-handler';
import { notificationPageOutput } from '#lib/http/schemas/api-outputs';
import { deploymentPath, listNotificationsQuery } from '#lib/http/schemas/lifecycle';
import { listNotifications as list } from '#lib/store/notification-lists';
import { credentialDirectory } from '#lib/store/users';

/** GET /v1/deployments/{deploymentId}/notifications: a page, newest first, optionally filtered. */
export const handler = createHandler({
  access: 'admin',
  credentials: credentialDirectory,
  params: deploymentPath,
  query: listNotificationsQuery,
  response: notificationPageOutput,
  operation: ({ params, query }) => listNotifications({ list }, params.deploymentId, query),
});
