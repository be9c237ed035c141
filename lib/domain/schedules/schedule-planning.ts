import { type NotificationHold, resumesAt } from '#lib/domain/governance/governance';
import { describeCron } from '#lib/domain/schedules/cron';
import {
  firingsAfter,
  latestFiringAtOrBefore,
  type ZonedSchedule,
} from '#lib/domain/schedules/firing-instants';
import { cronExpressionOf, type ScheduleState } from '#lib/domain/schedules/schedule';

/**
 * The schedule state a writer stores (see ScheduleState): computed when a schedule is created or
 * changed, and moved on by the dispatcher at each instant. Only schedule writers bundle this module.
 */

/** The stored instants reach at least this far ahead of their write… */
export const UPCOMING_HORIZON_MS = 24 * 60 * 60_000;
/** …and are at least this many (a weekly schedule keeps four weeks)… */
export const UPCOMING_MIN = 4;
/** …and at most this many (a schedule every 15 minutes keeps 24 hours of them in under 1 KB). */
export const UPCOMING_MAX = 100;

export interface PlannedSchedule extends ZonedSchedule {
  isEnabled: boolean;
  /** A pause or suspension: no instant before its end is kept, none at all while it has no end. */
  hold?: NotificationHold;
}

/**
 * The instants after `now`, reusing those of `stored` that are still ahead and appending the rest,
 * so a dispatcher's move computes only what is new. Empty while disabled or for a cron that never
 * matches.
 */
export function upcomingAfter(
  schedule: PlannedSchedule,
  now: number,
  stored: readonly number[] = [],
): number[] {
  const from = resumesAt(schedule.hold);
  if (!schedule.isEnabled || from === null) return [];
  // A pause's end is itself an instant that may fire: the first kept is at or after it.
  const after = from === undefined ? now : Math.max(now, from - 1);
  const upcoming = stored.filter((instant) => instant > after);
  let last = upcoming.at(-1) ?? after;
  // One walk of the expression for every instant appended.
  const firings = firingsAfter(schedule, last);
  while (
    upcoming.length < UPCOMING_MAX &&
    (upcoming.length < UPCOMING_MIN || last < after + UPCOMING_HORIZON_MS)
  ) {
    const next = firings.next();
    if (next.done) break;
    upcoming.push(next.value);
    last = next.value;
  }
  return upcoming;
}

/** The state a create or a schedule change stores, as of `now`. */
export function planSchedule(schedule: PlannedSchedule, now: number): ScheduleState {
  return {
    humanReadableSchedule: describeCron(cronExpressionOf(schedule)),
    upcoming: upcomingAfter(schedule, now),
  };
}

/** What the dispatcher needs of the cron code, handed to it so that send-now's bundle goes without. */
export interface SchedulePlanner {
  latestFiringAtOrBefore(schedule: ZonedSchedule, atOrBefore: number): number | undefined;
  upcomingAfter(schedule: PlannedSchedule, now: number, stored?: readonly number[]): number[];
  planSchedule(schedule: PlannedSchedule, now: number): ScheduleState;
}

export const schedulePlanner: SchedulePlanner = { latestFiringAtOrBefore, upcomingAfter, planSchedule };
