import { listSubscriptions } from '#lib/domain/self-service/self-service';
import { createHandler } from '#lib/http/create-handler';
import { pagingQuery } from '#lib/http/schemas/paging';
import { embedCallerOf } from '#lib/http/schemas/self-service';
import { listEmbedNotificationsRoute } from '#lib/routes';
import { subscriptionDirectory } from '#lib/store/self-service/self-service';

/** GET /v1/embed/notifications: the calling embed user's own subscriptions, newest first. */
export const handler = createHandler({
  route: listEmbedNotificationsRoute,
  access: 'embed-user',
  query: pagingQuery,
  operation: ({ query, principal }) =>
    listSubscriptions(subscriptionDirectory, embedCallerOf(principal), query, Date.now()),
});
