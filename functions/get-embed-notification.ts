import { getSubscription } from '#lib/domain/self-service/self-service';
import { createHandler } from '#lib/http/create-handler';
import { embedCallerOf, subscriptionPath } from '#lib/http/schemas/self-service';
import { getEmbedNotificationRoute } from '#lib/routes';
import { subscriptionDirectory } from '#lib/store/self-service/self-service';

/** GET /v1/embed/notifications/{id}: one of the caller's own subscriptions. */
export const handler = createHandler({
  route: getEmbedNotificationRoute,
  access: 'embed-user',
  params: subscriptionPath,
  operation: ({ params, principal }) =>
    getSubscription(subscriptionDirectory, embedCallerOf(principal), params.id, Date.now()),
});
