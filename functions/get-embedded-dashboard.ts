import { getEmbeddedDashboard } from '#lib/domain/embedding/embedding';
import { createHandler } from '#lib/http/create-handler';
import { dashboardPath } from '#lib/http/schemas/embedding';
import { getEmbeddedDashboardRoute } from '#lib/routes';
import { dashboardLookup } from '#lib/store/embedding/dashboards';

/** GET /v1/embed/dashboard/{publicId}: the dashboard, if this caller may embed it. */
export const handler = createHandler({
  route: getEmbeddedDashboardRoute,
  access: 'embed-read',
  params: dashboardPath,
  operation: ({ params, principal }) => getEmbeddedDashboard(dashboardLookup, principal, params.publicId),
});
