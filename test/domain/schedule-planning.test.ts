import { describe, expect, it } from 'vitest';
import { nextFiringAfter } from '#lib/domain/firing-instants';
import {
  planSchedule,
  UPCOMING_HORIZON_MS,
  UPCOMING_MAX,
  UPCOMING_MIN,
  upcomingAfter,
} from '#lib/domain/schedule-planning';

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
    const upcoming = upcomingAfter(daily, NOW);
    expect(upcoming).toHaveLength(UPCOMING_MIN);
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
    const many = upcomingAfter(often, NOW);
    expect(many.at(-1)).toBeGreaterThanOrEqual(NOW + UPCOMING_HORIZON_MS);
    expect(many.length).toBeLessThanOrEqual(UPCOMING_MAX);
  });

  it('keep the stored instants still ahead and add only what is missing', () => {
    const stored = upcomingAfter(daily, NOW);
    const later = (stored[0] as number) + 1;
    expect(upcomingAfter(daily, later, stored)).toEqual(upcomingAfter(daily, later));
    expect(upcomingAfter(daily, later, stored).slice(0, 3)).toEqual(stored.slice(1));
  });

  it('are none while the notification is disabled; the reading is cronstrue’s', () => {
    expect(upcomingAfter({ ...daily, isEnabled: false }, NOW)).toEqual([]);
    expect(planSchedule(daily, NOW).humanReadableSchedule).toBe('At 09:00');
  });
});
