import { UNSUBSCRIBE_PAGE_POLICY, unsubscribePage } from '#lib/domain/unsubscribe/unsubscribe';
import { createPublicHandler } from '#lib/http/create-public-handler';
import { unsubscribeQuery } from '#lib/http/schemas/deliveries';
import { getUnsubscribePageRoute } from '#lib/routes';
import { unsubscribeKey } from '#lib/secrets/unsubscribe-key';
import { subscriptionReader } from '#lib/store/unsubscribe/unsubscribe';

/** GET /v1/unsubscribe?token=…: a confirmation page whose button POSTs (or says the link expired); it changes nothing. */
export const handler = createPublicHandler({
  route: getUnsubscribePageRoute,
  query: unsubscribeQuery,
  success: { status: 200, html: { contentSecurityPolicy: UNSUBSCRIBE_PAGE_POLICY } },
  operation: async ({ query }) => unsubscribePage(subscriptionReader, query.token, await unsubscribeKey()),
});
