import * as z from 'zod/mini';
import {
  classifyRecipient,
  MAX_PROPERTY_LIST_LENGTH,
  MAX_RECIPIENTS,
  MIN_RECIPIENTS,
  type RecipientFields,
  type RecipientInput,
  recipientKinds,
  recipientProblems,
  type UserAttribute,
} from '#lib/domain/recipients-input';
import { listUpTo, wellFormedTextUpTo } from '#lib/http/schemas/common';

/**
 * The request shape of "add recipients". Field types are checked here; the rules of the domain then
 * settle each item's kind, so that the handler hands on classified items only.
 */

const text = wellFormedTextUpTo;

const userAttribute = z.strictObject({
  name: text(256),
  value: text(1000),
}) satisfies z.ZodMiniType<UserAttribute>;
const list = <T extends z.ZodMiniType>(item: T) => listUpTo(MAX_PROPERTY_LIST_LENGTH, item);

const recipientFields = z.strictObject({
  type: z.optional(z.enum(recipientKinds)),
  userId: z.optional(z.int('must be a positive integer').check(z.positive('must be a positive integer'))),
  email: z.optional(text(320)),
  embedTenantName: z.optional(text(128).check(z.minLength(1, 'must not be empty'))),
  externalId: z.optional(text(1000)),
  securityContext: z.optional(z.record(z.string(), z.unknown())),
  userAttributes: z.optional(list(userAttribute)),
  groups: z.optional(list(text(256))),
  channelId: z.optional(text(256)),
  channelName: z.optional(text(256)),
}) satisfies z.ZodMiniType<RecipientFields>;

export const recipientInput = z.pipe(
  recipientFields.check(
    z.superRefine((item, ctx) => {
      for (const issue of recipientProblems(item)) ctx.issues.push({ code: 'custom', input: item, ...issue });
    }),
  ),
  z.transform(classifyRecipient),
) satisfies z.ZodMiniType<RecipientInput>;

export const addRecipientsInput = z.strictObject({
  recipients: z
    .array(recipientInput)
    .check(
      z.minLength(MIN_RECIPIENTS, `must have at least ${MIN_RECIPIENTS} recipient`),
      z.maxLength(MAX_RECIPIENTS, `must have at most ${MAX_RECIPIENTS} recipients`),
    ),
});
