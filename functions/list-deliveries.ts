import { listDeliveries } from '#lib/domain/runs/run-lists';
import { createHandler } from '#lib/http/create-handler';
import { pagingQuery } from '#lib/http/schemas/paging';
import { runPath } from '#lib/http/schemas/paths';
import { listDeliveriesRoute } from '#lib/routes';
import { deliveryListing } from '#lib/store/runs/run-lists';

/** GET /v1/deployments/{deploymentId}/notifications/{id}/runs/{runId}/deliveries: a page of a run's deliveries. */
export const handler = createHandler({
  route: listDeliveriesRoute,
  access: 'admin',
  params: runPath,
  query: pagingQuery,
  operation: ({ params, query }) => listDeliveries(deliveryListing, params, query),
});
