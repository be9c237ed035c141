import { isoInstant, nextFiringAfter } from '#lib/domain/firing-instants';
import type {
  DashboardFilter,
  DashboardTimeGrain,
  NotificationFormat,
  UpdateNotificationInput,
} from '#lib/domain/notification-fields';
import {
  cronExpressionOf,
  customCronProblem,
  describeCron,
  missingScheduleFields,
  type Schedule,
} from '#lib/domain/schedule';
import { ConflictError, type FieldProblem, NotFoundError, ValidationError } from '#lib/errors';
import { backoff } from '#lib/store/retry';

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
}

/** A stored notification and the version it was read at, for a write that must not lose another's. */
export interface VersionedNotification {
  notification: Notification;
  version: number;
}

export interface NotificationRepository {
  find(deploymentId: number, id: number): Promise<VersionedNotification | undefined>;
  /**
   * Stores `next` if the stored version is still `expectedVersion`; false when someone wrote in between.
   * `scheduleChanged` says whether its firing instants are new (schedule, zone or isEnabled changed):
   * only then does the due index move, so an edit of anything else never drops an instant due now.
   */
  replace(next: Notification, expectedVersion: number, scheduleChanged: boolean): Promise<boolean>;
}

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
  /** The first firing instant after the answer was made (`2026-11-24T08:00:00Z`); null while disabled. */
  nextRunAt: string | null;
}

/** The instant a notification fires next after `now` (epoch ms), or undefined while it is disabled or never matches. */
export function nextRunOf(notification: Notification, now: number): number | undefined {
  return notification.isEnabled ? nextFiringAfter(notification, now) : undefined;
}

/** Whether `next` fires at other instants than `previous`. */
export function scheduleChanged(previous: Notification, next: Notification): boolean {
  return (
    previous.isEnabled !== next.isEnabled ||
    previous.timezone !== next.timezone ||
    cronExpressionOf(previous) !== cronExpressionOf(next)
  );
}

export function toNotificationDto(notification: Notification, now: number = Date.now()): NotificationDto {
  const cronExpression = cronExpressionOf(notification);
  const nextRun = nextRunOf(notification, now);
  return {
    id: notification.id,
    dashboardId: notification.dashboardId,
    deploymentId: notification.deploymentId,
    cronExpression,
    timezone: notification.timezone,
    isEnabled: notification.isEnabled,
    humanReadableSchedule: describeCron(cronExpression),
    notificationEnabled: notification.notificationEnabled,
    notificationFormat: notification.notificationFormat,
    filters: notification.filters,
    timeGrains: notification.timeGrains,
    nextRunAt: nextRun === undefined ? null : isoInstant(nextRun),
  };
}

/** The fields for which an explicit `null` clears the stored value instead of leaving it unchanged. */
const clearedByNull = new Set<keyof UpdateNotificationInput>(['filters', 'timeGrains']);

/**
 * The notification after `input`: supplied fields replace stored ones, omitted ones stay. The result
 * must still be a complete schedule, and a supplied custom cron must pass its checks even when the
 * schedule type does not use it, since a later switch to CUSTOM would make it live.
 */
export function applyNotificationUpdate(
  current: Notification,
  input: UpdateNotificationInput,
  settings: NotificationSettings,
): Notification {
  const next: Record<string, unknown> = { ...current };
  for (const [field, value] of Object.entries(input) as [keyof UpdateNotificationInput, unknown][]) {
    if (value === undefined) continue;
    if (value === null) {
      if (clearedByNull.has(field)) next[field] = null;
      continue;
    }
    next[field] = value;
  }
  const updated = next as unknown as Notification;

  const problems: FieldProblem[] = [];
  if (typeof input.customCron === 'string') {
    const problem = customCronProblem(input.customCron, settings.customCronMinIntervalMinutes);
    if (problem) problems.push({ path: 'customCron', message: problem });
  }
  problems.push(...missingScheduleFields(updated));
  if (problems.length > 0) throw new ValidationError(problems);
  return updated;
}

const MAX_ATTEMPTS = 5;

/**
 * Updates a notification of a deployment. Read, apply, write-if-unchanged: a concurrent update of the
 * same notification makes the write fail, and the update is applied again on what that one stored.
 */
export async function updateNotification(
  repository: NotificationRepository,
  target: { deploymentId: number; id: number },
  input: UpdateNotificationInput,
  settings: NotificationSettings,
): Promise<NotificationDto> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const stored = await repository.find(target.deploymentId, target.id);
    if (!stored) throw new NotFoundError(`Notification ${target.id} of deployment ${target.deploymentId}`);
    const next = applyNotificationUpdate(stored.notification, input, settings);
    const changed = scheduleChanged(stored.notification, next);
    if (await repository.replace(next, stored.version, changed)) return toNotificationDto(next, Date.now());
    // The store's backoff (full jitter): contenders spread out instead of colliding again at once.
    if (attempt < MAX_ATTEMPTS) await backoff(attempt);
  }
  throw new ConflictError('The notification is being changed by others; retry the request');
}
