import { listSuppressions } from '#lib/domain/suppressions/suppressions';
import { createHandler } from '#lib/http/create-handler';
import { deploymentPath } from '#lib/http/schemas/paths';
import { listSuppressionsQuery } from '#lib/http/schemas/suppressions';
import { listSuppressionsRoute } from '#lib/routes';
import { suppressionListing } from '#lib/store/suppressions/suppressions';

/** GET /v1/deployments/{deploymentId}/suppressions: a page of suppressed addresses, in address order. */
export const handler = createHandler({
  route: listSuppressionsRoute,
  access: 'admin',
  params: deploymentPath,
  query: listSuppressionsQuery,
  operation: ({ params, query }) => listSuppressions(suppressionListing, params.deploymentId, query),
});
