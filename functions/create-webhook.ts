import { createWebhook } from '#lib/domain/webhooks/endpoints';
import { createHandler } from '#lib/http/create-handler';
import { jsonBody } from '#lib/http/json-body';
import { webhookLocation } from '#lib/http/locations';
import { deploymentPath } from '#lib/http/schemas/paths';
import { createWebhookInput } from '#lib/http/schemas/webhooks';
import { webhookContext } from '#lib/jobs/webhook-context';
import { createWebhookRoute } from '#lib/routes';
import { webhookEndpointStore } from '#lib/store/webhooks/endpoints';
import { webhookConfig } from '#lib/webhook-config';

/** POST /v1/deployments/{deploymentId}/webhooks: a new endpoint, with its secret shown this once. */
export const handler = createHandler({
  route: createWebhookRoute,
  access: 'admin',
  params: deploymentPath,
  body: jsonBody(createWebhookInput),
  success: { status: 201, location: webhookLocation },
  operation: ({ params, body }) =>
    createWebhook(
      webhookEndpointStore,
      params.deploymentId,
      body,
      webhookContext(webhookConfig(), Date.now()),
    ),
});
