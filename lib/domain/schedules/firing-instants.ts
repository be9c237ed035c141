import { CronExpressionParser } from 'cron-parser';
import { cronExpressionOf, type Schedule } from '#lib/domain/schedules/schedule';

/**
 * When a schedule fires. Each local wall-clock minute in the zone that matches the cron expression
 * maps to one instant: itself when that local time occurs once; its first occurrence when the clock
 * goes back and it occurs twice; the instant the gap ends when the clock goes forward over it
 * (Europe/Berlin 2026-03-29 02:30 → 01:00:00Z, 03:00 CEST). A schedule fires once at each distinct
 * instant, so two gap minutes that map to the same instant fire once.
 *
 * cron-parser enumerates the matching wall-clock minutes, read in UTC so that it sees a clock with no
 * transitions; the mapping to instants is done here with Intl. cron-parser's own zone handling moves
 * a gap minute by the gap's length (02:30 → 03:30 CEST), which is not the rule above.
 */

export interface ZonedSchedule extends Schedule {
  timezone: string;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
/** Further than any clock change moves the wall clock (the largest in use is 2 h), so a search started this far out sees every candidate. */
const SEARCH_MARGIN_MS = 3 * HOUR_MS;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timezone, formatter);
  }
  return formatter;
}

/** The wall-clock time at `instant` in the zone, as milliseconds of a clock that reads it in UTC. */
function wallClockAt(timezone: string, instant: number): number {
  // `11/27/2026, 18:23:53`, read by position: formatToParts costs four times as much, and every
  // schedule write asks for hundreds of these.
  const [month = Number.NaN, day, year = Number.NaN, hour, minute, second] = formatterFor(timezone)
    .format(instant)
    .split(/\D+/)
    .map(Number);
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  // Intl drops the milliseconds; the offset is whole seconds, so they carry over unchanged.
  return wall + (((instant % 1000) + 1000) % 1000);
}

/** The zone's offset from UTC at an instant, in ms (east positive). */
export const offsetAt = (timezone: string, instant: number) => wallClockAt(timezone, instant) - instant;

/** How far ahead a zone's clock changes are found at once: a schedule write looks a year and a day ahead. */
const CLOCK_CHANGES_SPAN_MS = 400 * DAY_MS;
const clockChanges = new Map<string, { from: number; to: number; changes: number[] }>();

/**
 * The instants in (`from`, `to`] at which the zone's offset changes (each the first instant of the
 * new offset), found by comparing the offset at both ends of each day and bisecting a day that
 * changed to the millisecond. Remembered per zone for the span found: a function writing schedules
 * looks up the same year of the same zones again and again, hundreds of offsets each time.
 */
export function clockChangesBetween(timezone: string, from: number, to: number): number[] {
  let known = clockChanges.get(timezone);
  if (!known || from < known.from || to > known.to) {
    known = { from, to: Math.max(to, from + CLOCK_CHANGES_SPAN_MS), changes: [] };
    clockChanges.set(timezone, known);
    for (let day = from; day < known.to; day += DAY_MS) {
      let [low, high] = [day, Math.min(day + DAY_MS, known.to)];
      const offset = offsetAt(timezone, low);
      if (offsetAt(timezone, high) === offset) continue;
      while (high - low > 1) {
        const middle = Math.floor((low + high) / 2);
        if (offsetAt(timezone, middle) === offset) low = middle;
        else high = middle;
      }
      known.changes.push(high);
    }
  }
  return known.changes.filter((change) => change > from && change <= to);
}

/** The instant a wall-clock minute of the zone maps to, by the rule above. */
export function instantOfWallClock(timezone: string, wall: number): number {
  const before = offsetAt(timezone, wall - DAY_MS);
  const after = offsetAt(timezone, wall + DAY_MS);
  const [earliest] = [wall - before, wall - after]
    .filter((instant) => wallClockAt(timezone, instant) === wall)
    .sort((a, b) => a - b);
  if (earliest !== undefined) return earliest;
  // In a gap: the clock went forward, so `before` < `after`; the gap ends where the offset changes.
  let low = wall - after; // still on the old offset
  let high = wall - before; // already on the new one
  while (high - low > MINUTE_MS) {
    const middle = low + Math.floor((high - low) / 2 / MINUTE_MS) * MINUTE_MS;
    if (offsetAt(timezone, middle) === before) low = middle;
    else high = middle;
  }
  return high;
}

// cron-parser's strict mode wants the seconds field; a fixed 0 keeps the 5-field meaning.
const matchingWallClocks = (schedule: Schedule, from: number) =>
  CronExpressionParser.parse(`0 ${cronExpressionOf(schedule)}`, {
    tz: 'UTC',
    currentDate: new Date(from),
    strict: true,
  });

/** Days a walk goes on without a match before it ends: past 8 years, February 29's longest wait. */
const WALK_LIMIT_DAYS = 9 * 366;

/**
 * The wall-clock minutes (a clock read in UTC) strictly later than `from` that match the schedule's
 * expression, in order. cron-parser parses and checks the expression; the minutes are then walked day
 * by day from its parsed fields, which costs microseconds where its own iteration (luxon dates, a step
 * per field) costs tens of them per minute found, and a schedule write asks for a dozen. An expression
 * beyond plain numbers is iterated by cron-parser itself.
 */
function* wallClocksAfter(schedule: Schedule, from: number): Generator<number, void, undefined> {
  const parsed = matchingWallClocks(schedule, from);
  const { minute, hour, dayOfMonth, month, dayOfWeek } = parsed.fields;
  const fields = [minute, hour, dayOfMonth, month, dayOfWeek];
  // Values other than numbers (`L`), or both day fields set (cron's either-day rule, refused in
  // strict mode anyway): cron-parser's own iteration. Its values come sorted, each once.
  if (
    fields.some((field) => field.values.some((value) => typeof value !== 'number')) ||
    !(dayOfMonth.isWildcard || dayOfWeek.isWildcard)
  ) {
    while (parsed.hasNext()) yield parsed.next().getTime();
    return;
  }
  const [minutes = [], hours = [], days = [], months = [], weekdays = []] = fields.map(
    (field) => field.values as readonly number[],
  );
  let day = Math.floor(from / DAY_MS) * DAY_MS;
  for (let unmatched = 0; unmatched <= WALK_LIMIT_DAYS; unmatched++, day += DAY_MS) {
    const date = new Date(day);
    // 7 stands for Sunday as well as 0; a wildcard's values are every day.
    const weekday = date.getUTCDay();
    if (
      !months.includes(date.getUTCMonth() + 1) ||
      !days.includes(date.getUTCDate()) ||
      !weekdays.some((value) => value % 7 === weekday)
    )
      continue;
    for (const h of hours)
      for (const m of minutes) {
        const wall = day + h * HOUR_MS + m * MINUTE_MS;
        if (wall <= from) continue;
        yield wall;
        unmatched = 0;
      }
  }
}

/**
 * The firing instants strictly later than `after` (epoch ms), in order, each once; none if the
 * expression never matches. One parse of the expression for all of them.
 */
export function* firingsAfter(schedule: ZonedSchedule, after: number): Generator<number, void, undefined> {
  // The mapping from wall clock to instants never goes backwards, so the candidates that land after
  // the last one given are the next; starting early keeps the repeated hour's first occurrence in view.
  let last = after;
  for (const wall of wallClocksAfter(schedule, wallClockAt(schedule.timezone, after) - SEARCH_MARGIN_MS)) {
    const instant = instantOfWallClock(schedule.timezone, wall);
    // Gap minutes that map to the same instant give it once.
    if (instant > last) {
      yield instant;
      last = instant;
    }
  }
}

/** The first firing instant strictly later than `after` (epoch ms), or undefined if the expression never matches. */
export function nextFiringAfter(schedule: ZonedSchedule, after: number): number | undefined {
  return firingsAfter(schedule, after).next().value ?? undefined;
}

/** The latest firing instant at or before `atOrBefore` (epoch ms), or undefined if there is none. */
export function latestFiringAtOrBefore(schedule: ZonedSchedule, atOrBefore: number): number | undefined {
  const wallClocks = matchingWallClocks(
    schedule,
    wallClockAt(schedule.timezone, atOrBefore) + SEARCH_MARGIN_MS,
  );
  while (wallClocks.hasPrev()) {
    const instant = instantOfWallClock(schedule.timezone, wallClocks.prev().getTime());
    if (instant <= atOrBefore) return instant;
  }
  return undefined;
}
