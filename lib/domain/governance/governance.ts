import type { NotificationOwner, NotificationRef } from '#lib/domain/notifications/notification';
import type { Principal } from '#lib/domain/principal';

/**
 * What holds a notification's schedule back besides `isEnabled`: a pause (until a time, or until
 * resumed), a suspension after too many failed runs, and an owner who is no longer an active console
 * user. Pure rules; the routes are in lib/domain/governance/governance-writes.ts.
 */

export const notificationStatuses = ['active', 'disabled', 'paused', 'suspended', 'orphaned'] as const;
export type NotificationStatus = (typeof notificationStatuses)[number];

interface NotificationPause {
  /** When the schedule goes on by itself (epoch ms); null: until resumed. */
  until: number | null;
  reason: string | null;
}

export interface NotificationHold {
  pause: NotificationPause | null;
  /** Set by the settle of the run that made the failed runs too many; cleared by a resume. */
  suspended: boolean;
}

/** A notification as a hold write names it: its dashboard files it in the status lists. */
export type HoldTarget = NotificationRef & { dashboardId: number };

export const noHold = (): NotificationHold => ({ pause: null, suspended: false });

/** The statuses the notification list filters by: a hold puts a notification in one of them. */
export const heldStatuses = ['paused', 'suspended'] as const;
export type HeldStatus = (typeof heldStatuses)[number];

/**
 * The status a hold alone gives, as the list's index files it (the first of suspended, paused);
 * undefined when nothing holds it. Whether it is still that status when read (an owner gone inactive
 * makes it orphaned, a pause whose `until` has come is over) is `governanceOf`'s at that moment.
 */
export function heldStatusOf(hold: NotificationHold): HeldStatus | undefined {
  if (hold.suspended) return 'suspended';
  return hold.pause ? 'paused' : undefined;
}

/** Who owns what a caller creates: the calling console user (an API key's user, a console JWT's). */
export const ownerOf = (principal: Principal): NotificationOwner | null =>
  principal.kind === 'console'
    ? { type: 'USER', userId: principal.user.id, email: principal.user.email }
    : null;

/** An owner that is a console user is `inactive` while that user is deactivated or deleted. */
export type OwnerStanding = 'active' | 'inactive';

const SUSPENDED_REASON = 'consecutive_failed_runs';
export const ORPHANED_REASON = 'owner_inactive';

/** Longest pause reason kept, and how far ahead a pause may end. */
export const MAX_PAUSE_REASON_LENGTH = 500;
export const MAX_PAUSE_DAYS = 366;

/** A pause's request: its end (epoch ms) and its reason, both optional. */
export interface PauseInput {
  until?: number;
  reason?: string;
}

/** Whether a pause still holds at `now`: one whose `until` has come is over by itself. */
const pauseHolds = (pause: NotificationPause | null, now: number): pause is NotificationPause =>
  pause !== null && (pause.until === null || pause.until > now);

export interface Governance {
  status: NotificationStatus;
  statusReason: string | null;
  /** The running pause's end, if it has one. */
  pausedUntil: number | null;
  /** Whether `nextRunAt` is answered: active, or paused until a time (its first instant at or after it). */
  schedules: boolean;
}

/** The status of a notification at `now`, the first that holds of orphaned, suspended, paused, disabled, active. */
export function governanceOf(
  notification: { isEnabled: boolean; hold: NotificationHold },
  owner: OwnerStanding,
  now: number,
): Governance {
  const { pause, suspended } = notification.hold;
  const running = pauseHolds(pause, now) ? pause : null;
  const pausedUntil = running?.until ?? null;
  if (owner === 'inactive')
    return { status: 'orphaned', statusReason: ORPHANED_REASON, pausedUntil, schedules: false };
  if (suspended)
    return { status: 'suspended', statusReason: SUSPENDED_REASON, pausedUntil, schedules: false };
  if (running)
    return {
      status: 'paused',
      statusReason: running.reason,
      pausedUntil,
      schedules: notification.isEnabled && pausedUntil !== null,
    };
  if (!notification.isEnabled)
    return { status: 'disabled', statusReason: null, pausedUntil, schedules: false };
  return { status: 'active', statusReason: null, pausedUntil, schedules: true };
}

/**
 * The first instant the schedule may fire at, from the hold alone: undefined when nothing holds it,
 * `null` while it is held with no end (paused without `until`, or suspended). The planner keeps no
 * instant before it, so a paused schedule's entry waits in the due index at the first instant at or
 * after `until`, or is out of it: paused instants are never fired nor caught up.
 */
export function resumesAt(hold: NotificationHold | undefined): number | null | undefined {
  if (!hold) return undefined;
  if (hold.suspended) return null;
  if (!hold.pause) return undefined;
  return hold.pause.until;
}

/**
 * What of the hold decides the instants, appended to the schedule signature: a pause, its end or a
 * suspension make a state of their own. Empty when nothing holds it, so that stored signatures stay.
 */
export function holdSignature(hold: NotificationHold | undefined): string {
  const from = resumesAt(hold);
  if (from === undefined) return '';
  return from === null ? '|held' : `|from ${from}`;
}
