import { addManualSuppression } from '#lib/domain/suppressions/suppressions';
import { createHandler } from '#lib/http/create-handler';
import { jsonBody } from '#lib/http/json-body';
import { suppressionLocation } from '#lib/http/locations';
import { deploymentPath } from '#lib/http/schemas/paths';
import { addSuppressionInput } from '#lib/http/schemas/suppressions';
import { addSuppressionRoute } from '#lib/routes';
import { suppressionAdding } from '#lib/store/suppressions/suppressions';
import { eventRecorder } from '#lib/store/webhooks/subscriptions';

/** POST /v1/deployments/{deploymentId}/suppressions: 201 with the suppression that stands (a repeat changes nothing). */
export const handler = createHandler({
  route: addSuppressionRoute,
  access: 'admin',
  params: deploymentPath,
  body: jsonBody(addSuppressionInput),
  success: { status: 201, location: suppressionLocation },
  operation: ({ params, body }) =>
    addManualSuppression(suppressionAdding, params.deploymentId, body.email, Date.now(), eventRecorder),
});
