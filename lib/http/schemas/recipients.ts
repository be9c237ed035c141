import * as z from 'zod/mini';
import { recipientKinds } from '#lib/domain/recipients/recipient-kinds';
import {
  classifyRecipient,
  MAX_PROPERTIES_JSON_BYTES,
  MAX_RECIPIENTS,
  MIN_RECIPIENTS,
  propertyLimits,
  type RecipientFields,
  type RecipientInput,
  recipientProblems,
  type UserAttribute,
} from '#lib/domain/recipients/recipients-input';
import {
  compactTextUpTo,
  listUpTo,
  nullish,
  nullMeansOmitted,
  wellFormedTextUpTo,
} from '#lib/http/schemas/common';

/**
 * The request shape of "add recipients". Field types are checked here; the rules of the domain then
 * settle each item's kind, so that the handler hands on classified items only.
 */

const text = wellFormedTextUpTo;

const userAttribute = nullMeansOmitted(
  z.strictObject({
    name: compactTextUpTo(propertyLimits.attributeNameLength),
    value: nullish(
      z.union([
        compactTextUpTo(propertyLimits.attributeValueLength),
        z.number(),
        z.boolean(),
        z.array(z.string()),
        z.array(z.number()),
      ]),
    ),
  }),
) satisfies z.ZodMiniType<UserAttribute>;

/** Every field may be `null`, which means the same as leaving it out (as the platform's clients send it). */
const recipientFields = nullMeansOmitted(
  z.strictObject({
    type: nullish(z.enum(recipientKinds)),
    userId: nullish(z.int('must be a positive integer').check(z.positive('must be a positive integer'))),
    email: nullish(text(320)),
    embedTenantName: nullish(text(128).check(z.minLength(1, 'must not be empty'))),
    externalId: nullish(text(1000)),
    securityContext: nullish(
      z
        .record(z.string(), z.unknown())
        .check(
          z.describe(
            `Any JSON object; with userAttributes and groups at most ${MAX_PROPERTIES_JSON_BYTES} bytes as JSON (UTF-8), of which the stated counts and lengths of the other two take at most 29,448.`,
          ),
        ),
    ),
    userAttributes: nullish(listUpTo(propertyLimits.userAttributes, userAttribute)),
    groups: nullish(listUpTo(propertyLimits.groups, compactTextUpTo(propertyLimits.groupLength))),
    channelId: nullish(text(256)),
    channelName: nullish(text(256)),
  }),
) satisfies z.ZodMiniType<RecipientFields>;

export const recipientInput = z.pipe(
  recipientFields,
  z.transform((item: RecipientFields, ctx) => {
    const problems = recipientProblems(item);
    for (const issue of problems) ctx.issues.push({ code: 'custom', input: item, ...issue });
    const recipient = classifyRecipient(item);
    return problems.length > 0 || recipient === undefined ? z.NEVER : recipient;
  }),
) satisfies z.ZodMiniType<RecipientInput>;

export const addRecipientsInput = z.strictObject({
  recipients: z
    .array(recipientInput)
    .check(
      z.minLength(MIN_RECIPIENTS, `must have at least ${MIN_RECIPIENTS} recipient`),
      z.maxLength(MAX_RECIPIENTS, `must have at most ${MAX_RECIPIENTS} recipients`),
    ),
});
