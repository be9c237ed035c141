import * as z from 'zod/mini';
import { scheduleTypes } from '#lib/domain/schedules/schedule-fields';
import { MAX_PREVIEW_COUNT, type SchedulePreviewInput } from '#lib/domain/schedules/schedule-preview';
import { intBetween, nullish } from '#lib/http/schemas/common';
import { updateNotificationInput } from '#lib/http/schemas/notifications';

/** The schedule preview: a create's schedule fields, checked by the same schemas, and how many instants. */

const { customCron, minute, hour, dayOfWeek, dayOfMonth, timezone } = updateNotificationInput.def.shape;

export const schedulePreviewInput = z.strictObject({
  scheduleType: z.enum(scheduleTypes),
  customCron,
  minute,
  hour,
  dayOfWeek,
  dayOfMonth,
  timezone,
  count: nullish(intBetween(1, MAX_PREVIEW_COUNT)),
}) satisfies z.ZodMiniType<SchedulePreviewInput>;
