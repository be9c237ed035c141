import { auditEvent, type ChangeContext, type NewAuditEvent } from '#lib/domain/audit/audit';
import {
  governanceOf,
  MAX_PAUSE_DAYS,
  type NotificationHold,
  noHold,
  type PauseInput,
} from '#lib/domain/governance/governance';
import {
  type Notification,
  type NotificationDto,
  type NotificationRef,
  notificationNotFound,
  type ScheduledNotification,
  toNotificationDto,
} from '#lib/domain/notifications/notification';
import { type ScheduleState, scheduleSignature } from '#lib/domain/schedules/schedule';
import { planSchedule } from '#lib/domain/schedules/schedule-planning';
import type { WebhookEventType } from '#lib/domain/webhooks/event-types';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';
import { wantedEvent } from '#lib/domain/webhooks/recording';
import { ConflictError, ValidationError } from '#lib/errors';

/**
 * Pause and resume. Each is a write of the notification's hold that counts as a schedule change: the
 * hold decides which instants the schedule entry keeps (lib/domain/schedules/schedule-planning.ts), so the entry
 * is stored again at once (or by the next pass, from the change's mark, should this request die in
 * between). A paused schedule's entry waits in the due index at the first instant at or after the
 * pause's end, or is out of it: nothing is fired while it holds, nothing is caught up after.
 */

/** A notification as a hold write reads it: its version is the condition of the write. */
interface HeldNotification {
  scheduled: ScheduledNotification;
  version: number;
}

export interface HoldStore {
  /** The notification, its entry and its owner's standing, with the item's version; undefined when gone. */
  findForHold(target: NotificationRef): Promise<HeldNotification | undefined>;
  /**
   * Sets the hold of `notification` (as read) on condition that the item is still at `version`, as a
   * schedule change (a new schedule version and a mark in the due index); with `clearFailedRuns` the
   * count of failed runs starts again; `audit` and `event` are recorded in the same write. The schedule
   * version it gave, or undefined when the item changed meanwhile.
   */
  writeHold(
    notification: Notification,
    hold: NotificationHold,
    version: number,
    clearFailedRuns: boolean,
    audit: NewAuditEvent,
    event?: WebhookEvent,
  ): Promise<{ scheduleVersion: number } | undefined>;
  storeSchedule(
    target: NotificationRef,
    state: ScheduleState,
    signature: string,
    scheduleVersion: number,
  ): Promise<void>;
}

const DAY_MS = 24 * 60 * 60_000;
/** Writes before a hold that keeps meeting concurrent changes answers 409. */
const MAX_ATTEMPTS = 5;

/** `until` must lie ahead of `now`, at most MAX_PAUSE_DAYS. */
function checkPause(input: PauseInput, now: number): void {
  if (input.until === undefined) return;
  if (input.until <= now) throw new ValidationError([{ path: 'until', message: 'must be later than now' }]);
  if (input.until > now + MAX_PAUSE_DAYS * DAY_MS)
    throw new ValidationError([{ path: 'until', message: `must be at most ${MAX_PAUSE_DAYS} days ahead` }]);
}

/**
 * Writes the hold `next` decides from what was read, with its audit event and its webhook event when
 * an endpoint wants it (the notification as the write leaves it), then the schedule state it calls for as of `now`; a write
 * that meets a concurrent change reads again. Answers the notification as it then is.
 */
async function changeHold(
  store: HoldStore,
  target: NotificationRef,
  { audit, recorder, now }: ChangeContext,
  action: 'paused' | 'resumed',
  next: (read: ScheduledNotification) => { hold: NotificationHold; clearFailedRuns: boolean } | undefined,
): Promise<NotificationDto> {
  const recorded = auditEvent(audit, target, action, null, now);
  const type: WebhookEventType = action === 'paused' ? 'notification.paused' : 'notification.resumed';
  const subscribed = await recorder.subscribedTypes(target.deploymentId);
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const read = await store.findForHold(target);
    if (!read) throw notificationNotFound(target);
    const change = next(read.scheduled);
    if (!change) return toNotificationDto(read.scheduled, now);
    const notification: Notification = { ...read.scheduled.notification, hold: change.hold };
    const state = planSchedule(notification, now);
    const after = toNotificationDto({ ...read.scheduled, notification, schedule: state }, now);
    const event = wantedEvent(subscribed, recorder, target.deploymentId, type, { notification: after }, now);
    const written = await store.writeHold(
      read.scheduled.notification,
      change.hold,
      read.version,
      change.clearFailedRuns,
      recorded,
      event,
    );
    if (!written) continue;
    await store.storeSchedule(target, state, scheduleSignature(notification), written.scheduleVersion);
    return after;
  }
  throw new ConflictError('The notification is being changed by others; retry the request');
}

/** Pauses (or re-pauses, replacing `until` and `reason`) a notification; a suspension stays. */
export function pauseNotification(
  store: HoldStore,
  target: NotificationRef,
  input: PauseInput,
  context: ChangeContext,
): Promise<NotificationDto> {
  checkPause(input, context.now);
  const pause = { until: input.until ?? null, reason: input.reason ?? null };
  return changeHold(store, target, context, 'paused', ({ notification }) => {
    const held = notification.hold.pause;
    // The same pause again changes nothing: nothing is written, nothing recorded.
    if (held && held.until === pause.until && held.reason === pause.reason) return undefined;
    return { hold: { ...notification.hold, pause }, clearFailedRuns: false };
  });
}

/**
 * Clears a pause and a suspension (and the count of failed runs): the next instant is the first after
 * now. An orphaned notification is 409: its owner must be active, or another, first.
 */
export function resumeNotification(
  store: HoldStore,
  target: NotificationRef,
  context: ChangeContext,
): Promise<NotificationDto> {
  return changeHold(store, target, context, 'resumed', (read) => {
    if (governanceOf(read.notification, read.owner ?? 'active', context.now).status === 'orphaned')
      throw new ConflictError(
        'The notification is orphaned: its owner is not an active console user; transfer it (ownerUserId) before resuming',
      );
    const { pause, suspended } = read.notification.hold;
    if (!pause && !suspended) return undefined;
    return { hold: noHold(), clearFailedRuns: true };
  });
}
