import { listNotifications } from '#lib/domain/notification-lifecycle';
import { credentialsIn } from '#lib/http/authentication';
import { createHandler } from '#lib/http/create-handler';
import { listNotificationsQuery } from '#lib/http/schemas/lifecycle';
import { notificationPageOutput } from '#lib/http/schemas/notification-outputs';
import { deploymentPath } from '#lib/http/schemas/paths';
import { listNotifications as list } from '#lib/store/notification-lists';
import { credentialDirectory } from '#lib/store/users';

/** GET /v1/deployments/{deploymentId}/notifications: a page, newest first, optionally filtered. */
export const handler = createHandler({
  access: 'admin',
  authentication: credentialsIn(credentialDirectory),
  params: deploymentPath,
  query: listNotificationsQuery,
  response: notificationPageOutput,
  operation: ({ params, query }) => listNotifications({ list }, params.deploymentId, query),
});
