import { listWebhooks } from '#lib/domain/webhooks/endpoints';
import { createHandler } from '#lib/http/create-handler';
import { pagingQuery } from '#lib/http/schemas/paging';
import { deploymentPath } from '#lib/http/schemas/paths';
import { listWebhooksRoute } from '#lib/routes';
import { webhookEndpointReader } from '#lib/store/webhooks/endpoints';

/** GET /v1/deployments/{deploymentId}/webhooks: the deployment's endpoints (at most ten: one page), no secrets. */
export const handler = createHandler({
  route: listWebhooksRoute,
  access: 'admin',
  params: deploymentPath,
  query: pagingQuery,
  operation: ({ params, query }) => listWebhooks(webhookEndpointReader, params.deploymentId, query),
});
