import * as z from 'zod/mini';

/**
 * The shapes the API description needs beyond the operations' own: the error body every route
 * answers with, and the description itself. Only the builder and the description's function load them.
 */

export const errorOutput = z.object({
  message: z.string(),
  code: z.optional(z.string()),
  errors: z.optional(z.array(z.object({ path: z.string(), message: z.string() }))),
  requestId: z.optional(z.string()),
});

/** The API description itself: an OpenAPI 3.1 document. */
export const apiDescriptionOutput = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.looseObject({})),
});
