import { config } from '#lib/config';
import { createNotification } from '#lib/domain/notification-writes';
import { credentialsIn } from '#lib/http/authentication';
import { callerOf } from '#lib/http/caller';
import { createHandler } from '#lib/http/create-handler';
import { notificationLocation } from '#lib/http/locations';
import { notificationOutput } from '#lib/http/schemas/notification-outputs';
import { createNotificationInput, idempotencyKeyHeader } from '#lib/http/schemas/notifications';
import { deploymentPath } from '#lib/http/schemas/paths';
import { createNotification as create, dashboardIdOf } from '#lib/store/notification-lifecycle';
import { credentialDirectory } from '#lib/store/users';

/** POST /v1/deployments/{deploymentId}/notifications: a new notification, at most once per Idempotency-Key. */
export const handler = createHandler({
  access: 'admin',
  authentication: credentialsIn(credentialDirectory),
  params: deploymentPath,
  headers: idempotencyKeyHeader,
  body: createNotificationInput,
  response: notificationOutput,
  success: { status: 201, location: notificationLocation },
  operation: ({ params, headers, body, principal }) =>
    createNotification(
      { dashboardIdOf, create },
      params.deploymentId,
      body,
      { customCronMinIntervalMinutes: config().customCronMinIntervalMinutes },
      headers['idempotency-key'] === undefined
        ? undefined
        : { caller: callerOf(principal), key: headers['idempotency-key'] },
    ),
});
