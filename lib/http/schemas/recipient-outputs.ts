import * as z from 'zod/mini';
import { idOutput } from '#lib/http/schemas/common';
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
]);

export const addRecipientsOutput = z.object({
  createdRecipients: z.array(recipientOutput),
  updatedRecipients: z.array(recipientOutput),
  unchangedRecipients: z.array(recipientOutput),
});

export const recipientPageOutput = pageOf(recipientOutput);
