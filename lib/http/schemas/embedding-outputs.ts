import * as z from 'zod/mini';
import type { DashboardEmbeddingDto, EmbeddedDashboardDto } from '#lib/domain/embedding/embedding';
import { idOutput } from '#lib/http/schemas/common';

/** What the embedding operations answer, for the API description (see notification-outputs.ts). */

export const dashboardEmbeddingOutput = z.object({
  publicId: z.string(),
  allowEmbed: z.boolean(),
}) satisfies z.ZodMiniType<DashboardEmbeddingDto>;

export const embeddedDashboardOutput = z.object({
  /** The platform's name for the dashboard's id (the same as `dashboardId`). */
  id: idOutput(),
  publicId: z.string(),
  dashboardId: idOutput(),
  deploymentId: idOutput(),
  title: z.string(),
  allowEmbed: z.boolean(),
}) satisfies z.ZodMiniType<EmbeddedDashboardDto>;
