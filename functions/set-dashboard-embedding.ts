import { dashboardPath, setDashboardEmbedding, updateDashboardEmbeddingInput } from '#lib/domain/embedding';
import { createHandler } from '#lib/http/create-handler';
import { dashboardEmbeddingOutput } from '#lib/http/schemas/api-outputs';
import { dashboardRepository } from '#lib/store/dashboards';

/** PATCH /v1/embed/dashboard/{publicId}: turn signed embedding of a dashboard on or off. */
export const handler = createHandler({
  access: 'admin',
  params: dashboardPath,
  body: updateDashboardEmbeddingInput,
  response: dashboardEmbeddingOutput,
  operation: ({ params, body }) => setDashboardEmbedding(dashboardRepository, params.publicId, body),
});
