import { getWebhook } from '#lib/domain/webhooks/endpoints';
import { createHandler } from '#lib/http/create-handler';
import { webhookPath } from '#lib/http/schemas/webhooks';
import { getWebhookRoute } from '#lib/routes';
import { webhookEndpointReader } from '#lib/store/webhooks/endpoints';

/** GET /v1/deployments/{deploymentId}/webhooks/{webhookId}: one endpoint, without its secret. */
export const handler = createHandler({
  route: getWebhookRoute,
  access: 'admin',
  params: webhookPath,
  operation: ({ params }) => getWebhook(webhookEndpointReader, params),
});
