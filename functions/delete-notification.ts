import { deleteNotification } from '#lib/domain/notification-lifecycle';
import { credentialsIn } from '#lib/http/authentication';
import { createHandler } from '#lib/http/create-handler';
import { notificationPath } from '#lib/http/schemas/paths';
import { deleteNotification as remove } from '#lib/store/notification-delete';
import { credentialDirectory } from '#lib/store/users';

/**
 * DELETE /v1/deployments/{deploymentId}/notifications/{id}: the notification goes at once, what it
 * held in the background (lib/domain/purge.ts).
 */
export const handler = createHandler({
  access: 'admin',
  authentication: credentialsIn(credentialDirectory),
  params: notificationPath,
  success: { status: 204 },
  operation: ({ params }) => deleteNotification({ delete: remove }, params),
});
