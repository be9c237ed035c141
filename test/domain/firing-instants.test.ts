import { describe, expect, it } from 'vitest';
import type { ZonedSchedule } from '#lib/domain/schedules/firing-instants';
import { isoInstant } from '#lib/domain/schedules/schedule';
import { freshForEachTest } from '#test/support/fresh-module';

/** Loaded anew in each test: the constants it computes on import then count as checked by the tests below. */
const instants = freshForEachTest(() => import('#lib/domain/schedules/firing-instants'));

const daily = (timezone: string, hour: number, minute: number): ZonedSchedule => ({
  scheduleType: 'DAILY',
  hour,
  minute,
  timezone,
});

describe('gaps and repeated hours, by example', () => {
  const firings = (schedule: ZonedSchedule, fromIso: string, count: number) => {
    const out: string[] = [];
    let at = Date.parse(fromIso);
    for (let i = 0; i < count; i++) {
      at = instants().nextFiringAfter(schedule, at) as number;
      out.push(isoInstant(at));
    }
    return out;
  };

  it('Berlin: 02:30 on the spring-forward day fires when the gap ends, 01:00Z (03:00 CEST)', () => {
    expect(firings(daily('Europe/Berlin', 2, 30), '2026-03-28T00:00:00Z', 3)).toEqual([
      '2026-03-28T01:30:00Z',
      '2026-03-29T01:00:00Z',
      '2026-03-30T00:30:00Z',
    ]);
  });

  it('Berlin: 02:30 on the fall-back day fires once, at its first occurrence (CEST)', () => {
    expect(firings(daily('Europe/Berlin', 2, 30), '2026-10-24T00:00:00Z', 3)).toEqual([
      '2026-10-24T00:30:00Z',
      '2026-10-25T00:30:00Z',
      '2026-10-26T01:30:00Z',
    ]);
  });

  it('Berlin: every gap minute of an hourly schedule lands on the gap end once', () => {
    const schedule: ZonedSchedule = {
      scheduleType: 'CUSTOM',
      customCron: '0,30 * * * *',
      timezone: 'Europe/Berlin',
    };
    expect(firings(schedule, '2026-03-29T00:00:00Z', 4)).toEqual([
      '2026-03-29T00:30:00Z', // 01:30 CET
      '2026-03-29T01:00:00Z', // 02:00 and 02:30 (gap) and 03:00 CEST: one instant
      '2026-03-29T01:30:00Z',
      '2026-03-29T02:00:00Z',
    ]);
  });

  it('Berlin: an hourly schedule runs through the repeated hour once', () => {
    const schedule: ZonedSchedule = { scheduleType: 'HOURLY', minute: 15, timezone: 'Europe/Berlin' };
    expect(firings(schedule, '2026-10-24T23:30:00Z', 4)).toEqual([
      '2026-10-25T00:15:00Z', // 02:15 CEST
      '2026-10-25T02:15:00Z', // 03:15 CET: 02:15 CET is a repeat and does not fire
      '2026-10-25T03:15:00Z',
      '2026-10-25T04:15:00Z',
    ]);
  });

  it('New York: 02:30 in the March gap fires at 03:00 EDT; in November at the first 01:30', () => {
    expect(firings(daily('America/New_York', 2, 30), '2026-03-08T00:00:00Z', 1)).toEqual([
      '2026-03-08T07:00:00Z',
    ]);
    expect(firings(daily('America/New_York', 1, 30), '2026-11-01T00:00:00Z', 2)).toEqual([
      '2026-11-01T05:30:00Z', // 01:30 EDT
      '2026-11-02T06:30:00Z', // 01:30 EST the next day
    ]);
  });

  it('Lord Howe: the half-hour gap (02:00 → 02:30) and the repeated half hour (01:30–02:00)', () => {
    // 2026-10-04 02:00 +10:30 becomes 02:30 +11:00; 02:15 lies in the gap.
    expect(firings(daily('Australia/Lord_Howe', 2, 15), '2026-10-03T00:00:00Z', 2)).toEqual([
      '2026-10-03T15:30:00Z', // 10-04 02:15 is in the gap: it ends at 02:30 +11:00
      '2026-10-04T15:15:00Z', // 10-05 02:15 +11:00
    ]);
    // 2026-04-05 02:00 +11:00 becomes 01:30 +10:30; 01:45 occurs twice and fires at the first.
    expect(firings(daily('Australia/Lord_Howe', 1, 45), '2026-04-04T00:00:00Z', 2)).toEqual([
      '2026-04-04T14:45:00Z', // 04-05 01:45 +11:00, the first of two
      '2026-04-05T15:15:00Z', // 04-06 01:45 +10:30
    ]);
    expect(
      isoInstant(instants().instantOfWallClock('Australia/Lord_Howe', Date.UTC(2026, 3, 5, 1, 45))),
    ).toBe('2026-04-04T14:45:00Z');
  });
});

describe('the latest firing at or before an instant', () => {
  const latest = (schedule: ZonedSchedule, iso: string, offsetMs = 0) => {
    const found = instants().latestFiringAtOrBefore(schedule, Date.parse(iso) + offsetMs);
    return found === undefined ? undefined : isoInstant(found);
  };

  it('is the instant itself when the schedule fires then, else the one before', () => {
    const nineBerlin = daily('Europe/Berlin', 9, 0);
    expect(latest(nineBerlin, '2026-11-23T08:00:00Z')).toBe('2026-11-23T08:00:00Z');
    expect(latest(nineBerlin, '2026-11-23T08:00:00Z', -1)).toBe('2026-11-22T08:00:00Z');
    expect(latest(nineBerlin, '2026-11-23T10:59:00Z')).toBe('2026-11-23T08:00:00Z');
  });

  it('is a repeated minute’s first occurrence, and a gap minute’s gap end', () => {
    expect(latest(daily('Europe/Berlin', 2, 30), '2026-10-25T03:00:00Z')).toBe('2026-10-25T00:30:00Z');
    expect(latest(daily('Europe/Berlin', 2, 30), '2026-03-29T01:00:00Z')).toBe('2026-03-29T01:00:00Z');
  });
});

describe("a zone's clock changes", () => {
  const changes = (timezone: string, fromIso: string, toIso: string) =>
    instants().clockChangesBetween(timezone, Date.parse(fromIso), Date.parse(toIso)).map(isoInstant);

  it('are the first instants of each new offset, to the second, in both hemispheres and half hours', () => {
    expect(changes('Europe/Berlin', '2027-01-01T00:00:00Z', '2028-01-01T00:00:00Z')).toEqual([
      '2027-03-28T01:00:00Z',
      '2027-10-31T01:00:00Z',
    ]);
    expect(changes('Australia/Sydney', '2027-01-01T00:00:00Z', '2028-01-01T00:00:00Z')).toEqual([
      '2027-04-03T16:00:00Z',
      '2027-10-02T16:00:00Z',
    ]);
    expect(changes('Australia/Lord_Howe', '2027-01-01T00:00:00Z', '2028-01-01T00:00:00Z')).toEqual([
      '2027-04-03T15:00:00Z',
      '2027-10-02T15:30:00Z',
    ]);
    expect(changes('UTC', '2027-01-01T00:00:00Z', '2028-01-01T00:00:00Z')).toEqual([]);
  });

  it('answer each range asked, within the span remembered for the zone and beyond it', () => {
    // The first question remembers 400 days from its start; the others fall inside it, then outside.
    expect(changes('America/New_York', '2027-01-01T00:00:00Z', '2027-02-01T00:00:00Z')).toEqual([]);
    expect(changes('America/New_York', '2027-03-14T07:00:00Z', '2027-11-07T06:00:00Z')).toEqual([
      '2027-11-07T06:00:00Z',
    ]);
    expect(changes('America/New_York', '2026-12-31T00:00:00Z', '2027-03-15T00:00:00Z')).toEqual([
      '2027-03-14T07:00:00Z',
    ]);
    expect(changes('America/New_York', '2029-01-01T00:00:00Z', '2029-04-01T00:00:00Z')).toEqual([
      '2029-03-11T07:00:00Z',
    ]);
  });

  it('match the offsets on either side of each change', () => {
    const { clockChangesBetween, offsetAt } = instants();
    const from = Date.parse('2027-01-01T00:00:00Z');
    for (const timezone of ['Europe/Berlin', 'Asia/Tehran', 'America/Santiago', 'Pacific/Chatham']) {
      for (const change of clockChangesBetween(timezone, from, from + 400 * 86_400_000))
        expect(offsetAt(timezone, change - 1)).not.toBe(offsetAt(timezone, change));
    }
  });
});

describe('a zone’s offset', () => {
  it('is read for any instant, a year before 1000 included (whose text the formatter writes otherwise)', () => {
    const { offsetAt } = instants();
    expect(offsetAt('Asia/Kolkata', Date.parse('2026-06-01T12:00:00.250Z'))).toBe(19_800_000);
    expect(offsetAt('Europe/Berlin', Date.parse('2026-07-01T00:00:00Z'))).toBe(7_200_000);
    expect(offsetAt('UTC', Date.UTC(500, 0, 1, 12))).toBe(0);
  });
});
