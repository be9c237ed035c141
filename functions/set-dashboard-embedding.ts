import { setDashboardEmbedding } from '#lib/domain/embedding/embedding';
import { createHandler } from '#lib/http/create-handler';
import { jsonBody } from '#lib/http/json-body';
import { dashboardPath, updateDashboardEmbeddingInput } from '#lib/http/schemas/embedding';
import { setDashboardEmbeddingRoute } from '#lib/routes';
import { embeddingSwitch } from '#lib/store/embedding/dashboards';

/** PATCH /v1/embed/dashboard/{publicId}: turn signed embedding of a dashboard on or off. */
export const handler = createHandler({
  route: setDashboardEmbeddingRoute,
  access: 'admin',
  params: dashboardPath,
  body: jsonBody(updateDashboardEmbeddingInput),
  operation: ({ params, body }) => setDashboardEmbedding(embeddingSwitch, params.publicId, body),
});
