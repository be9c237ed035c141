import * as z from 'zod/mini';
import {
  type DashboardFilter,
  type DashboardMemberSwitcher,
  type DashboardTimeGrain,
  filterOperators,
  notificationFormats,
  type UpdateNotificationInput,
} from '#lib/domain/notifications/notification-fields';
import { isTimeZone, scheduleTypes } from '#lib/domain/schedules/schedule-fields';
import { compactTextUpTo, intBetween, listUpTo, nullish, textUpTo } from '#lib/http/schemas/common';
import { positiveInt } from '#lib/http/schemas/names';
import { notificationListLimits as limits, utf8Bytes } from '#lib/limits';

/**
 * The request shape of updating a notification (an admin's create builds on it: notification-create.ts);
 * `satisfies` holds each to the domain's own type.
 */

const memberPath = () =>
  compactTextUpTo(limits.memberPathLength).check(
    z.regex(/.+\..+/, 'must be a member path of the form <Cube>.<member>'),
  );
/** A list kept as JSON text in the notification's item, within its count and its share of the item. */
const storedList = <T extends z.ZodMiniType>(item: T, bounds: { items: number; bytes: number }) =>
  listUpTo(bounds.items, item).check(
    z.describe(
      `At most ${bounds.items} items and ${bounds.bytes} bytes as JSON (UTF-8); text in it at most 3 bytes a character (no control characters but tab and line breaks), so items within their lengths always fit. A list value and free-form fields count against the bytes only.`,
    ),
    z.refine(
      (items) => utf8Bytes(JSON.stringify(items)) <= bounds.bytes,
      `must be at most ${bounds.bytes} bytes as JSON (UTF-8)`,
    ),
  );

export const dashboardFilterInput = z
  .strictObject({
    member: memberPath(),
    operator: nullish(z.enum(filterOperators)),
    value: nullish(
      z.union([compactTextUpTo(limits.filters.valueLength), z.number(), z.boolean(), z.array(z.unknown())]),
    ),
    caseSensitive: z.optional(z.unknown()),
    startInclusive: z.optional(z.unknown()),
    endInclusive: z.optional(z.unknown()),
  })
  .check(
    z.superRefine((filter, ctx) => {
      const hasValue = filter.value !== undefined && filter.value !== null;
      if (filter.operator === 'between' && !(Array.isArray(filter.value) && filter.value.length === 2)) {
        ctx.issues.push({
          code: 'custom',
          path: ['value'],
          message: 'must be [start, end] for between',
          input: filter.value,
        });
      }
      if ((filter.operator === 'is_null' || filter.operator === 'is_not_null') && hasValue) {
        ctx.issues.push({
          code: 'custom',
          path: ['value'],
          message: `must be omitted for ${filter.operator}`,
          input: filter.value,
        });
      }
    }),
  ) satisfies z.ZodMiniType<DashboardFilter>;

export const dashboardTimeGrainInput = z.strictObject({
  member: memberPath(),
  grain: compactTextUpTo(limits.timeGrains.grainLength).check(z.minLength(1, 'must not be empty')),
}) satisfies z.ZodMiniType<DashboardTimeGrain>;

export const dashboardMemberSwitcherInput = z.strictObject({
  member: memberPath(),
  selected: compactTextUpTo(limits.memberSwitchers.selectedLength).check(z.minLength(1, 'must not be empty')),
}) satisfies z.ZodMiniType<DashboardMemberSwitcher>;

/** Every field optional; `null` clears the lists and means "unchanged" for the rest. */
export const updateNotificationInput = z.strictObject({
  scheduleType: nullish(z.enum(scheduleTypes)),
  customCron: nullish(textUpTo(1000)),
  minute: nullish(intBetween(0, 59)),
  hour: nullish(intBetween(0, 23)),
  dayOfWeek: nullish(intBetween(0, 6)),
  dayOfMonth: nullish(intBetween(1, 31)),
  timezone: nullish(
    textUpTo(1000).check(z.refine(isTimeZone, 'must be an IANA time zone name such as Europe/Berlin or UTC')),
  ),
  isEnabled: nullish(z.boolean()),
  notificationEnabled: nullish(z.boolean()),
  notificationFormat: nullish(z.enum(notificationFormats)),
  notificationAiSummary: nullish(z.boolean()),
  filters: nullish(storedList(dashboardFilterInput, limits.filters)),
  timeGrains: nullish(storedList(dashboardTimeGrainInput, limits.timeGrains)),
  memberSwitchers: nullish(storedList(dashboardMemberSwitcherInput, limits.memberSwitchers)),
  /** The active console user who takes the notification over. */
  ownerUserId: nullish(positiveInt()),
}) satisfies z.ZodMiniType<UpdateNotificationInput>;

/** 1–255 visible ASCII characters. */
export const idempotencyKeyHeader = z.looseObject({
  'idempotency-key': z.optional(
    z.string().check(z.regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 visible ASCII characters')),
  ),
});
