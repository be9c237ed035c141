import * as z from 'zod/mini';
import type { TenantSelfServiceDto } from '#lib/domain/self-service/self-service';

/** What the tenant setting answers, for the API description (see notification-outputs.ts). */

export const tenantSelfServiceOutput = z.object({
  embedTenantName: z.string(),
  selfService: z.object({
    enabled: z.boolean(),
    maxPerUser: z.int(),
    minIntervalMinutes: z.int(),
  }),
}) satisfies z.ZodMiniType<TenantSelfServiceDto>;
