import { listWebhookMessages } from '#lib/domain/webhooks/message-lists';
import { createHandler } from '#lib/http/create-handler';
import { pagingQuery } from '#lib/http/schemas/paging';
import { webhookPath } from '#lib/http/schemas/webhooks';
import { listWebhookMessagesRoute } from '#lib/routes';
import { webhookEndpointReader } from '#lib/store/webhooks/endpoints';
import { webhookMessageListing } from '#lib/store/webhooks/message-lists';

/** GET …/webhooks/{webhookId}/messages: a page of the endpoint's messages of the last 30 days, newest first. */
export const handler = createHandler({
  route: listWebhookMessagesRoute,
  access: 'admin',
  params: webhookPath,
  query: pagingQuery,
  operation: ({ params, query }) =>
    listWebhookMessages({ endpoints: webhookEndpointReader, messages: webhookMessageListing }, params, query),
});
