import type { ScheduleType } from '#lib/domain/schedules/schedule-fields';

/**
 * What an update of a notification may say, as the domain takes it: plain values, already checked at
 * the edge. Apart from notification.ts so that the request schemas need not bundle the cron libraries.
 */

export const filterOperators = [
  'equals',
  'not_equals',
  'greater_than',
  'greater_than_or_equal',
  'less_than',
  'less_than_or_equal',
  'contains',
  'not_contains',
  'starts_with',
  'not_starts_with',
  'ends_with',
  'not_ends_with',
  'is_null',
  'is_not_null',
  'between',
  'custom',
] as const;
type FilterOperator = (typeof filterOperators)[number];

export const notificationFormats = ['png', 'pdf'] as const;
export type NotificationFormat = (typeof notificationFormats)[number];

export interface DashboardFilter {
  /** `<Cube>.<member>`. */
  member: string;
  operator?: FilterOperator | null;
  value?: string | number | boolean | unknown[] | null;
  caseSensitive?: unknown;
  startInclusive?: unknown;
  endInclusive?: unknown;
}

export interface DashboardTimeGrain {
  member: string;
  grain: string;
}

/** A field switcher's choice: the member shown in place of `member` (`<Cube>.<member>`). */
export interface DashboardMemberSwitcher {
  member: string;
  selected: string;
}

/** Every field optional; `null` clears the lists and means "unchanged" for the rest. */
export interface UpdateNotificationInput {
  scheduleType?: ScheduleType | null;
  customCron?: string | null;
  minute?: number | null;
  hour?: number | null;
  dayOfWeek?: number | null;
  dayOfMonth?: number | null;
  timezone?: string | null;
  isEnabled?: boolean | null;
  notificationEnabled?: boolean | null;
  notificationFormat?: NotificationFormat | null;
  filters?: DashboardFilter[] | null;
  timeGrains?: DashboardTimeGrain[] | null;
  memberSwitchers?: DashboardMemberSwitcher[] | null;
  notificationAiSummary?: boolean | null;
  /** An update only: the active console user who takes the notification over. */
  ownerUserId?: number | null;
}
