import * as z from 'zod/mini';
import {
  type DashboardFilter,
  type DashboardTimeGrain,
  filterOperators,
  notificationFormats,
  type UpdateNotificationInput,
} from '#lib/domain/notification-fields';
import { isTimeZone, scheduleTypes } from '#lib/domain/schedule-fields';
import { intBetween, listUpTo, nullish, pathId, textUpTo } from '#lib/http/schemas/common';
import { notificationJsonBytes, utf8Bytes } from '#lib/store/limits';

/** The request shapes of the notification operations; `satisfies` holds each to the domain's own type. */

export const notificationPath = z.strictObject({ deploymentId: pathId, id: pathId });

const MAX_LIST_LENGTH = 200;
const MAX_TEXT_LENGTH = 1000;

const text = () => textUpTo(MAX_TEXT_LENGTH);
const memberPath = () => text().check(z.regex(/.+\..+/, 'must be a member path of the form <Cube>.<member>'));
const list = <T extends z.ZodMiniType>(item: T) => listUpTo(MAX_LIST_LENGTH, item);
/** A list kept as JSON text in the notification's item, within its share of the item. */
const storedList = <T extends z.ZodMiniType>(item: T, maxBytes: number) =>
  list(item).check(
    z.refine(
      (items) => utf8Bytes(JSON.stringify(items)) <= maxBytes,
      `must be at most ${maxBytes} bytes as JSON (UTF-8)`,
    ),
  );

export const dashboardFilterInput = z
  .strictObject({
    member: memberPath(),
    operator: nullish(z.enum(filterOperators)),
    value: nullish(z.union([text(), z.number(), z.boolean(), z.array(z.unknown())])),
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
  grain: text().check(z.minLength(1, 'must not be empty')),
}) satisfies z.ZodMiniType<DashboardTimeGrain>;

/** Every field optional; `null` clears `filters` and `timeGrains` and means "unchanged" for the rest. */
export const updateNotificationInput = z.strictObject({
  scheduleType: nullish(z.enum(scheduleTypes)),
  customCron: nullish(text()),
  minute: nullish(intBetween(0, 59)),
  hour: nullish(intBetween(0, 23)),
  dayOfWeek: nullish(intBetween(0, 6)),
  dayOfMonth: nullish(intBetween(1, 31)),
  timezone: nullish(
    text().check(z.refine(isTimeZone, 'must be an IANA time zone name such as Europe/Berlin or UTC')),
  ),
  isEnabled: nullish(z.boolean()),
  notificationEnabled: nullish(z.boolean()),
  notificationFormat: nullish(z.enum(notificationFormats)),
  filters: nullish(storedList(dashboardFilterInput, notificationJsonBytes.filters)),
  timeGrains: nullish(storedList(dashboardTimeGrainInput, notificationJsonBytes.timeGrains)),
}) satisfies z.ZodMiniType<UpdateNotificationInput>;
