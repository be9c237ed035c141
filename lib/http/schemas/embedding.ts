import * as z from 'zod/mini';
import type { UpdateDashboardEmbeddingInput } from '#lib/domain/embedding/embedding';
import { keyPartLimits } from '#lib/limits';

/** The request shapes of the embedding operations. */

/** URL-safe characters only, so that a publicId reads the same in a path, a key and a log line. */
export const dashboardPath = z.strictObject({
  publicId: z
    .string()
    .check(
      z.minLength(1, 'is required'),
      z.maxLength(keyPartLimits.publicId, `must be at most ${keyPartLimits.publicId} characters`),
      z.regex(/^[A-Za-z0-9._~-]*$/, 'may contain only letters, digits and . _ ~ -'),
    ),
});

export const updateDashboardEmbeddingInput = z.strictObject({
  allowEmbed: z.boolean('must be true or false'),
}) satisfies z.ZodMiniType<UpdateDashboardEmbeddingInput>;
