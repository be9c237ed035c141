/**
 * The schedule's field vocabulary, apart from the cron libraries in schedule.ts: request schemas need
 * these, and an operation that never reads a cron should not bundle cron-parser and luxon for them.
 */

export const scheduleTypes = ['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'CUSTOM'] as const;
export type ScheduleType = (typeof scheduleTypes)[number];

/** An IANA zone name such as `Europe/Berlin` or `UTC`; offsets like `+02:00` are not zones. */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
