import * as z from 'zod/mini';
import type { Page } from '#lib/domain/paging';
import type { AddRecipientsResult, RecipientOutput } from '#lib/domain/recipients/recipients';
import { type DescribesAll, idOutput } from '#lib/http/schemas/common';
import { pageOf } from '#lib/http/schemas/paging';

/** What the recipient operations answer, for the API description (see notification-outputs.ts). */

export const recipientOutput = z.discriminatedUnion('type', [
  z.object({ type: z.literal('USER'), userId: idOutput(), email: z.string(), username: z.string() }),
  z.object({
    type: z.literal('EMBED_USER'),
    embedTenantName: z.string(),
    externalId: z.string(),
    embedUserId: idOutput(),
    email: z.string(),
  }),
]) satisfies z.ZodMiniType<RecipientOutput>;
true satisfies DescribesAll<RecipientOutput, typeof recipientOutput>;

export const addRecipientsOutput = z.object({
  createdRecipients: z.array(recipientOutput),
  updatedRecipients: z.array(recipientOutput),
  unchangedRecipients: z.array(recipientOutput),
}) satisfies z.ZodMiniType<AddRecipientsResult>;

export const recipientPageOutput = pageOf(recipientOutput) satisfies z.ZodMiniType<Page<RecipientOutput>>;
