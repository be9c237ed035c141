import * as z from 'zod/mini';

/** What the embedding operations answer, for the API description (see notification-outputs.ts). */

export const dashboardEmbeddingOutput = z.object({ publicId: z.string(), allowEmbed: z.boolean() });

export const embeddedDashboardOutput = z.object({
  publicId: z.string(),
  dashboardId: z.int(),
  deploymentId: z.int(),
  title: z.string(),
});
