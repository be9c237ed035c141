import { auditContextOf } from '#lib/domain/audit/audit';
import { ownerOf } from '#lib/domain/governance/governance';
import { createNotification } from '#lib/domain/notifications/notification-writes';
import { callerOf } from '#lib/http/caller';
import { createHandler } from '#lib/http/create-handler';
import { jsonBody } from '#lib/http/json-body';
import { notificationLocation } from '#lib/http/locations';
import { createNotificationInput } from '#lib/http/schemas/notification-create';
import { idempotencyKeyHeader } from '#lib/http/schemas/notifications';
import { deploymentPath } from '#lib/http/schemas/paths';
import { createNotificationRoute } from '#lib/routes';
import { notificationCreation } from '#lib/store/notifications/notification-lifecycle';

/** POST /v1/deployments/{deploymentId}/notifications: a new notification, at most once per Idempotency-Key. */
export const handler = createHandler({
  route: createNotificationRoute,
  access: 'admin',
  params: deploymentPath,
  headers: idempotencyKeyHeader,
  body: jsonBody(createNotificationInput),
  success: { status: 201, location: notificationLocation },
  operation: ({ params, headers, body, principal, settings, requestId }) =>
    createNotification(
      notificationCreation,
      params.deploymentId,
      body,
      settings,
      Date.now(),
      ownerOf(principal),
      auditContextOf(principal, requestId),
      headers['idempotency-key'] === undefined
        ? undefined
        : { caller: callerOf(principal), key: headers['idempotency-key'] },
    ),
});
