import * as z from 'zod/mini';
import { heldStatuses } from '#lib/domain/governance/governance';
import type { ListNotificationsQuery } from '#lib/domain/notifications/notification-lifecycle';
import type { RemovedRecipientInput } from '#lib/domain/recipients/recipient-lists';
import { pathId } from '#lib/http/schemas/common';
import { keyName, name, positiveInt } from '#lib/http/schemas/names';
import { pagingQueryShape } from '#lib/http/schemas/paging';
import { keyPartLimits } from '#lib/limits';

/** Request shapes of listing notifications and of removing recipients. */

const MAX_REMOVED_RECIPIENTS = 1000;

/** Positive integer digits in a query string, as a number. */
const queryId = pathId;

export const listNotificationsQuery = z
  .strictObject({
    ...pagingQueryShape,
    dashboardId: z.optional(queryId),
    dashboardPublicId: z.optional(keyName(keyPartLimits.publicId)),
    recipientUserId: z.optional(queryId),
    recipientEmail: z.optional(keyName()),
    recipientEmbedTenantName: z.optional(keyName()),
    recipientExternalId: z.optional(keyName()),
    ownerUserId: z.optional(queryId),
    status: z.optional(z.enum(heldStatuses)),
  })
  .check(
    z.superRefine((query, ctx) => {
      const problem = (path: string, message: string) =>
        ctx.issues.push({ code: 'custom', path: [path], message, input: query });
      if (query.dashboardId !== undefined && query.dashboardPublicId !== undefined) {
        problem('dashboardPublicId', 'at most one of dashboardId and dashboardPublicId may be given');
      }
      const embedParts = [query.recipientEmbedTenantName, query.recipientExternalId].filter(
        (part) => part !== undefined,
      ).length;
      if (embedParts === 1) {
        problem(
          query.recipientEmbedTenantName === undefined ? 'recipientEmbedTenantName' : 'recipientExternalId',
          'recipientEmbedTenantName and recipientExternalId go together',
        );
      }
      const recipientFilters =
        (query.recipientUserId !== undefined ? 1 : 0) +
        (query.recipientEmail !== undefined ? 1 : 0) +
        (embedParts > 0 ? 1 : 0);
      if (recipientFilters > 1) {
        problem('recipientEmail', 'at most one recipient filter may be given');
      }
    }),
  ) satisfies z.ZodMiniType<ListNotificationsQuery>;

/** A user's or embed user's id; as on the platform, it may also come as its digits in a string. */
const recipientId = () =>
  z.pipe(
    z.union([positiveInt(), z.string().check(z.regex(/^[1-9][0-9]{0,14}$/, 'must be a positive integer'))]),
    z.transform((id: number | string) => Number(id)),
  );

/** `embedTenantName: null` on a USER or SLACK item is as good as absent, as on the platform. */
const noTenant = z.optional(z.null());
const removedRecipientInput = z.pipe(
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('USER'), id: recipientId(), embedTenantName: noTenant }),
    z.strictObject({ type: z.literal('EMBED_USER'), id: recipientId(), embedTenantName: name() }),
    z.strictObject({ type: z.literal('SLACK'), id: name(), embedTenantName: noTenant }),
  ]),
  z.transform((item): RemovedRecipientInput => {
    if (item.type === 'EMBED_USER') return item;
    const { embedTenantName: _none, ...rest } = item;
    return rest;
  }),
) satisfies z.ZodMiniType<RemovedRecipientInput>;

export const removeRecipientsInput = z.strictObject({
  recipients: z
    .array(removedRecipientInput)
    .check(
      z.minLength(1, 'must list at least one recipient'),
      z.maxLength(MAX_REMOVED_RECIPIENTS, `must have at most ${MAX_REMOVED_RECIPIENTS} items`),
    ),
});
