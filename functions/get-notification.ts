import { getNotification } from '#lib/domain/notification-lifecycle';
import { credentialsIn } from '#lib/http/authentication';
import { createHandler } from '#lib/http/create-handler';
import { notificationOutput } from '#lib/http/schemas/notification-outputs';
import { notificationPath } from '#lib/http/schemas/paths';
import { findNotification } from '#lib/store/notification-lifecycle';
import { credentialDirectory } from '#lib/store/users';

/** GET /v1/deployments/{deploymentId}/notifications/{id}: one notification. */
export const handler = createHandler({
  access: 'admin',
  authentication: credentialsIn(credentialDirectory),
  params: notificationPath,
  response: notificationOutput,
  operation: ({ params }) => getNotification({ find: findNotification }, params),
});
