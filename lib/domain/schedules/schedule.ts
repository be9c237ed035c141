import { holdSignature, type NotificationHold } from '#lib/domain/governance/governance';
import type { ScheduleType } from '#lib/domain/schedules/schedule-fields';
import type { FieldProblem } from '#lib/errors';

/**
 * The schedule of a notification is stored structured (a type plus time fields); its cron expression
 * is derived from that. Nothing here needs the cron libraries: the functions that only read a
 * notification bundle this module, and lib/domain/schedules/cron.ts holds what parses and describes a cron.
 */

export interface Schedule {
  scheduleType: ScheduleType;
  minute?: number;
  hour?: number;
  dayOfWeek?: number;
  dayOfMonth?: number;
  customCron?: string;
}

export type TimeField = 'hour' | 'dayOfWeek' | 'dayOfMonth' | 'customCron';

const requiredFields: Record<ScheduleType, TimeField[]> = {
  HOURLY: [],
  DAILY: ['hour'],
  WEEKLY: ['hour', 'dayOfWeek'],
  MONTHLY: ['hour', 'dayOfMonth'],
  CUSTOM: ['customCron'],
};

/** The time fields a schedule of this type cannot do without. */
export function requiredTimeFields(scheduleType: ScheduleType): readonly TimeField[] {
  return requiredFields[scheduleType];
}

/** The fields a schedule type needs and that are not set; `minute` is never missing (it defaults to 0). */
export function missingScheduleFields(schedule: Schedule): FieldProblem[] {
  return requiredFields[schedule.scheduleType]
    .filter((field) => schedule[field] === undefined)
    .map((field) => ({ path: field, message: `is required for a ${schedule.scheduleType} schedule` }));
}

/** The cron form of a complete schedule (see missingScheduleFields). */
export function cronExpressionOf(schedule: Schedule): string {
  const minute = schedule.minute ?? 0;
  const { hour, dayOfWeek, dayOfMonth } = schedule;
  switch (schedule.scheduleType) {
    case 'HOURLY':
      return `${minute} * * * *`;
    case 'DAILY':
      return `${minute} ${hour} * * *`;
    case 'WEEKLY':
      return `${minute} ${hour} * * ${dayOfWeek}`;
    case 'MONTHLY':
      return `${minute} ${hour} ${dayOfMonth} * *`;
    case 'CUSTOM':
      return `${schedule.customCron}`;
  }
}

/**
 * What a schedule writer (create, update, the dispatcher) stores beside the schedule, so that a read
 * answers `humanReadableSchedule` and `nextRunAt` without cron code.
 */
export interface ScheduleState {
  /** cronstrue's reading of the cron expression, e.g. `At 09:00, only on Monday`. */
  humanReadableSchedule: string;
  /** The next firing instants (epoch ms, ascending) as of the last write; empty while disabled. */
  upcoming: readonly number[];
}

/**
 * The instant a read answers as `nextRunAt` at `now`: the first stored instant after it. The stored
 * instants reach at least a day ahead and the dispatcher moves them on within a minute of each
 * instant, so one is always ahead unless no pass has run for a day; then the last stored one (in the
 * past) is answered, showing how far behind the schedule is. Undefined while disabled.
 */
export function nextRunOf(isEnabled: boolean, state: ScheduleState, now: number): number | undefined {
  if (!isEnabled) return undefined;
  return state.upcoming.find((instant) => instant > now) ?? state.upcoming.at(-1);
}

/** What decides a schedule's firing instants: equal signatures fire at the same instants. */
export const scheduleSignature = (
  schedule: Schedule & { timezone: string; isEnabled: boolean; hold?: NotificationHold },
) =>
  `${cronExpressionOf(schedule)}|${schedule.timezone}|${schedule.isEnabled}${holdSignature(schedule.hold)}`;

/** `2026-11-24T08:00:00Z`: how the API writes an instant, to the second. */
export function isoInstant(instant: number): string {
  return `${new Date(instant).toISOString().slice(0, 19)}Z`;
}
