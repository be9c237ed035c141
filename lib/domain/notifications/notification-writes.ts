import {
  type AuditContext,
  auditEvent,
  creationEvent,
  fieldChanges,
  type NewAuditEvent,
  updateAction,
} from '#lib/domain/audit/audit';
import type { ConsoleUser } from '#lib/domain/entities';
import { noHold } from '#lib/domain/governance/governance';
import { type IdempotencyKeyInput, onceForKey, requestFingerprint } from '#lib/domain/idempotency';
import {
  type Notification,
  type NotificationDto,
  type NotificationOwner,
  type NotificationRef,
  type NotificationSettings,
  notificationNotFound,
  type ScheduledNotification,
  toNotificationDto,
} from '#lib/domain/notifications/notification';
import type { UpdateNotificationInput } from '#lib/domain/notifications/notification-fields';
import type {
  CreateNotificationInput,
  DashboardRef,
  NotificationCreation,
} from '#lib/domain/notifications/notification-lifecycle';
import { customCronProblem } from '#lib/domain/schedules/cron';
import { missingScheduleFields, type ScheduleState, scheduleSignature } from '#lib/domain/schedules/schedule';
import type { ScheduleType } from '#lib/domain/schedules/schedule-fields';
import { planSchedule } from '#lib/domain/schedules/schedule-planning';
import {
  ConflictError,
  type FieldProblem,
  IdempotencyKeyMismatchError,
  NotFoundError,
  ValidationError,
} from '#lib/errors';

/**
 * The schedule writers of the API: create and update. They compute what a read only picks up (the
 * schedule's reading and its upcoming instants, see ScheduleState), so they alone of the API's
 * functions bundle the cron libraries.
 */

/** The fields a schedule is made of: writing any of them gives the notification a new schedule state. */
const scheduleFields = new Set<string>([
  'scheduleType',
  'minute',
  'hour',
  'dayOfWeek',
  'dayOfMonth',
  'customCron',
  'timezone',
  'isEnabled',
] satisfies (keyof Notification)[]);

/** What an update writes: the fields whose values change, as they are after it. */
interface NotificationChanges {
  set: Partial<Record<keyof Notification, unknown>>;
  /** Whether the set fields include the schedule's: the write then counts a new schedule version. */
  schedule: boolean;
}

/** Update: the notification's fields and schedule, in place. */
export interface NotificationUpdate {
  find(deploymentId: number, id: number): Promise<ScheduledNotification | undefined>;
  /** The notification with its owner's standing and the item's version, the condition of the write. */
  findForUpdate(
    target: NotificationRef,
  ): Promise<{ scheduled: ScheduledNotification; version: number } | undefined>;
  /**
   * Writes the changes and records `event`, in one transaction, on condition that the item is still
   * at `version`; the new schedule version when the schedule was written. undefined when the item
   * changed (or went) since it was read.
   */
  update(
    target: NotificationRef,
    changes: NotificationChanges,
    version: number,
    event: NewAuditEvent,
  ): Promise<{ scheduleVersion: number } | undefined>;
  /**
   * Stores the schedule state computed from `scheduleVersion`, unless a later one is stored; a state
   * of the same schedule as the stored one keeps the stored instants (the same update sent again
   * changes nothing, not even an instant due a moment ago and not fired yet).
   */
  storeSchedule(
    target: NotificationRef,
    state: ScheduleState,
    signature: string,
    scheduleVersion: number,
  ): Promise<void>;
  /** A console user by id (strongly consistent): who a transfer names. */
  consoleUser(userId: number): Promise<ConsoleUser | undefined>;
}

/** The owner a transfer names: an active console user, else 400 naming `ownerUserId`. */
export async function transferredOwner(
  users: Pick<NotificationUpdate, 'consoleUser'>,
  userId: number,
): Promise<NotificationOwner> {
  const user = await users.consoleUser(userId);
  if (!user?.active) {
    const message = user ? 'is a deactivated console user' : 'is not a console user';
    throw new ValidationError([{ path: 'ownerUserId', message }]);
  }
  return { type: 'USER', userId: user.id, email: user.email };
}

/** The values an input supplies: without the fields it leaves out or sets to `null`. */
function suppliedValues<T extends object>(input: { [K in keyof T]?: T[K] | null }): Partial<T> {
  const supplied: Partial<T> = {};
  for (const key in input) {
    const value = input[key];
    if (value !== undefined && value !== null) supplied[key] = value;
  }
  return supplied;
}

/** The fields an update changes: `null` clears a list, and leaves any other field as stored. */
function changedFields(input: UpdateNotificationInput): Partial<Notification> {
  const { filters, timeGrains, memberSwitchers, ownerUserId: _owner, ...values } = input;
  return {
    ...suppliedValues<Notification>(values),
    ...(filters !== undefined && { filters }),
    ...(timeGrains !== undefined && { timeGrains }),
    ...(memberSwitchers !== undefined && { memberSwitchers }),
  };
}

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
  const updated: Notification = { ...current, ...changedFields(input) };

  const problems: FieldProblem[] = [];
  if (typeof input.customCron === 'string') {
    const problem = customCronProblem(input.customCron, settings.customCronMinIntervalMinutes);
    if (problem) problems.push({ path: 'customCron', message: problem });
  }
  problems.push(...missingScheduleFields(updated));
  if (problems.length > 0) throw new ValidationError(problems);
  return updated;
}

/**
 * Writes before a PUT that keeps meeting concurrent changes answers 409: each try reads and writes
 * on condition that nothing changed, so of many concurrent updates one wins each round; enough
 * rounds for 50 at once to all land.
 */
export const MAX_ATTEMPTS = 12;
/** The pauses between tries stop growing after this many doublings (25 ms × 2^4 at most). */
const MAX_PAUSE_DOUBLINGS = 5;

/** The instant an update answers as of, and the wait before it writes again after a concurrent update. */
export interface UpdateTiming {
  now: number;
  pause: (attempt: number) => Promise<void>;
}

/**
 * Updates a notification: read with its version, the fields that change written with their audit
 * event in one transaction on condition that the version is still the one read. A write that meets a
 * concurrent change reads again after a jittered pause, so concurrent updates of different fields
 * both take effect and each event's `before` is what the previous change left. An update that
 * changes nothing writes nothing and records nothing. A write of the schedule is followed by its new
 * state (reading and upcoming instants as of now), stored unless a later change's is.
 */
export async function updateNotification(
  notifications: NotificationUpdate,
  target: NotificationRef,
  input: UpdateNotificationInput,
  settings: NotificationSettings,
  timing: UpdateTiming,
  audit: AuditContext,
): Promise<NotificationDto> {
  const { now } = timing;
  if (typeof input.customCron === 'string') {
    const problem = customCronProblem(input.customCron, settings.customCronMinIntervalMinutes);
    if (problem) throw new ValidationError([{ path: 'customCron', message: problem }]);
  }
  const owner =
    input.ownerUserId == null ? undefined : await transferredOwner(notifications, input.ownerUserId);
  // The owner just named was read active; any other's standing was read with the notification.
  const answer = (scheduled: ScheduledNotification) =>
    toNotificationDto(owner ? { ...scheduled, owner: 'active' } : scheduled, now);
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const read = await notifications.findForUpdate(target);
    if (!read) throw notificationNotFound(target);
    const current = read.scheduled.notification;
    const updated = { ...applyNotificationUpdate(current, input, settings), ...(owner && { owner }) };
    const changes = fieldChanges(current, updated);
    const fields = Object.keys(changes) as (keyof Notification)[];
    if (fields.length === 0) return toNotificationDto(read.scheduled, now);
    const write: NotificationChanges = {
      set: Object.fromEntries(fields.map((field) => [field, updated[field] ?? null])),
      schedule: fields.some((field) => scheduleFields.has(field)),
    };
    const event = auditEvent(audit, target, updateAction(changes), changes, now);
    const written = await notifications.update(target, write, read.version, event);
    if (written) {
      if (!write.schedule) return answer({ ...read.scheduled, notification: updated });
      const state = planSchedule(updated, now);
      await notifications.storeSchedule(target, state, scheduleSignature(updated), written.scheduleVersion);
      return answer({ ...read.scheduled, notification: updated, schedule: state });
    }
    // A jittered pause (the caller's): contenders spread out instead of colliding again at once.
    if (attempt < MAX_ATTEMPTS) await timing.pause(Math.min(attempt, MAX_PAUSE_DOUBLINGS));
  }
  throw new ConflictError('The notification is being changed by others; retry the request');
}

/**
 * A new notification before the request's own values: UTC, enabled, PNG, no lists, no summary, and
 * ids still to be given. A create and a schedule preview check the request's fields against it.
 */
export const newNotification = (deploymentId: number, scheduleType: ScheduleType): Notification => ({
  id: 0,
  deploymentId,
  dashboardId: 0,
  scheduleType,
  timezone: 'UTC',
  isEnabled: true,
  notificationEnabled: true,
  notificationFormat: 'png',
  filters: null,
  timeGrains: null,
  memberSwitchers: null,
  notificationAiSummary: false,
  owner: null,
  hold: noHold(),
});

export async function createNotification(
  notifications: NotificationCreation,
  deploymentId: number,
  input: CreateNotificationInput,
  settings: NotificationSettings,
  now: number,
  owner: NotificationOwner | null,
  audit: AuditContext,
  idempotency?: IdempotencyKeyInput,
): Promise<NotificationDto> {
  const { dashboardId, dashboardPublicId, ...fields } = input;
  // The schedule is checked by the update's own rules, before anything is read.
  const checked = applyNotificationUpdate(
    newNotification(deploymentId, input.scheduleType),
    fields,
    settings,
  );
  const ref: DashboardRef | undefined =
    dashboardId !== undefined
      ? { dashboardId }
      : dashboardPublicId !== undefined
        ? { dashboardPublicId }
        : undefined;
  if (!ref) {
    const message = 'exactly one of dashboardId and dashboardPublicId is required';
    throw new ValidationError([{ path: 'dashboardId', message }]);
  }
  const resolvedDashboardId = await notifications.dashboardIdOf(deploymentId, ref);
  if (resolvedDashboardId === undefined) {
    const name = 'dashboardId' in ref ? ref.dashboardId : ref.dashboardPublicId;
    throw new NotFoundError(`Dashboard ${name} of deployment ${deploymentId}`);
  }
  const { id: _placeholder, ...draft } = { ...checked, dashboardId: resolvedDashboardId, owner };
  const claim = idempotency && { ...idempotency, fingerprint: requestFingerprint(input) };
  // A repeat of the key answers the notification the first request made: the same body, so the same schedule.
  const schedule = planSchedule(draft, now);
  const notification = await onceForKey(
    notifications,
    deploymentId,
    claim,
    (held) =>
      notifications.create(
        draft,
        { ...schedule, signature: scheduleSignature(draft) },
        held,
        creationEvent(audit, now),
      ),
    async (done) => {
      if (done.kind !== 'notification') throw new IdempotencyKeyMismatchError();
      const made = done.notification;
      // Deleted since: the key answers what is gone as every route does.
      if (!(await notifications.isLive({ deploymentId, id: made.id })))
        throw notificationNotFound({ deploymentId, id: made.id });
      return made;
    },
  );
  return toNotificationDto({ notification, schedule }, now);
}
