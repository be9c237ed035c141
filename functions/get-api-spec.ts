import { createHandler } from '#lib/http/create-handler';
import { apiDescriptionOutput } from '#lib/openapi/document-schemas';
import document from '../lib/openapi/openapi.json' with { type: 'json' };

/** GET /v1/spec: the OpenAPI 3.1 description of this API, built from the request and response schemas. */
export const handler = createHandler({
  access: 'public',
  response: apiDescriptionOutput,
  operation: async () => document,
});
