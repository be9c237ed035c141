import * as z from 'zod/mini';
import type { SubscriptionFields } from '#lib/domain/self-service/self-service';
import { subscriptionShape } from '#lib/http/schemas/self-service';

/** An embed user's change of their subscription (apart from self-service.ts, out of the create's bundle). */

export const updateSubscriptionInput = z.strictObject(
  subscriptionShape,
) satisfies z.ZodMiniType<SubscriptionFields>;
