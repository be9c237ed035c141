import { listRuns } from '#lib/domain/runs/run-lists';
import { createHandler } from '#lib/http/create-handler';
import { pagingQuery } from '#lib/http/schemas/paging';
import { notificationPath } from '#lib/http/schemas/paths';
import { listRunsRoute } from '#lib/routes';
import { runListing } from '#lib/store/runs/run-lists';

/** GET /v1/deployments/{deploymentId}/notifications/{id}/runs: a page of runs, newest first. */
export const handler = createHandler({
  route: listRunsRoute,
  access: 'admin',
  params: notificationPath,
  query: pagingQuery,
  operation: ({ params, query }) => listRuns(runListing, params, query),
});
