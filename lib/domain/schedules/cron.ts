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
 * The shortest wall-clock gap between two consecutive firings, in minutes: within an hour, the
 * closest minutes; between two firing hours of a day, (hours apart × 60) − last minute + first
 * minute; between two firing days, (days apart × 1440) − the last firing's time of day + the first's.
 * Months are left out: a month that does not fire only makes the gaps around it longer.
 */
function shortestGapMinutes(fields: ParsedFields): number {
  const minutes = numbers(fields.minute.values);
  const hours = numbers(fields.hour.values);
  const [firstMinute = 0, lastMinute = 0] = [minutes[0], minutes.at(-1)];
  const [firstHour = 0, lastHour = 0] = [hours[0], hours.at(-1)];
  const withinHour = Math.min(...stepsOf(minutes));
  const betweenHours = Math.min(...stepsOf(hours)) * 60 - lastMinute + firstMinute;
  const betweenDays =
    shortestDayGap(fields) * 1440 - (lastHour * 60 + lastMinute) + (firstHour * 60 + firstMinute);
  return Math.min(withinHour, betweenHours, betweenDays);
}

/** The fewest days from one firing day to the next. */
function shortestDayGap(fields: ParsedFields): number {
  if (!fields.dayOfWeek.isWildcard) {
    // 7 stands for Sunday as well as 0; the week wraps from the last day to the first.
    const days = numbers(numbers(fields.dayOfWeek.values).map((day) => day % 7));
    return Math.min(...stepsOf(days), 7 - (days.at(-1) ?? 0) + (days[0] ?? 0));
  }
  if (!fields.dayOfMonth.isWildcard) {
    // The month wraps from its last firing day to the first, soonest in the shortest month holding it.
    const days = numbers(fields.dayOfMonth.values);
    const last = days.at(-1) ?? 1;
    return Math.min(...stepsOf(days), Math.max(28, last) - last + (days[0] ?? 1));
  }
  return 1;
}
