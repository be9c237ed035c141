import { auditContextOf } from '#lib/domain/audit/audit';
import { pauseNotification } from '#lib/domain/governance/governance-writes';
import { createHandler } from '#lib/http/create-handler';
import { jsonBody } from '#lib/http/json-body';
import { pauseInput } from '#lib/http/schemas/governance';
import { notificationPath } from '#lib/http/schemas/paths';
import { pauseNotificationRoute } from '#lib/routes';
import { holdStore } from '#lib/store/governance/notification-holds';
import { eventRecorder } from '#lib/store/webhooks/subscriptions';

/** POST /v1/deployments/{deploymentId}/notifications/{id}/pause: no scheduled instant fires until `until` (or a resume). */
export const handler = createHandler({
  route: pauseNotificationRoute,
  access: 'admin',
  params: notificationPath,
  body: jsonBody(pauseInput, { optional: true }),
  operation: ({ params, body, principal, requestId }) =>
    pauseNotification(holdStore, params, body, {
      audit: auditContextOf(principal, requestId),
      recorder: eventRecorder,
      now: Date.now(),
    }),
});
