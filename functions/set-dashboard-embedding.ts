import { setDashboardEmbedding } from '#lib/domain/embedding';
import { credentialsIn } from '#lib/http/authentication';
import { createHandler } from '#lib/http/create-handler';
import { dashboardPath, updateDashboardEmbeddingInput } from '#lib/http/schemas/embedding';
import { dashboardEmbeddingOutput } from '#lib/http/schemas/embedding-outputs';
import { dashboardRepository } from '#lib/store/dashboards';
import { credentialDirectory } from '#lib/store/users';

/** PATCH /v1/embed/dashboard/{publicId}: turn signed embedding of a dashboard on or off. */
export const handler = createHandler({
  access: 'admin',
  authentication: credentialsIn(credentialDirectory),
  params: dashboardPath,
  body: updateDashboardEmbeddingInput,
  response: dashboardEmbeddingOutput,
  operation: ({ params, body }) => setDashboardEmbedding(dashboardRepository, params.publicId, body),
});
