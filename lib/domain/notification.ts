import { isoInstant, nextFiringAfter } from '#lib/domain/firing-instants';
import type {
  DashboardFilter,
  DashboardMemberSwitcher,
  DashboardTimeGrain,
  NotificationFormat,
  UpdateNotificationInput,
} from '#lib/domain/notification-fields';
import {
  cronExpressionOf,
  customCronProblem,
  describeCron,
  missingScheduleFields,
  requiredTimeFields,
  type Schedule,
  type TimeField,
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
  memberSwitchers: DashboardMemberSwitcher[] | null;
  /** Whether the delivered message carries a summary of what changed (the renderer writes it). */
  notificationAiSummary: boolean;
}

/** A stored notification and the version it was read at, for a write that must not lose another's. */
export interface VersionedNotification {
  notification: Notification;
  version: number;
}

/** What an update writes: the supplied fields, and the time fields it relies on finding stored. */
interface NotificationChanges {
  set: Partial<Record<keyof Notification, unknown>>;
  /** Fields the updated schedule needs that the update does not set: the write happens only if they are stored. */
  requires: readonly TimeField[];
}

export interface NotificationRepository {
  find(deploymentId: number, id: number): Promise<VersionedNotification | undefined>;
  /**
   * Writes the changes in one atomic step, touching no other field, and returns the notification as
   * stored after it; `undefined` when it does not exist, `unmet` when a required field is not stored
   * (or, with requirements, when it does not exist: the caller reads to tell).
   */
  update(
    target: NotificationTarget,
    changes: NotificationChanges,
  ): Promise<Notification | undefined | 'unmet'>;
}

export interface NotificationTarget {
  deploymentId: number;
  id: number;
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
  memberSwitchers: DashboardMemberSwitcher[] | null;
  notificationAiSummary: boolean;
  /** The first firing instant after the answer was made (`2026-11-24T08:00:00Z`); null while disabled. */
  nextRunAt: string | null;
}

/** The instant a notification fires next after `now` (epoch ms), or undefined while it is disabled or never matches. */
export function nextRunOf(notification: Notification, now: number): number | undefined {
  return notification.isEnabled ? nextFiringAfter(notification, now) : undefined;
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
    memberSwitchers: notification.memberSwitchers,
    notificationAiSummary: notification.notificationAiSummary,
    nextRunAt: nextRun === undefined ? null : isoInstant(nextRun),
  };
}

/** The fields for which an explicit `null` clears the stored value instead of leaving it unchanged. */
const clearedByNull = new Set<keyof UpdateNotificationInput>(['filters', 'timeGrains', 'memberSwitchers']);

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

/** Writes before a PUT that keeps meeting a concurrent schedule change answers 409. */
export const MAX_ATTEMPTS = 5;

/**
 * The write an update makes, decided from the input alone. Supplied fields only ever add to a complete
 * schedule, so the result can be incomplete only when `scheduleType` changes: then the fields the new
 * type needs and the update does not supply become conditions of the write instead of a prior read.
 */
function notificationChanges(
  input: UpdateNotificationInput,
  settings: NotificationSettings,
): NotificationChanges {
  if (typeof input.customCron === 'string') {
    const problem = customCronProblem(input.customCron, settings.customCronMinIntervalMinutes);
    if (problem) throw new ValidationError([{ path: 'customCron', message: problem }]);
  }
  const set: NotificationChanges['set'] = {};
  for (const [field, value] of Object.entries(input) as [keyof UpdateNotificationInput, unknown][]) {
    if (value === undefined || (value === null && !clearedByNull.has(field))) continue;
    set[field] = value;
  }
  const requires = input.scheduleType
    ? requiredTimeFields(input.scheduleType).filter((field) => set[field] === undefined)
    : [];
  return { set, requires };
}

/**
 * Updates a notification of a deployment in one conditional write without reading it first, so that
 * concurrent updates of one notification neither lose each other's fields nor have to retry. A write
 * refused because the new schedule type lacks a field is read back: the field is missing (400 naming
 * it), or a concurrent update stored it in between, and the write is tried again after a jittered pause.
 */
export async function updateNotification(
  repository: NotificationRepository,
  target: NotificationTarget,
  input: UpdateNotificationInput,
  settings: NotificationSettings,
): Promise<NotificationDto> {
  const notFound = () => new NotFoundError(`Notification ${target.id} of deployment ${target.deploymentId}`);
  const changes = notificationChanges(input, settings);
  if (Object.keys(changes.set).length === 0) {
    const stored = await repository.find(target.deploymentId, target.id);
    if (!stored) throw notFound();
    return toNotificationDto(stored.notification);
  }
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const result = await repository.update(target, changes);
    if (result === undefined) throw notFound();
    if (result !== 'unmet') return toNotificationDto(result);
    const stored = await repository.find(target.deploymentId, target.id);
    if (!stored) throw notFound();
    applyNotificationUpdate(stored.notification, input, settings);
    // The store's backoff (full jitter): contenders spread out instead of colliding again at once.
    if (attempt < MAX_ATTEMPTS) await backoff(attempt);
  }
  throw new ConflictError('The notification is being changed by others; retry the request');
}
