import {
  governanceOf,
  type NotificationHold,
  type NotificationStatus,
  type OwnerStanding,
} from '#lib/domain/governance/governance';
import type {
  DashboardFilter,
  DashboardMemberSwitcher,
  DashboardTimeGrain,
  NotificationFormat,
} from '#lib/domain/notifications/notification-fields';
import type { KindUnion } from '#lib/domain/recipients/recipient-kinds';
import {
  cronExpressionOf,
  isoInstant,
  nextRunOf,
  type Schedule,
  type ScheduleState,
} from '#lib/domain/schedules/schedule';
import { NotFoundError } from '#lib/errors';

/**
 * A notification and its answer. Reads bundle this module, so nothing here needs the cron libraries:
 * `humanReadableSchedule` and the upcoming instants are stored by the schedule writers
 * (lib/domain/notifications/notification-writes.ts, the dispatcher) and only picked from here.
 */

/** Who a notification belongs to: a console user, or an embed user who subscribed themselves. */
export type NotificationOwner = KindUnion<'owner'>;

export interface Notification extends Schedule {
  id: number;
  deploymentId: number;
  dashboardId: number;
  timezone: string;
  isEnabled: boolean;
  notificationEnabled: boolean;
  notificationFormat: NotificationFormat;
  filters: DashboardFilter[] | null;
  timeGrains: DashboardTimeGrain[] | null;
  memberSwitchers: DashboardMemberSwitcher[] | null;
  /** Whether the delivered message carries a summary of what changed (the renderer writes it). */
  notificationAiSummary: boolean;
  /** Who answers for it: the console user who made it (or took it over), an embed user, or none (made before owners). */
  owner: NotificationOwner | null;
  /** A pause or a suspension holding its schedule back (lib/domain/governance/governance.ts). */
  hold: NotificationHold;
}

/** A notification as a read finds it: its fields and the schedule state stored beside them. */
export interface ScheduledNotification {
  notification: Notification;
  schedule: ScheduleState;
  /** Whether its owner, a console user, is inactive (read beside it); absent when the reader did not look. */
  owner?: OwnerStanding;
}

/** A notification by its identity: its deployment and its id. */
export interface NotificationRef {
  deploymentId: number;
  id: number;
}

/** The one 404 of a notification that is not there (or not in that deployment, or deleted). */
export const notificationNotFound = ({ deploymentId, id }: NotificationRef) =>
  new NotFoundError(`Notification ${id} of deployment ${deploymentId}`);

export interface NotificationSettings {
  customCronMinIntervalMinutes: number;
}

export interface NotificationDto {
  id: number;
  dashboardId: number;
  deploymentId: number;
  cronExpression: string;
  timezone: string;
  isEnabled: boolean;
  humanReadableSchedule: string;
  notificationEnabled: boolean;
  notificationFormat: NotificationFormat;
  filters: DashboardFilter[] | null;
  timeGrains: DashboardTimeGrain[] | null;
  memberSwitchers: DashboardMemberSwitcher[] | null;
  notificationAiSummary: boolean;
  /** The first firing instant after the answer was made (`2026-11-24T08:00:00Z`); null unless active (or paused until a time). */
  nextRunAt: string | null;
  status: NotificationStatus;
  statusReason: string | null;
  pausedUntil: string | null;
  owner: NotificationOwner | null;
}

/** The answer for a notification as stored, made at `now` (epoch ms): `nextRunAt` is the first instant after it. */
export function toNotificationDto(
  { notification, schedule, owner }: ScheduledNotification,
  now: number,
): NotificationDto {
  const governance = governanceOf(notification, owner ?? 'active', now);
  const nextRun = nextRunOf(governance.schedules, schedule, now);
  return {
    id: notification.id,
    dashboardId: notification.dashboardId,
    deploymentId: notification.deploymentId,
    cronExpression: cronExpressionOf(notification),
    timezone: notification.timezone,
    isEnabled: notification.isEnabled,
    humanReadableSchedule: schedule.humanReadableSchedule,
    notificationEnabled: notification.notificationEnabled,
    notificationFormat: notification.notificationFormat,
    filters: notification.filters,
    timeGrains: notification.timeGrains,
    memberSwitchers: notification.memberSwitchers,
    notificationAiSummary: notification.notificationAiSummary,
    nextRunAt: nextRun === undefined ? null : isoInstant(nextRun),
    status: governance.status,
    statusReason: governance.statusReason,
    pausedUntil: governance.pausedUntil === null ? null : isoInstant(governance.pausedUntil),
    owner: notification.owner,
  };
}
