import { unsubscribe } from '#lib/domain/unsubscribe/unsubscribe';
import { createPublicHandler } from '#lib/http/create-public-handler';
import { unsubscribeQuery } from '#lib/http/schemas/deliveries';
import { unsubscribeRoute } from '#lib/routes';
import { unsubscribeKey } from '#lib/secrets/unsubscribe-key';
import { unsubscribeStore } from '#lib/store/unsubscribe/unsubscribe';
import { eventRecorder } from '#lib/store/webhooks/subscriptions';

/** POST /v1/unsubscribe?token=…: one-click unsubscribe (RFC 8058); the token alone authorizes it, any body is ignored. */
export const handler = createPublicHandler({
  route: unsubscribeRoute,
  query: unsubscribeQuery,
  anyBody: true,
  operation: async ({ query, requestId }) =>
    unsubscribe(unsubscribeStore, query.token, await unsubscribeKey(), {
      recorder: eventRecorder,
      now: Date.now(),
      requestId,
    }),
});
