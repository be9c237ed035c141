import { config } from '#lib/config';
import { updateNotification } from '#lib/domain/notification';
import { notificationPath, updateNotificationInput } from '#lib/domain/notification-input';
import { createHandler } from '#lib/http/create-handler';
import { notificationOutput } from '#lib/http/schemas/api-outputs';
import { notificationRepository } from '#lib/store/notifications';

/** PUT /v1/deployments/{deploymentId}/notifications/{id}: replace the supplied fields of a notification. */
export const handler = createHandler({
  access: 'admin',
  params: notificationPath,
  body: updateNotificationInput,
  response: notificationOutput,
  bodyOptional: true,
  operation: ({ params, body }) =>
    updateNotification(notificationRepository, params, body, {
      customCronMinIntervalMinutes: config().customCronMinIntervalMinutes,
    }),
});
