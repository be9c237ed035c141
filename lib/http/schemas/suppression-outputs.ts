import * as z from 'zod/mini';
import type { Page } from '#lib/domain/paging';
import { type SuppressionDto, suppressionReasons } from '#lib/domain/suppressions/suppressions';
import { idOutput } from '#lib/http/schemas/common';
import { pageOf } from '#lib/http/schemas/paging';

/** What the suppression routes answer, for the API description (see notification-outputs.ts). */

export const suppressionOutput = z.strictObject({
  deploymentId: idOutput(),
  email: z.string(),
  reason: z.enum(suppressionReasons),
  createdAt: z.string(),
  source: z.nullable(z.strictObject({ runId: z.string(), jobId: z.string() })),
}) satisfies z.ZodMiniType<SuppressionDto>;

export const suppressionPage = pageOf(suppressionOutput) satisfies z.ZodMiniType<Page<SuppressionDto>>;
