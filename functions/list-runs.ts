import { listRuns } from '#lib/domain/run-lists';
import { credentialsIn } from '#lib/http/authentication';
import { createHandler } from '#lib/http/create-handler';
import { pagingQuery } from '#lib/http/schemas/paging';
import { notificationPath } from '#lib/http/schemas/paths';
import { runPage } from '#lib/http/schemas/runs';
import { runListRepository } from '#lib/store/run-lists';
import { credentialDirectory } from '#lib/store/users';

/** GET /v1/deployments/{deploymentId}/notifications/{id}/runs: a page of runs, newest first. */
export const handler = createHandler({
  access: 'admin',
  authentication: credentialsIn(credentialDirectory),
  params: notificationPath,
  query: pagingQuery,
  response: runPage,
  operation: ({ params, query }) => listRuns(runListRepository, params, query),
});
