import type {
  DueEntry,
  DueNotification,
  EntryMove,
  RecipientsPage,
} from '#lib/domain/dispatch/dispatch-ports';
import type { Dashboard } from '#lib/domain/entities';
import { ORPHANED_REASON, resumesAt } from '#lib/domain/governance/governance';
import type { Notification } from '#lib/domain/notifications/notification';
import { type RunSkipReason, runSkipReason } from '#lib/domain/runs/runs';
import type { SchedulePlanner } from '#lib/domain/schedules/schedule-planning';

/**
 * What a pass does with a due notification, decided from what it read and the time alone, so that
 * each rule can be tested without storage: first what becomes of the entry (`decideEntry`), then, for
 * an instant that fires, how its run is made (`planRun`) once its dashboard and owner are read; these
 * are read only for an instant that fires.
 */

/**
 * A run of at most this many recipients, all in the first page, has its deliveries written in the
 * claim's transaction: one request fewer per fire, at the price of transactional write units.
 */
export const CLAIM_DELIVERIES_MAX = 25;

/** What becomes of a due notification's entry. */
export type EntryDecision =
  /** Nothing: the entry has moved since the index was read, or a later schedule's own state comes. */
  | { action: 'none'; because: 'entry-moved' | 'schedule-rewritten' }
  /** The entry moves on to `move.upcoming` (out of the index when none) and nothing fires. */
  | { action: 'move'; because: 'deleted' | 'disabled' | 'missed' | 'held'; move: EntryMove }
  /** `instant` fires, in one transaction with the entry's move. */
  | { action: 'fire'; notification: Notification; instant: number; move: EntryMove };

/** The instant a pass runs as of (epoch ms), and how late an instant may still fire. */
export interface FireTime {
  now: number;
  misfireGraceMinutes: number;
}

/** Step 1's answer for a due notification's `entry`, decided (see EntryDecision). */
export function decideEntry(
  entry: DueEntry & { kind: 'notification' },
  due: DueNotification,
  planner: SchedulePlanner,
  { now, misfireGraceMinutes }: FireTime,
): EntryDecision {
  const { schedule } = due;
  // The index is read eventually consistent: the entry itself says what is due now.
  if (schedule?.dueKey !== entry.dueKey) return { action: 'none', because: 'entry-moved' };
  const read = { dueKey: entry.dueKey, scheduleVersion: schedule.scheduleVersion };
  // An entry whose notification a delete has just taken: it leaves the index, nothing fires.
  if (!due.notification) return { action: 'move', because: 'deleted', move: { ...read, upcoming: [] } };
  // A schedule written since this entry was stored: its own state comes (or its mark's pass stores it).
  if (due.notification.scheduleVersion > schedule.scheduleVersion)
    return { action: 'none', because: 'schedule-rewritten' };
  const notification = due.notification.value;
  // The instants still ahead are kept; a disabled notification has none and leaves the index.
  const move: EntryMove = { ...read, upcoming: planner.upcomingAfter(notification, now, schedule.upcoming) };
  if (!notification.isEnabled) return { action: 'move', because: 'disabled', move };
  const latest = planner.latestFiringAtOrBefore(notification, now);
  // An entry fires no instant earlier than its own: those were before the schedule it was made from.
  if (latest === undefined || latest < entry.dueAt || now - latest > misfireGraceMinutes * 60_000)
    return { action: 'move', because: 'missed', move };
  // Paused or suspended at this instant: it is not fired, and the move keeps no instant before the hold's end.
  const from = resumesAt(notification.hold);
  if (from === null || (from !== undefined && latest < from))
    return { action: 'move', because: 'held', move };
  return { action: 'fire', notification, instant: latest, move };
}

/** How a fired instant's run is made. */
export interface RunPlan {
  /** Why the run is skipped (nothing is delivered); null when it delivers. */
  skipReason: RunSkipReason | null;
  /** Whether the run's deliveries are written in the claim's transaction (see CLAIM_DELIVERIES_MAX). */
  deliveriesInClaim: boolean;
}

/** The run of an instant that fires, given its dashboard, whether its owner is active and its first page. */
export function planRun(
  notification: Notification,
  dashboard: Dashboard | undefined,
  ownerActive: boolean,
  firstPage: RecipientsPage,
): RunPlan {
  const skipReason = ownerActive ? runSkipReason('schedule', notification, dashboard) : ORPHANED_REASON;
  return {
    skipReason,
    deliveriesInClaim:
      skipReason === null && firstPage.last === undefined && firstPage.rows.length <= CLAIM_DELIVERIES_MAX,
  };
}
