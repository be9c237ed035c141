import { listDeploymentEvents } from '#lib/domain/audit/audit-lists';
import { createHandler } from '#lib/http/create-handler';
import { listDeploymentEventsQuery } from '#lib/http/schemas/audit';
import { deploymentPath } from '#lib/http/schemas/paths';
import { listDeploymentEventsRoute } from '#lib/routes';
import { auditListing } from '#lib/store/audit/audit-events';

/** GET /v1/deployments/{deploymentId}/events: a page of the deployment's audit events, newest first. */
export const handler = createHandler({
  route: listDeploymentEventsRoute,
  access: 'admin',
  params: deploymentPath,
  query: listDeploymentEventsQuery,
  operation: ({ params, query }) => listDeploymentEvents(auditListing, params.deploymentId, query),
});
