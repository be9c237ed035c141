import { retryWebhookMessage } from '#lib/domain/webhooks/message-lists';
import { createHandler } from '#lib/http/create-handler';
import { webhookMessagePath } from '#lib/http/schemas/webhooks';
import { retryWebhookMessageRoute } from '#lib/routes';
import { webhookEndpointReader } from '#lib/store/webhooks/endpoints';
import { webhookMessageRetry } from '#lib/store/webhooks/message-lists';

/** POST …/webhooks/{webhookId}/messages/{messageId}/retry: the message goes once more, now (202). */
export const handler = createHandler({
  route: retryWebhookMessageRoute,
  access: 'admin',
  params: webhookMessagePath,
  success: { status: 202 },
  operation: ({ params }) =>
    retryWebhookMessage(
      { endpoints: webhookEndpointReader, messages: webhookMessageRetry },
      params,
      Date.now(),
    ),
});
