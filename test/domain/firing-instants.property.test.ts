import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  firingsAfter,
  latestFiringAtOrBefore,
  nextFiringAfter,
  type ZonedSchedule,
} from '#lib/domain/schedules/firing-instants';
import { isoInstant } from '#lib/domain/schedules/schedule';

const MINUTE = 60_000;
const zones = [
  'Europe/Berlin',
  'America/New_York',
  'America/Sao_Paulo', // DST until February 2019, none since
  'Australia/Lord_Howe', // a 30-minute shift
  'Asia/Kathmandu', // +05:45, no DST
  'Pacific/Chatham', // +12:45 / +13:45
  'America/St_Johns', // -03:30 / -02:30
  'UTC',
];

/**
 * The reference: walks the instants minute by minute and reads the wall clock with Intl. At each
 * instant, the wall-clock minutes not reached before (above the highest seen so far) are the ones
 * that begin now: one normally, every minute of the gap at a gap's end, none while a repeated hour
 * runs again. The instant fires if any of them matches.
 */
const wallFormat = new Map<string, Intl.DateTimeFormat>();
function wall(zone: string, instant: number): { minutes: number; fields: number[] } {
  let format = wallFormat.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    wallFormat.set(zone, format);
  }
  const p = Object.fromEntries(format.formatToParts(instant).map((x) => [x.type, Number(x.value)])) as Record<
    'year' | 'month' | 'day' | 'hour' | 'minute',
    number
  >;
  const minutes = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute) / MINUTE;
  return { minutes, fields: [p.minute, p.hour, p.day, p.month] };
}

interface Spec {
  minutes: number[];
  hours: number[] | null;
  daysOfMonth: number[] | null;
  months: number[] | null;
  daysOfWeek: number[] | null;
}

function matches(spec: Spec, wallMinutes: number): boolean {
  const d = new Date(wallMinutes * MINUTE);
  const inSet = (set: number[] | null, value: number) => set === null || set.includes(value);
  return (
    inSet(spec.minutes, d.getUTCMinutes()) &&
    inSet(spec.hours, d.getUTCHours()) &&
    inSet(spec.daysOfMonth, d.getUTCDate()) &&
    inSet(spec.months, d.getUTCMonth() + 1) &&
    inSet(spec.daysOfWeek, d.getUTCDay())
  );
}

function referenceNext(zone: string, spec: Spec, after: number): number {
  const start = Math.floor(after / MINUTE) * MINUTE;
  let highest = Number.NEGATIVE_INFINITY;
  for (let t = start - 180 * MINUTE; t <= start; t += MINUTE)
    highest = Math.max(highest, wall(zone, t).minutes);
  for (let t = start + MINUTE; ; t += MINUTE) {
    const now = wall(zone, t).minutes;
    for (let m = highest + 1; m <= now; m++) if (matches(spec, m)) return t;
    highest = Math.max(highest, now);
  }
}

const list = (values: number[] | null) => (values === null ? '*' : values.join(','));

function toSchedule(type: ZonedSchedule['scheduleType'], spec: Spec, timezone: string): ZonedSchedule {
  const [minute] = spec.minutes as [number];
  switch (type) {
    case 'HOURLY':
      return { scheduleType: type, minute, timezone };
    case 'DAILY':
      return { scheduleType: type, minute, hour: spec.hours?.[0], timezone };
    case 'WEEKLY':
      return { scheduleType: type, minute, hour: spec.hours?.[0], dayOfWeek: spec.daysOfWeek?.[0], timezone };
    case 'MONTHLY':
      return {
        scheduleType: type,
        minute,
        hour: spec.hours?.[0],
        dayOfMonth: spec.daysOfMonth?.[0],
        timezone,
      };
    case 'CUSTOM':
      return {
        scheduleType: type,
        customCron: [spec.minutes, spec.hours, spec.daysOfMonth, spec.months, spec.daysOfWeek]
          .map(list)
          .join(' '),
        timezone,
      };
  }
}

// Transitions happen around 00:00–03:00 local; half the hours are drawn there.
const hour = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 23 }));
const minute = fc.oneof(fc.constantFrom(0, 15, 30, 45), fc.integer({ min: 0, max: 59 }));
const sortedSet = (arb: fc.Arbitrary<number>, max: number) =>
  fc.uniqueArray(arb, { minLength: 1, maxLength: max }).map((values) => [...values].sort((a, b) => a - b));

const specs: Record<ZonedSchedule['scheduleType'], fc.Arbitrary<Spec>> = {
  HOURLY: minute.map((m) => ({
    minutes: [m],
    hours: null,
    daysOfMonth: null,
    months: null,
    daysOfWeek: null,
  })),
  DAILY: fc.tuple(minute, hour).map(([m, h]) => ({
    minutes: [m],
    hours: [h],
    daysOfMonth: null,
    months: null,
    daysOfWeek: null,
  })),
  WEEKLY: fc.tuple(minute, hour, fc.integer({ min: 0, max: 6 })).map(([m, h, d]) => ({
    minutes: [m],
    hours: [h],
    daysOfMonth: null,
    months: null,
    daysOfWeek: [d],
  })),
  // Days 1–7 keep the scan short; transitions fall on early-month Sundays in several zones too.
  MONTHLY: fc.tuple(minute, hour, fc.integer({ min: 1, max: 7 })).map(([m, h, d]) => ({
    minutes: [m],
    hours: [h],
    daysOfMonth: [d],
    months: null,
    daysOfWeek: null,
  })),
  // Standard cron ORs the two day fields when both are set; strict parsing refuses that, so one of them is `*`.
  CUSTOM: fc
    .tuple(
      sortedSet(fc.integer({ min: 0, max: 59 }), 3),
      fc.option(sortedSet(hour, 4), { nil: null }),
      fc.option(sortedSet(fc.integer({ min: 1, max: 28 }), 10), { nil: null }),
      // Months when clocks change somewhere; sparser sets would make the reference scan for months.
      fc.option(fc.constant<number[]>([3, 4, 9, 10, 11]), { nil: null }),
      fc.option(sortedSet(fc.integer({ min: 0, max: 6 }), 3), { nil: null }),
      fc.boolean(),
    )
    .map(([minutes, hours, daysOfMonth, months, daysOfWeek, useDayOfMonth]) => ({
      minutes,
      hours,
      daysOfMonth: useDayOfMonth ? daysOfMonth : null,
      months,
      daysOfWeek: useDayOfMonth ? null : daysOfWeek,
    })),
};

/** 2018–2029: Sao Paulo's last clock changes, then at least three years of everyone else's. */
const from = Date.UTC(2018, 0, 1);
const to = Date.UTC(2029, 11, 31);
// Half the starting points fall in the months when clocks change somewhere (March, April, September–November).
const changeMonth = fc
  .tuple(
    fc.integer({ min: 2018, max: 2029 }),
    fc.constantFrom(2, 3, 8, 9, 10),
    fc.integer({ min: 0, max: 31 * 24 * 60 - 1 }),
  )
  .map(([year, month, offset]) => Date.UTC(year, month, 1) + offset * MINUTE + 17_123);
const startInstant = fc.oneof(fc.integer({ min: from, max: to }), changeMonth);

const SEED = Number(process.env.FC_SEED ?? 20261123);
const runsPerType: Record<ZonedSchedule['scheduleType'], number> = {
  HOURLY: 400,
  DAILY: 400,
  WEEKLY: 150,
  MONTHLY: 60,
  CUSTOM: 150,
};

function check(property: fc.IProperty<unknown[]>, numRuns: number) {
  const details = fc.check(property, { seed: SEED, numRuns });
  if (details.failed) {
    throw new Error(
      `fast-check failed (seed ${SEED}, path ${details.counterexamplePath}): ${fc.stringify(details.counterexample)}\n${details.errorInstance}`,
    );
  }
  return details.numRuns;
}

describe('nextFiringAfter agrees with a minute-by-minute reference', () => {
  for (const type of Object.keys(runsPerType) as ZonedSchedule['scheduleType'][]) {
    it(`${type} in ${zones.length} zones, ${runsPerType[type]} runs (seed ${SEED})`, () => {
      const runs = check(
        fc.property(fc.constantFrom(...zones), specs[type], startInstant, (zone, spec, after) => {
          const schedule = toSchedule(type, spec, zone);
          const expected = referenceNext(zone, spec, after);
          expect(isoInstant(nextFiringAfter(schedule, after) as number)).toBe(isoInstant(expected));
          // The latest firing at or before the instant just found is that instant; just before it, an earlier one.
          expect(latestFiringAtOrBefore(schedule, expected)).toBe(expected);
          const earlier = latestFiringAtOrBefore(schedule, expected - 1);
          expect(earlier === undefined || earlier < expected).toBe(true);
          if (earlier !== undefined) expect(nextFiringAfter(schedule, earlier)).toBe(expected);
          // One walk gives what asking again after each instant gives.
          const walk = firingsAfter(schedule, after);
          for (let at = after, i = 0; i < 3; i++) {
            at = nextFiringAfter(schedule, at) as number;
            expect(walk.next().value).toBe(at);
          }
        }),
        runsPerType[type],
      );
      expect(runs).toBe(runsPerType[type]);
    }, 120_000);
  }
});
