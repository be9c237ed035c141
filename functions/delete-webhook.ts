import { deleteWebhook } from '#lib/domain/webhooks/endpoints';
import { createHandler } from '#lib/http/create-handler';
import { webhookPath } from '#lib/http/schemas/webhooks';
import { deleteWebhookRoute } from '#lib/routes';
import { webhookEndpointStore } from '#lib/store/webhooks/endpoints';

/** DELETE /v1/deployments/{deploymentId}/webhooks/{webhookId}: no more messages to it; its pending ones stop. */
export const handler = createHandler({
  route: deleteWebhookRoute,
  access: 'admin',
  params: webhookPath,
  success: { status: 204 },
  operation: ({ params }) => deleteWebhook(webhookEndpointStore, params),
});
