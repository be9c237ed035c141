import { describe, expect, it } from 'vitest';
import type { Schedule } from '#lib/domain/schedules/schedule';
import { isTimeZone } from '#lib/domain/schedules/schedule-fields';
import { freshForEachTest } from '#test/support/fresh-module';

/** Loaded anew in each test: the tables and patterns they build on import then count as checked by the tests below. */
const cronCode = freshForEachTest(() => import('#lib/domain/schedules/cron'));
const scheduleCode = freshForEachTest(() => import('#lib/domain/schedules/schedule'));

describe('cronExpressionOf derives the cron from the structured schedule', () => {
  it.each<[Schedule, string]>([
    [{ scheduleType: 'HOURLY', minute: 15 }, '15 * * * *'],
    [{ scheduleType: 'HOURLY' }, '0 * * * *'],
    [{ scheduleType: 'DAILY', minute: 30, hour: 9 }, '30 9 * * *'],
    [{ scheduleType: 'DAILY', hour: 0 }, '0 0 * * *'],
    [{ scheduleType: 'WEEKLY', minute: 0, hour: 9, dayOfWeek: 1 }, '0 9 * * 1'],
    [{ scheduleType: 'WEEKLY', hour: 23, minute: 59, dayOfWeek: 0 }, '59 23 * * 0'],
    [{ scheduleType: 'MONTHLY', minute: 5, hour: 6, dayOfMonth: 31 }, '5 6 31 * *'],
    [{ scheduleType: 'CUSTOM', customCron: '0 9 * * 1-5' }, '0 9 * * 1-5'],
  ])('%j → %s', (schedule, cron) => {
    expect(scheduleCode().cronExpressionOf(schedule)).toBe(cron);
  });

  it('ignores fields the type does not use', () => {
    expect(
      scheduleCode().cronExpressionOf({
        scheduleType: 'DAILY',
        hour: 9,
        dayOfWeek: 3,
        dayOfMonth: 12,
        customCron: '0 1 * * *',
      }),
    ).toBe('0 9 * * *');
  });
});

describe('missingScheduleFields names what the type needs and was never set', () => {
  it.each<[Schedule, string[]]>([
    [{ scheduleType: 'HOURLY' }, []],
    [{ scheduleType: 'DAILY' }, ['hour']],
    [{ scheduleType: 'WEEKLY' }, ['hour', 'dayOfWeek']],
    [{ scheduleType: 'WEEKLY', hour: 9 }, ['dayOfWeek']],
    [{ scheduleType: 'MONTHLY', dayOfMonth: 1 }, ['hour']],
    [{ scheduleType: 'MONTHLY' }, ['hour', 'dayOfMonth']],
    [{ scheduleType: 'CUSTOM', hour: 9 }, ['customCron']],
  ])('%j misses %j', (schedule, fields) => {
    expect(
      scheduleCode()
        .missingScheduleFields(schedule)
        .map((problem) => problem.path),
    ).toEqual(fields);
  });

  it('treats 0 as set, not missing', () => {
    expect(scheduleCode().missingScheduleFields({ scheduleType: 'WEEKLY', hour: 0, dayOfWeek: 0 })).toEqual(
      [],
    );
  });
});

describe('describeCron reads the cron in 24-hour English', () => {
  it.each([
    ['0 9 * * 1', 'At 09:00, only on Monday'],
    ['30 17 * * *', 'At 17:30'],
    ['0 6 15 * *', 'At 06:00, on day 15 of the month'],
    ['15 * * * *', 'At 15 minutes past the hour'],
  ])('%s → %s', (cron, text) => {
    expect(cronCode().describeCron(cron)).toBe(text);
  });
});

describe('customCronProblem', () => {
  it.each([
    '0 9 * * 1-5',
    '*/15 * * * *',
    '0,30 * * * *',
    '0 */2 * * *',
    '55 9,10 * * *',
    '5,55 0,23 * * 1',
    '0 9 * JAN,JUL MON',
    '0 9 * jan-mar/2 sun-sat',
    '0 9 * * 7',
    // Fields apart by several blanks.
    '0  9 *\t* 1',
    // 23:55, then 00:05 of a day that does not fire: each day fires once around midnight.
    '5,55 0 * * *',
    '5,55 23 * * *',
    '5,55 0,23 1,15 * *',
    '5,55 0,23 * * 1,3',
  ])('accepts %s', (cron) => {
    expect(cronCode().customCronProblem(cron, 15)).toBeUndefined();
  });

  it.each([
    ['*/5 * * * *', 'within 5 minutes'],
    ['0,5 * * * *', 'within 5 minutes'],
    ['* * * * *', 'within 1 minute;'],
    // :56 then the next hour's :00.
    ['*/14 * * * *', 'within 4 minutes'],
    ['50,55 * * * *', 'within 5 minutes'],
    // 09:55 then 10:05: ten minutes apart across the hour boundary.
    ['5,55 9,10 * * *', 'within 10 minutes'],
    // 23:55 then 00:05 the next day.
    ['5,55 0,23 * * *', 'within 10 minutes'],
    ['5,55 0,23 * * 1,2', 'within 10 minutes'],
    ['5,55 0,23 31,1 * *', 'within 10 minutes'],
    // A month of 28 days, and Saturday then Sunday.
    ['5,55 0,23 28,1 * *', 'within 10 minutes'],
    ['5,55 0,23 * * 6,0', 'within 10 minutes'],
    // The same, with every list out of order: the check must not depend on how a list is written.
    ['55,5 10,9 * * *', 'within 10 minutes'],
    ['55,5 23,0 * * *', 'within 10 minutes'],
    ['55,5 23,0 1,31 * *', 'within 10 minutes'],
    // Surrounding blanks do not hide a field.
    ['  5,55 9,10 * * *  ', 'within 10 minutes'],
  ])('refuses %s, which fires twice within 15 minutes', (cron, words) => {
    expect(cronCode().customCronProblem(cron, 15)).toContain(words);
  });

  it.each([
    // Hours apart: 09:00 then 11:00.
    ['0 9,11 * * *', 180, 'within 120 minutes'],
    ['30 9 * * *', 1441, 'within 1440 minutes'],
    // Monday then Thursday; the 14th then the 15th.
    ['0 9 * * 1,4', 10_080, 'within 4320 minutes'],
    ['0 9 14,15 * *', 2000, 'within 1440 minutes'],
  ])('refuses %s at a floor of %i minutes, gaps of hours and days included', (cron, floor, words) => {
    expect(cronCode().customCronProblem(cron, floor)).toContain(words);
  });

  it.each([
    ['0 9,12 * * *', 180],
    ['0 9 * * 1', 10_080],
    ['0 9 * * 7', 10_080],
    ['0 9 1,15 * *', 10_080],
    ['0 23 * * *', 1440],
  ])('accepts %s at a floor of %i minutes', (cron, floor) => {
    expect(cronCode().customCronProblem(cron, floor)).toBeUndefined();
  });

  it('measures against the configured floor, not a fixed 15', () => {
    expect(cronCode().customCronProblem('*/5 * * * *', 5)).toBeUndefined();
    expect(cronCode().customCronProblem('0 * * * *', 61)).toContain('at least 61 minutes apart');
  });

  it.each([
    ['', '5 fields'],
    ['   ', '5 fields'],
    ['* * * *', '5 fields'],
    ['0 0 9 * * *', '5 fields'],
    ['@daily', '5 fields'],
    ['61 * * * *', 'not a valid cron expression'],
    ['0 24 * * *', 'not a valid cron expression'],
    ['0 9 32 * *', 'not a valid cron expression'],
    ['x 9 * * *', 'outside standard cron in its minute field'],
    ['0 9 1 * 1', 'dayOfMonth and dayOfWeek'],
    // The bad field is named before the ambiguity of both days.
    ['0 9 32 * 1', 'got value 32 expected range 1-31'],
  ])('refuses %j as malformed', (cron, words) => {
    expect(cronCode().customCronProblem(cron, 15)).toContain(words);
  });
});

describe('customCronProblem refuses what standard 5-field cron does not have', () => {
  it.each([
    // Both fire 10 minutes apart (23:55 on the last day, 00:05 on the 1st), past a check that cannot model L.
    ['5,55 23,0 1,L * *', 'day-of-month field ("1,L")'],
    ['5,55 23,0 * * 5L,6', 'day-of-week field ("5L,6")'],
    ['0 9 L * *', 'day-of-month'],
    ['0 9 LW * *', 'day-of-month'],
    ['0 9 15W * *', 'day-of-month'],
    ['0 9 * * 1#2', 'day-of-week'],
    ['0 9 ? * 1', 'day-of-month'],
    ['H 9 * * *', 'minute'],
    ['0 9 * JANUARY *', 'month'],
    ['0 9 * * MON/', 'day-of-week'],
  ])('%s', (cron, field) => {
    expect(cronCode().customCronProblem(cron, 15)).toContain(`outside standard cron in its ${field}`);
  });
});

describe('isTimeZone', () => {
  it.each([
    'UTC',
    'Europe/Berlin',
    'America/New_York',
    'Australia/Lord_Howe',
    'America/Argentina/Buenos_Aires',
    'Asia/Kathmandu',
  ])('accepts the IANA zone %s, DST or not', (zone) => {
    expect(isTimeZone(zone)).toBe(true);
  });

  it.each([
    '',
    '+02:00',
    'GMT+2 ',
    'Europe/Atlantis',
    'Mars/Olympus',
    '../etc/passwd',
    'Europe/Berlin; drop',
  ])('refuses %j', (zone) => {
    expect(isTimeZone(zone)).toBe(false);
  });
});

describe('nextRunOf picks the stored instant a read answers', () => {
  const upcoming = [
    Date.parse('2026-11-24T08:00:00Z'),
    Date.parse('2026-11-25T08:00:00Z'),
    Date.parse('2026-11-26T08:00:00Z'),
  ];
  const state = { humanReadableSchedule: 'At 09:00', upcoming };

  it('is the first stored instant after the answer, also in the seconds before the dispatcher moves one on', () => {
    expect(scheduleCode().nextRunOf(true, state, Date.parse('2026-11-24T07:59:59Z'))).toBe(upcoming[0]);
    expect(scheduleCode().nextRunOf(true, state, Date.parse('2026-11-24T08:00:00Z'))).toBe(upcoming[1]);
    expect(scheduleCode().nextRunOf(true, state, Date.parse('2026-11-24T08:00:30Z'))).toBe(upcoming[1]);
  });

  it('is the last stored instant, in the past, once every one has passed (no pass for a day)', () => {
    expect(scheduleCode().nextRunOf(true, state, Date.parse('2026-11-27T00:00:00Z'))).toBe(upcoming[2]);
  });

  it('is nothing while disabled or for a schedule that never fires', () => {
    expect(scheduleCode().nextRunOf(false, state, 0)).toBeUndefined();
    expect(scheduleCode().nextRunOf(true, { ...state, upcoming: [] }, 0)).toBeUndefined();
  });
});

describe('scheduleSignature', () => {
  const daily = { scheduleType: 'DAILY', hour: 9, timezone: 'UTC', isEnabled: true } as const;

  it('is the same for the same cron, zone and enabled flag, however the schedule is written', () => {
    const signature = scheduleCode().scheduleSignature(daily);
    expect(signature).toBe(scheduleCode().scheduleSignature({ ...daily, minute: 0, dayOfWeek: 3 }));
    expect(signature).toBe(
      scheduleCode().scheduleSignature({
        scheduleType: 'CUSTOM',
        customCron: '0 9 * * *',
        timezone: 'UTC',
        isEnabled: true,
      }),
    );
  });

  it('differs when the cron, the zone or the enabled flag differs', () => {
    const signatures = new Set(
      [
        daily,
        { ...daily, hour: 10 },
        { ...daily, timezone: 'Europe/Berlin' },
        { ...daily, isEnabled: false },
      ].map((schedule) => scheduleCode().scheduleSignature(schedule)),
    );
    expect(signatures.size).toBe(4);
  });
});
