import { listDeliveries } from '#lib/domain/run-lists';
import { credentialsIn } from '#lib/http/authentication';
import { createHandler } from '#lib/http/create-handler';
import { pagingQuery } from '#lib/http/schemas/paging';
import { runPath } from '#lib/http/schemas/paths';
import { deliveryPage } from '#lib/http/schemas/runs';
import { runListRepository } from '#lib/store/run-lists';
import { credentialDirectory } from '#lib/store/users';

/** GET /v1/deployments/{deploymentId}/notifications/{id}/runs/{runId}/deliveries: a page of a run's deliveries. */
export const handler = createHandler({
  access: 'admin',
  authentication: credentialsIn(credentialDirectory),
  params: runPath,
  query: pagingQuery,
  response: deliveryPage,
  operation: ({ params, query }) => listDeliveries(runListRepository, params, query),
});
