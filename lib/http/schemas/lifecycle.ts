import * as z from 'zod/mini';
import type {
  CreateNotificationInput,
  ListNotificationsQuery,
  RemovedRecipientInput,
} from '#lib/domain/notification-lifecycle';
import { scheduleTypes } from '#lib/domain/schedule-fields';
import { nullish, nullMeansOmitted, pathId } from '#lib/http/schemas/common';
import { updateNotificationInput } from '#lib/http/schemas/notifications';
import { pagingQueryShape } from '#lib/http/schemas/paging';
import { fitsKeyPart, KEY_PART_MAX_BYTES, keyPartLimits } from '#lib/limits';

/** Request shapes of creating, listing and deleting notifications and of listing and removing recipients. */

const MAX_NAME_LENGTH = 1000;
const MAX_REMOVED_RECIPIENTS = 1000;

const name = (max: number = MAX_NAME_LENGTH) =>
  z.string().check(
    z.minLength(1, 'must not be empty'),
    z.maxLength(max, `must be at most ${max} characters`),
    z.refine((value: string) => value.isWellFormed(), 'must be valid Unicode text'),
  );

/** Text that becomes a key part (a lookup by it): the key module bounds its URL-encoded form. */
const keyName = (max: number = MAX_NAME_LENGTH) =>
  name(max).check(
    z.refine(
      (value: string) => !value.isWellFormed() || fitsKeyPart(value),
      `must be at most ${KEY_PART_MAX_BYTES} characters once URL-encoded`,
    ),
  );
const positiveInt = () => z.int('must be a positive integer').check(z.gte(1, 'must be a positive integer'));

/** Positive integer digits in a query string, as a number. */
const queryId = pathId;

/**
 * The update's fields with their ranges and rules, a schedule type that must be given, and the
 * dashboard. A null field is as good as absent: for a new notification a null list is no list.
 */
export const createNotificationInput = nullMeansOmitted(
  z
    .strictObject({
      ...updateNotificationInput.def.shape,
      scheduleType: z.enum(scheduleTypes),
      dashboardId: nullish(positiveInt()),
      dashboardPublicId: nullish(keyName(keyPartLimits.publicId)),
    })
    .check(
      z.superRefine((input, ctx) => {
        const given = (['dashboardId', 'dashboardPublicId'] as const).filter((field) => input[field] != null);
        if (given.length !== 1) {
          ctx.issues.push({
            code: 'custom',
            path: given.length === 0 ? ['dashboardId'] : ['dashboardPublicId'],
            message: 'exactly one of dashboardId and dashboardPublicId is required',
            input,
          });
        }
      }),
    ),
) satisfies z.ZodMiniType<CreateNotificationInput>;

/** 1–255 visible ASCII characters. */
export const idempotencyKeyHeader = z.looseObject({
  'idempotency-key': z.optional(
    z.string().check(z.regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 visible ASCII characters')),
  ),
});

export const deploymentPath = z.strictObject({ deploymentId: pathId });

export const listNotificationsQuery = z
  .strictObject({
    ...pagingQueryShape,
    dashboardId: z.optional(queryId),
    dashboardPublicId: z.optional(keyName(keyPartLimits.publicId)),
    recipientUserId: z.optional(queryId),
    recipientEmail: z.optional(keyName()),
    recipientEmbedTenantName: z.optional(keyName()),
    recipientExternalId: z.optional(keyName()),
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
