import { unsubscribe } from '#lib/domain/unsubscribe';
import { createHandler } from '#lib/http/create-handler';
import { unsubscribeOutput, unsubscribeQuery } from '#lib/http/schemas/deliveries';
import { unsubscribeKey } from '#lib/secrets/unsubscribe-key';
import { unsubscribeStore } from '#lib/store/unsubscribe';

/** POST /v1/unsubscribe?token=…: one-click unsubscribe (RFC 8058); the token alone authorizes it, any body is ignored. */
export const handler = createHandler({
  access: 'public',
  query: unsubscribeQuery,
  response: unsubscribeOutput,
  operation: async ({ query }) => unsubscribe(unsubscribeStore, query.token, await unsubscribeKey()),
});
