import type { NotificationSettings } from '#lib/domain/notifications/notification';
import { applyNotificationUpdate, newNotification } from '#lib/domain/notifications/notification-writes';
import { describeCron } from '#lib/domain/schedules/cron';
import { firingsAfter } from '#lib/domain/schedules/firing-instants';
import { cronExpressionOf, isoInstant } from '#lib/domain/schedules/schedule';
import type { ScheduleType } from '#lib/domain/schedules/schedule-fields';

/** A schedule not yet saved: its cron, its reading and its next firing instants, checked as a create checks it. */

export const MAX_PREVIEW_COUNT = 50;
const DEFAULT_PREVIEW_COUNT = 5;

export interface SchedulePreviewInput {
  scheduleType: ScheduleType;
  customCron?: string | null;
  minute?: number | null;
  hour?: number | null;
  dayOfWeek?: number | null;
  dayOfMonth?: number | null;
  timezone?: string | null;
  count?: number | null;
}

export interface SchedulePreview {
  cronExpression: string;
  humanReadableSchedule: string;
  timezone: string;
  nextRuns: string[];
}

export function previewSchedule(
  input: SchedulePreviewInput,
  settings: NotificationSettings,
  now: number,
): SchedulePreview {
  const { count, ...fields } = input;
  // The create's own check: the same fields required, the same custom cron rules, the same 400s.
  const schedule = applyNotificationUpdate(newNotification(0, input.scheduleType), fields, settings);
  const nextRuns: string[] = [];
  for (const next of firingsAfter(schedule, now)) {
    if (nextRuns.length >= (count ?? DEFAULT_PREVIEW_COUNT)) break;
    nextRuns.push(isoInstant(next));
  }
  const cronExpression = cronExpressionOf(schedule);
  return {
    cronExpression,
    humanReadableSchedule: describeCron(cronExpression),
    timezone: schedule.timezone,
    nextRuns,
  };
}
