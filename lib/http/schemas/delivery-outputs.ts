import * as z from 'zod/mini';
import type { UnsubscribeAnswer } from '#lib/domain/unsubscribe/unsubscribe';

/** What one-click unsubscribe answers, for the API description (see notification-outputs.ts). */

export const unsubscribeOutput = z.strictObject({
  unsubscribed: z.literal(true),
  deploymentId: z.int(),
  notificationId: z.int(),
}) satisfies z.ZodMiniType<UnsubscribeAnswer>;
