import * as z from 'zod/mini';
import type { SchedulePreview } from '#lib/domain/schedules/schedule-preview';

/** What the schedule preview answers, for the API description (see notification-outputs.ts). */

export const schedulePreviewOutput = z.strictObject({
  cronExpression: z.string(),
  humanReadableSchedule: z.string(),
  timezone: z.string(),
  nextRuns: z.array(z.string()),
}) satisfies z.ZodMiniType<SchedulePreview>;
