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
import {
  missingScheduleFields,
  requiredTimeFields,
  type ScheduleState,
  scheduleSignature,
  type TimeField,
} from '#lib/domain/schedules/schedule';
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

/** What an update writes: the supplied fields, and the time fields it relies on finding stored. */
interface NotificationChanges {
  set: Partial<Record<keyof Notification, unknown>>;
  /** Fields the updated schedule needs that the update does not set: the write happens only if they are stored. */
  requires: readonly TimeField[];
  /** Whether the set fields include the schedule's: the write then counts a new schedule version. */
  schedule: boolean;
}

/** An update's write: the notification after it, and its new schedule version when the schedule was written. */
type UpdatedNotification =
  | { kind: 'fields'; scheduled: ScheduledNotification }
  | { kind: 'schedule'; notification: Notification; scheduleVersion: number };

/** Update: the notification's fields and schedule, in place. */
export interface NotificationUpdate {
  find(deploymentId: number, id: number): Promise<ScheduledNotification | undefined>;
  /**
   * Writes the changes in one atomic step, touching no other field, and returns the notification as
   * stored after it; `undefined` when it does not exist, `unmet` when a required field is not stored
   * (or, with requirements, when it does not exist: the caller reads to tell). A write of the
   * schedule also marks the notification in the due index, so that a pass stores its state should
   * `storeSchedule` never come (a crash in between).
   */
  update(
    target: NotificationRef,
    changes: NotificationChanges,
  ): Promise<UpdatedNotification | undefined | 'unmet'>;
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
  /** The notification with its owner's standing read beside it. */
  withOwnerStanding(scheduled: ScheduledNotification): Promise<ScheduledNotification>;
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
  const set = changedFields(input);
  const requires = input.scheduleType
    ? requiredTimeFields(input.scheduleType).filter((field) => set[field] === undefined)
    : [];
  return { set, requires, schedule: Object.keys(set).some((field) => scheduleFields.has(field)) };
}

/** The instant an update answers as of, and the wait before it writes again after a concurrent update. */
export interface UpdateTiming {
  now: number;
  pause: (attempt: number) => Promise<void>;
}

/**
 * Updates a notification of a deployment in one conditional write without reading it first, so that
 * concurrent updates of one notification neither lose each other's fields nor have to retry. A write
 * refused because the new schedule type lacks a field is read back: the field is missing (400 naming
 * it), or a concurrent update stored it in between, and the write is tried again after a jittered
 * pause. A write of the schedule is followed by its new state (reading and upcoming instants as of
 * now), computed from the notification the write returned and stored unless a later change's is.
 */
export async function updateNotification(
  notifications: NotificationUpdate,
  target: NotificationRef,
  input: UpdateNotificationInput,
  settings: NotificationSettings,
  timing: UpdateTiming,
): Promise<NotificationDto> {
  const { now } = timing;
  const changes = notificationChanges(input, settings);
  const owner =
    input.ownerUserId == null ? undefined : await transferredOwner(notifications, input.ownerUserId);
  if (owner) changes.set.owner = owner;
  if (Object.keys(changes.set).length === 0) {
    const stored = await notifications.find(target.deploymentId, target.id);
    if (!stored) throw notificationNotFound(target);
    return toNotificationDto(stored, now);
  }
  // The owner just named was read active; any other is read beside the answer.
  const answer = async (scheduled: ScheduledNotification) =>
    toNotificationDto(owner ? scheduled : await notifications.withOwnerStanding(scheduled), now);
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const result = await notifications.update(target, changes);
    if (result === undefined) throw notificationNotFound(target);
    if (result !== 'unmet') {
      if (result.kind === 'fields') return answer(result.scheduled);
      const { notification, scheduleVersion } = result;
      const state = planSchedule(notification, now);
      await notifications.storeSchedule(target, state, scheduleSignature(notification), scheduleVersion);
      return answer({ notification, schedule: state });
    }
    const stored = await notifications.find(target.deploymentId, target.id);
    if (!stored) throw notificationNotFound(target);
    applyNotificationUpdate(stored.notification, input, settings);
    // A jittered pause (the caller's): contenders spread out instead of colliding again at once.
    if (attempt < MAX_ATTEMPTS) await timing.pause(attempt);
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
    (held) => notifications.create(draft, { ...schedule, signature: scheduleSignature(draft) }, held),
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
