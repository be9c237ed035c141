import * as z from 'zod/mini';
import { PUBLIC_ID_MAX_LENGTH, type UpdateDashboardEmbeddingInput } from '#lib/domain/embedding';

/** The request shapes of the embedding operations. */

/** URL-safe characters only, so that a publicId reads the same in a path, a key and a log line. */
export const dashboardPath = z.strictObject({
  publicId: z
    .string()
    .check(
      z.minLength(1, 'is required'),
      z.maxLength(PUBLIC_ID_MAX_LENGTH, `must be at most ${PUBLIC_ID_MAX_LENGTH} characters`),
      z.regex(/^[A-Za-z0-9._~-]*$/, 'may contain only letters, digits and . _ ~ -'),
    ),
});

export const updateDashboardEmbeddingInput = z.strictObject({
  allowEmbed: z.boolean('must be true or false'),
}) satisfies z.ZodMiniType<UpdateDashboardEmbeddingInput>;
