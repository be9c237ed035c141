import * as z from 'zod/mini';
import {
  selfServiceBounds as bounds,
  type SelfServiceSettings,
  type TenantSelfServiceInput,
} from '#lib/domain/self-service/self-service';
import { intBetween } from '#lib/http/schemas/common';
import { keyName } from '#lib/http/schemas/names';
import { keyPartLimits } from '#lib/limits';

/** The request shapes of an admin's settings of an embed tenant (and of a fixture's). */

export const selfServiceSettingsInput = z.strictObject({
  enabled: z.boolean('must be true or false'),
  maxPerUser: z.optional(intBetween(bounds.maxPerUser.min, bounds.maxPerUser.max)),
  minIntervalMinutes: z.optional(intBetween(bounds.minIntervalMinutes.min, bounds.minIntervalMinutes.max)),
}) satisfies z.ZodMiniType<Partial<SelfServiceSettings> & { enabled: boolean }>;

export const configureSelfServiceInput = z.strictObject({
  selfService: selfServiceSettingsInput,
}) satisfies z.ZodMiniType<TenantSelfServiceInput>;

export const embedTenantPath = z.strictObject({ embedTenantName: keyName(keyPartLimits.publicId) });
