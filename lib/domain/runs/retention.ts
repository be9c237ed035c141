/**
 * How long run history is kept. A run and its deliveries are kept for the retention period after
 * the instant its id starts with (a scheduled run's firing instant, a send-now's request time: the
 * run's `scheduledFor`), then DynamoDB's TTL removes them. TTL deletes lazily (up to days late), so
 * the lists hide an expired run themselves, by the same instant.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
const RUN_INSTANT = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z/;

/** The instant (epoch ms) a run id starts with; undefined for anything else. */
export function runInstant(runId: string): number | undefined {
  const match = RUN_INSTANT.exec(runId);
  if (!match) return undefined;
  // The pattern has all seven groups: none of these is ever missing.
  const [, year = Number.NaN, month = Number.NaN, day, hour, minute, second, ms] = match.map(Number);
  return Date.UTC(year, month - 1, day, hour, minute, second, ms);
}

/**
 * The TTL value (epoch seconds, rounded up) of a run and of each of its deliveries: the run's instant
 * plus the retention period.
 */
export const runExpiresAt = (instant: number, retentionDays: number): number =>
  Math.ceil((instant + retentionDays * DAY_MS) / 1000);

/** The oldest run instant still kept at `now`: runs from it on are listed, older ones are gone. */
export const oldestKeptInstant = (now: number, retentionDays: number): number =>
  now - retentionDays * DAY_MS + 1;

/** Whether the run with this id is kept at `now`. */
export function isRunKept(runId: string, now: number, retentionDays: number): boolean {
  const instant = runInstant(runId);
  return instant !== undefined && instant >= oldestKeptInstant(now, retentionDays);
}
