import * as z from 'zod/mini';
import { pathId } from '#lib/http/schemas/common';

/**
 * The path parameters several operations share, in a module of their own: a function imports its
 * path without the request bodies of its neighbours (a zod schema built at module level stays in
 * every bundle that imports its module).
 */

export const deploymentPath = z.strictObject({ deploymentId: pathId });

export const notificationPath = z.strictObject({ deploymentId: pathId, id: pathId });

export const runPath = z.strictObject({
  deploymentId: pathId,
  id: pathId,
  /** Opaque to clients: an id of a form the service never issues is an unknown run (404), not a 400. */
  runId: z.string(),
});
