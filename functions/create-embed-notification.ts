import { auditContextOf } from '#lib/domain/audit/audit';
import { createSubscription } from '#lib/domain/self-service/self-service-writes';
import { callerOf } from '#lib/http/caller';
import { createHandler } from '#lib/http/create-handler';
import { jsonBody } from '#lib/http/json-body';
import { idempotencyKeyHeader } from '#lib/http/schemas/notifications';
import { createSubscriptionInput, subscriberOf } from '#lib/http/schemas/self-service';
import { createEmbedNotificationRoute } from '#lib/routes';
import { subscriptionCreation } from '#lib/store/self-service/self-service';

/** POST /v1/embed/notifications: the calling embed user subscribes themselves to a dashboard. */
export const handler = createHandler({
  route: createEmbedNotificationRoute,
  access: 'embed-user',
  headers: idempotencyKeyHeader,
  body: jsonBody(createSubscriptionInput),
  success: { status: 201, location: (dto: { id: number }) => `/v1/embed/notifications/${dto.id}` },
  operation: ({ body, headers, principal, settings, requestId }) =>
    createSubscription(
      subscriptionCreation,
      subscriberOf(principal),
      body,
      settings,
      Date.now(),
      auditContextOf(principal, requestId),
      headers['idempotency-key'] === undefined
        ? undefined
        : { caller: callerOf(principal), key: headers['idempotency-key'] },
    ),
});
