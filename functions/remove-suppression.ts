import { removeSuppression } from '#lib/domain/suppressions/suppressions';
import { createHandler } from '#lib/http/create-handler';
import { suppressionPath } from '#lib/http/schemas/suppressions';
import { removeSuppressionRoute } from '#lib/routes';
import { suppressionRemoval } from '#lib/store/suppressions/suppressions';

/** DELETE /v1/deployments/{deploymentId}/suppressions/{email}: 204; 404 when the address is not suppressed. */
export const handler = createHandler({
  route: removeSuppressionRoute,
  access: 'admin',
  params: suppressionPath,
  success: { status: 204 },
  operation: ({ params }) => removeSuppression(suppressionRemoval, params.deploymentId, params.email),
});
