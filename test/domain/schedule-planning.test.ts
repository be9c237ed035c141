import { describe, expect, it } from 'vitest';
import { nextFiringAfter } from '#lib/domain/schedules/firing-instants';
import { freshForEachTest } from '#test/support/fresh-module';

/** Loaded anew in each test: the bounds it computes on import then count as checked by the tests below. */
const planning = freshForEachTest(() => import('#lib/domain/schedules/schedule-planning'));

const NOW = Date.parse('2026-11-24T18:00:00Z');
const daily = {
  scheduleType: 'DAILY',
  hour: 9,
  minute: 0,
  timezone: 'Europe/Berlin',
  isEnabled: true,
} as const;

describe('the upcoming instants a schedule writer stores', () => {
  it('are consecutive firing instants after now, at least a few and at least a day ahead', () => {
    const upcoming = planning().upcomingAfter(daily, NOW);
    expect(upcoming).toHaveLength(4);
    let previous = NOW;
    for (const instant of upcoming) {
      expect(instant).toBe(nextFiringAfter(daily, previous));
      previous = instant;
    }
    const often = {
      scheduleType: 'CUSTOM',
      customCron: '*/15 * * * *',
      timezone: 'UTC',
      isEnabled: true,
    } as const;
    // Every 15 minutes for a day, the last exactly a day on.
    const many = planning().upcomingAfter(often, NOW);
    expect(many).toHaveLength(96);
    expect(many.at(-1)).toBe(NOW + 24 * 60 * 60_000);
  });

  it('are at most 100, however often the schedule fires', () => {
    const everyMinute = {
      scheduleType: 'CUSTOM',
      customCron: '* * * * *',
      timezone: 'UTC',
      isEnabled: true,
    } as const;
    expect(planning().upcomingAfter(everyMinute, NOW)).toHaveLength(100);
  });

  it('keep the stored instants still ahead and add only what is missing', () => {
    const stored = planning().upcomingAfter(daily, NOW);
    const later = (stored[0] as number) + 1;
    expect(planning().upcomingAfter(daily, later, stored)).toEqual(planning().upcomingAfter(daily, later));
    expect(planning().upcomingAfter(daily, later, stored).slice(0, 3)).toEqual(stored.slice(1));
  });

  it('drop a stored instant once it is now', () => {
    const stored = planning().upcomingAfter(daily, NOW);
    expect(planning().upcomingAfter(daily, stored[0] as number, stored)[0]).toBe(stored[1]);
  });

  it('are none while the notification is disabled; the reading is cronstrue’s', () => {
    expect(planning().upcomingAfter({ ...daily, isEnabled: false }, NOW)).toEqual([]);
    expect(planning().planSchedule(daily, NOW).humanReadableSchedule).toBe('At 09:00');
    expect(planning().schedulePlanner.planSchedule(daily, NOW)).toEqual(planning().planSchedule(daily, NOW));
  });
});
