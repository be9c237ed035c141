import { CronExpressionParser } from 'cron-parser';
import cronstrue from 'cronstrue';

/**
 * What needs the cron libraries (cron-parser, with luxon, and cronstrue): only the schedule writers
 * (create, update, the preview) and the dispatcher bundle this module.
 */

/** cronstrue's reading in 24-hour time, e.g. `At 09:00, only on Monday`. */
export function describeCron(cronExpression: string): string {
  return cronstrue.toString(cronExpression, { use24HourTimeFormat: true, verbose: false });
}

const CRON_FIELDS = 5;
const fieldNames = ['minute', 'hour', 'day-of-month', 'month', 'day-of-week'] as const;

/**
 * Standard 5-field cron only: numbers, `*`, lists, ranges, steps, and month and weekday names.
 * Extensions such as `L`, `W`, `#`, `?` and `H` are refused: the interval check does not model them
 * (`5L` fires on the last Friday, next to any other day listed).
 */
const standardField = (names: string) => {
  const value = `(?:\\d+${names ? `|${names}` : ''})`;
  const item = `(?:\\*|${value}(?:-${value})?)(?:/\\d+)?`;
  return new RegExp(`^${item}(?:,${item})*$`, 'i');
};
const months = 'JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC';
const weekdays = 'SUN|MON|TUE|WED|THU|FRI|SAT';
const standardFields = [
  standardField(''),
  standardField(''),
  standardField(''),
  standardField(months),
  standardField(weekdays),
];

/**
 * Checks a custom 5-field cron expression: it must parse strictly (no empty fields, no seconds, not
 * both day-of-month and day-of-week) and never fire twice within `minIntervalMinutes`.
 * Returns the problem in words, or undefined when the expression is acceptable.
 */
export function customCronProblem(expression: string, minIntervalMinutes: number): string | undefined {
  // A blank expression splits into one empty field.
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== CRON_FIELDS) {
    return 'must be a cron expression of 5 fields (minute hour day-of-month month day-of-week)';
  }
  const nonStandard = fields.findIndex((field, i) => !standardFields[i]?.test(field));
  if (nonStandard >= 0) {
    return `uses syntax outside standard cron in its ${fieldNames[nonStandard]} field ("${fields[nonStandard]}"): only numbers, names, * , - and / are accepted`;
  }
  let parsed: ReturnType<typeof CronExpressionParser.parse>;
  // cron-parser's strict mode wants the seconds field; a fixed 0 keeps the 5-field meaning.
  const withSeconds = `0 ${fields.join(' ')}`;
  try {
    // The lenient parse first, for its clearer word on a bad field; strict mode adds the ambiguity check.
    CronExpressionParser.parse(withSeconds);
    parsed = CronExpressionParser.parse(withSeconds, { strict: true });
    describeCron(fields.join(' '));
  } catch (error) {
    // cronstrue throws strings, cron-parser Errors.
    const reason = error instanceof Error ? error.message : String(error);
    return `is not a valid cron expression (${reason})`;
  }
  const gap = shortestGapMinutes(parsed.fields);
  if (gap < minIntervalMinutes) {
    return `fires twice within ${gap} minute${gap === 1 ? '' : 's'}; firings must be at least ${minIntervalMinutes} minutes apart`;
  }
  return undefined;
}

interface ParsedFields {
  minute: { values: readonly (number | string)[] };
  hour: { values: readonly (number | string)[] };
  dayOfMonth: { values: readonly (number | string)[]; isWildcard: boolean };
  dayOfWeek: { values: readonly (number | string)[]; isWildcard: boolean };
}

const numbers = (values: readonly (number | string)[]) =>
  [...new Set(values.filter((value): value is number => typeof value === 'number'))].sort((a, b) => a - b);

/** The differences between neighbours: [0, 15, 45] gives [15, 30]. */
function stepsOf(values: readonly number[]): number[] {
  const steps: number[] = [];
  let previous: number | undefined;
  for (const value of values) {
    if (previous !== undefined) steps.push(value - previous);
    previous = value;
  }
  return steps;
}

/**
 * The shortest wall-clock gap between two consecutive firings. Firings within one hour are `minutes`
 * apart; across an hour boundary the gap is (60 − last minute) + first minute, which counts only when
 * two consecutive hours fire (23 → 0 when two consecutive days can fire).
 */
function shortestGapMinutes(fields: ParsedFields): number {
  const minutes = numbers(fields.minute.values);
  const hours = numbers(fields.hour.values);
  const first = minutes[0] ?? 0;
  const last = minutes.at(-1) ?? 0;
  let shortest = Math.min(...stepsOf(minutes));
  const acrossHours = 60 - last + first;
  const consecutiveHours = stepsOf(hours).includes(1);
  const acrossMidnight = hours.includes(23) && hours.includes(0) && consecutiveDaysCanFire(fields);
  if (consecutiveHours || acrossMidnight) shortest = Math.min(shortest, acrossHours);
  return shortest;
}

function consecutiveDaysCanFire(fields: ParsedFields): boolean {
  if (!fields.dayOfWeek.isWildcard) {
    // 7 stands for Sunday as well as 0.
    const days = new Set(numbers(fields.dayOfWeek.values).map((day) => day % 7));
    return [...days].some((day) => days.has((day + 1) % 7));
  }
  if (!fields.dayOfMonth.isWildcard) {
    const days = numbers(fields.dayOfMonth.values);
    const monthEndThenFirst = days.includes(1) && days.some((day) => day >= 28);
    return monthEndThenFirst || stepsOf(days).includes(1);
  }
  return true;
}
