import { backoff } from '#lib/concurrency';
import { auditContextOf } from '#lib/domain/audit/audit';
import { updateNotification } from '#lib/domain/notifications/notification-writes';
import { createHandler } from '#lib/http/create-handler';
import { jsonBody } from '#lib/http/json-body';
import { updateNotificationInput } from '#lib/http/schemas/notifications';
import { notificationPath } from '#lib/http/schemas/paths';
import { updateNotificationRoute } from '#lib/routes';
import { notificationUpdate } from '#lib/store/notifications/notifications';

/** PUT /v1/deployments/{deploymentId}/notifications/{id}: replace the supplied fields of a notification. */
export const handler = createHandler({
  route: updateNotificationRoute,
  access: 'admin',
  params: notificationPath,
  body: jsonBody(updateNotificationInput, { optional: true }),
  operation: ({ params, body, settings, principal, requestId }) =>
    updateNotification(
      notificationUpdate,
      params,
      body,
      settings,
      { now: Date.now(), pause: backoff },
      auditContextOf(principal, requestId),
    ),
});
