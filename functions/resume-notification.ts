import { auditContextOf } from '#lib/domain/audit/audit';
import { resumeNotification } from '#lib/domain/governance/governance-writes';
import { createHandler } from '#lib/http/create-handler';
import { notificationPath } from '#lib/http/schemas/paths';
import { resumeNotificationRoute } from '#lib/routes';
import { holdStore } from '#lib/store/governance/notification-holds';
import { eventRecorder } from '#lib/store/webhooks/subscriptions';

/** POST /v1/deployments/{deploymentId}/notifications/{id}/resume: clears a pause and a suspension; 409 while orphaned. */
export const handler = createHandler({
  route: resumeNotificationRoute,
  access: 'admin',
  params: notificationPath,
  operation: ({ params, principal, requestId }) =>
    resumeNotification(holdStore, params, {
      audit: auditContextOf(principal, requestId),
      recorder: eventRecorder,
      now: Date.now(),
    }),
});
