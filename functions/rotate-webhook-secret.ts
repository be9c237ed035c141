import { rotateWebhookSecret } from '#lib/domain/webhooks/endpoints';
import { createHandler } from '#lib/http/create-handler';
import { webhookPath } from '#lib/http/schemas/webhooks';
import { webhookContext } from '#lib/jobs/webhook-context';
import { rotateWebhookSecretRoute } from '#lib/routes';
import { webhookEndpointStore } from '#lib/store/webhooks/endpoints';
import { webhookConfig } from '#lib/webhook-config';

/** POST …/webhooks/{webhookId}/rotate-secret: a new secret, shown once; the old one signs beside it for 24 hours. */
export const handler = createHandler({
  route: rotateWebhookSecretRoute,
  access: 'admin',
  params: webhookPath,
  operation: ({ params }) =>
    rotateWebhookSecret(webhookEndpointStore, params, webhookContext(webhookConfig(), Date.now())),
});
