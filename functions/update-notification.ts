import { config } from '#lib/config';
import { updateNotification } from '#lib/domain/notification';
import { notificationPath, updateNotificationInput } from '#lib/domain/notification-input';
import { createHandler } from '#lib/http/create-handler';
import { notificationRepository } from '#lib/store/notifications';

/** PUT /v1/deployments/{deploymentId}/notifications/{id}: replace the supplied fields of a notification. */
export const handler = createHandler({
  access: 'admin',
  params: notificationPath,
  body: updateNotificationInput,
  bodyOptional: true,
  operation: ({ params, body }) =>
    updateNotification(notificationRepository, params, body, {
      customCronMinIntervalMinutes: config().customCronMinIntervalMinutes,
    }),
});
