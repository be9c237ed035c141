import { backoff } from '#lib/concurrency';
import { auditContextOf } from '#lib/domain/audit/audit';
import { updateSubscription } from '#lib/domain/self-service/self-service-writes';
import { createHandler } from '#lib/http/create-handler';
import { jsonBody } from '#lib/http/json-body';
import { subscriberOf, subscriptionPath } from '#lib/http/schemas/self-service';
import { updateSubscriptionInput } from '#lib/http/schemas/subscription-update';
import { updateEmbedNotificationRoute } from '#lib/routes';
import { subscriptionUpdate } from '#lib/store/self-service/self-service-update';

/** PUT /v1/embed/notifications/{id}: the caller changes their own subscription. */
export const handler = createHandler({
  route: updateEmbedNotificationRoute,
  access: 'embed-user',
  params: subscriptionPath,
  body: jsonBody(updateSubscriptionInput, { optional: true }),
  operation: ({ params, body, principal, settings, requestId }) =>
    updateSubscription(
      subscriptionUpdate,
      subscriberOf(principal),
      params.id,
      body,
      settings,
      { now: Date.now(), pause: backoff },
      auditContextOf(principal, requestId),
    ),
});
