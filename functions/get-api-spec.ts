import { createPublicHandler } from '#lib/http/create-public-handler';
import { getApiSpecRoute } from '#lib/routes';
import document from '../lib/openapi/openapi.json' with { type: 'json' };

/**
 * GET /v1/spec: the OpenAPI 3.1 description of this API, built from the request and response
 * schemas, naming as its server the base URL it was fetched from (so that a client or the docs page
 * sends its requests where this answer came from, whatever the host, port or stage).
 */
export const handler = createPublicHandler({
  route: getApiSpecRoute,
  operation: async ({ baseUrl }) => ({
    ...document,
    servers: [{ url: baseUrl, description: 'Where this description was fetched from' }],
  }),
});
