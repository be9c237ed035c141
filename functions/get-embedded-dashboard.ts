import { getEmbeddedDashboard } from '#lib/domain/embedding';
import { credentialsIn } from '#lib/http/authentication';
import { createHandler } from '#lib/http/create-handler';
import { dashboardPath } from '#lib/http/schemas/embedding';
import { embeddedDashboardOutput } from '#lib/http/schemas/embedding-outputs';
import { dashboardRepository } from '#lib/store/dashboards';
import { credentialDirectory } from '#lib/store/users';

/** GET /v1/embed/dashboard/{publicId}: the dashboard, if this caller may embed it. */
export const handler = createHandler({
  access: 'embed-read',
  authentication: credentialsIn(credentialDirectory),
  params: dashboardPath,
  response: embeddedDashboardOutput,
  operation: ({ params, principal }) => getEmbeddedDashboard(dashboardRepository, principal, params.publicId),
});
