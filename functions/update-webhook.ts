import { updateWebhook } from '#lib/domain/webhooks/endpoints';
import { createHandler } from '#lib/http/create-handler';
import { jsonBody } from '#lib/http/json-body';
import { updateWebhookInput, webhookPath } from '#lib/http/schemas/webhooks';
import { webhookContext } from '#lib/jobs/webhook-context';
import { updateWebhookRoute } from '#lib/routes';
import { webhookEndpointStore } from '#lib/store/webhooks/endpoints';
import { webhookConfig } from '#lib/webhook-config';

/** PATCH /v1/deployments/{deploymentId}/webhooks/{webhookId}: the fields given change, the rest stay. */
export const handler = createHandler({
  route: updateWebhookRoute,
  access: 'admin',
  params: webhookPath,
  body: jsonBody(updateWebhookInput),
  operation: ({ params, body }) =>
    updateWebhook(webhookEndpointStore, params, body, webhookContext(webhookConfig(), Date.now())),
});
