import { listNotifications } from '#lib/domain/notifications/notification-lifecycle';
import { createHandler } from '#lib/http/create-handler';
import { listNotificationsQuery } from '#lib/http/schemas/lifecycle';
import { deploymentPath } from '#lib/http/schemas/paths';
import { listNotificationsRoute } from '#lib/routes';
import { notificationListing } from '#lib/store/notifications/notification-lists';

/** GET /v1/deployments/{deploymentId}/notifications: a page, newest first, optionally filtered. */
export const handler = createHandler({
  route: listNotificationsRoute,
  access: 'admin',
  params: deploymentPath,
  query: listNotificationsQuery,
  operation: ({ params, query }) =>
    listNotifications(notificationListing, params.deploymentId, query, Date.now()),
});
