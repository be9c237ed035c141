import { auditContextOf } from '#lib/domain/audit/audit';
import { deleteSubscription } from '#lib/domain/self-service/self-service';
import { createHandler } from '#lib/http/create-handler';
import { embedCallerOf, subscriptionPath } from '#lib/http/schemas/self-service';
import { deleteEmbedNotificationRoute } from '#lib/routes';
import { notificationDeletion } from '#lib/store/deletion/notification-delete';
import { subscriptionDirectory } from '#lib/store/self-service/self-service';
import { eventRecorder } from '#lib/store/webhooks/subscriptions';

/** DELETE /v1/embed/notifications/{id}: the caller ends their own subscription. */
export const handler = createHandler({
  route: deleteEmbedNotificationRoute,
  access: 'embed-user',
  params: subscriptionPath,
  success: { status: 204 },
  operation: ({ params, principal, requestId }) =>
    deleteSubscription(subscriptionDirectory, notificationDeletion, embedCallerOf(principal), params.id, {
      audit: auditContextOf(principal, requestId),
      recorder: eventRecorder,
      now: Date.now(),
    }),
});
