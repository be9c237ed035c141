import { createHandler } from '#lib/http/create-handler';
import document from '../lib/openapi/openapi.json' with { type: 'json' };

/** GET /v1/spec: the OpenAPI 3.1 description of this API, built from the request and response schemas. */
export const handler = createHandler({
  access: 'public',
  operation: async () => document,
});
