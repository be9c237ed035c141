import { notificationPath } from '#lib/domain/notification-input';
import { listRuns } from '#lib/domain/run-lists';
import { createHandler } from '#lib/http/create-handler';
import { pagingQuery } from '#lib/http/schemas/paging';
import { runListRepository } from '#lib/store/run-lists';

/** GET /v1/deployments/{deploymentId}/notifications/{id}/runs: a page of runs, newest first. */
export const handler = createHandler({
  access: 'admin',
  params: notificationPath,
  query: pagingQuery,
  operation: ({ params, query }) => listRuns(runListRepository, params, query),
});
