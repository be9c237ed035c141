import { config } from '#lib/config';
import { updateNotification } from '#lib/domain/notification-writes';
import { credentialsIn } from '#lib/http/authentication';
import { createHandler } from '#lib/http/create-handler';
import { notificationOutput } from '#lib/http/schemas/notification-outputs';
import { updateNotificationInput } from '#lib/http/schemas/notifications';
import { notificationPath } from '#lib/http/schemas/paths';
import { notificationRepository } from '#lib/store/notifications';
import { credentialDirectory } from '#lib/store/users';

/** PUT /v1/deployments/{deploymentId}/notifications/{id}: replace the supplied fields of a notification. */
export const handler = createHandler({
  access: 'admin',
  authentication: credentialsIn(credentialDirectory),
  params: notificationPath,
  body: updateNotificationInput,
  response: notificationOutput,
  bodyOptional: true,
  operation: ({ params, body }) =>
    updateNotification(notificationRepository, params, body, {
      customCronMinIntervalMinutes: config().customCronMinIntervalMinutes,
    }),
});
