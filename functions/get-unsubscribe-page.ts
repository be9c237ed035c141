import { UNSUBSCRIBE_PAGE_POLICY, unsubscribePage } from '#lib/domain/unsubscribe';
import { createHandler } from '#lib/http/create-handler';
import { unsubscribePageOutput, unsubscribeQuery } from '#lib/http/schemas/deliveries';
import { unsubscribeKey } from '#lib/secrets/unsubscribe-key';

/** GET /v1/unsubscribe?token=…: a confirmation page whose button POSTs; it changes nothing itself. */
export const handler = createHandler({
  access: 'public',
  query: unsubscribeQuery,
  success: { status: 200, html: { contentSecurityPolicy: UNSUBSCRIBE_PAGE_POLICY } },
  response: unsubscribePageOutput,
  operation: async ({ query }) => unsubscribePage(query.token, await unsubscribeKey()),
});
