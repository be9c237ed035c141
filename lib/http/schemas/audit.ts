import * as z from 'zod/mini';
import { pathId } from '#lib/http/schemas/common';
import { pagingQueryShape } from '#lib/http/schemas/paging';

/** Requests of the audit routes (their answers are in audit-outputs.ts). */

export const listDeploymentEventsQuery = z.strictObject({
  ...pagingQueryShape,
  notificationId: z.optional(pathId),
});
