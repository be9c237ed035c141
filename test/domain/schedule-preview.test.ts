import { describe, expect, it } from 'vitest';
import { previewSchedule } from '#lib/domain/schedules/schedule-preview';
import { ValidationError } from '#lib/errors';

const settings = { customCronMinIntervalMinutes: 15 };
const now = Date.UTC(2026, 10, 24, 10, 7);

describe('previewSchedule', () => {
  it('gives the cron, its reading, the zone and the next five firings by default', () => {
    expect(
      previewSchedule(
        { scheduleType: 'DAILY', hour: 9, minute: 30, timezone: 'Europe/Berlin' },
        settings,
        now,
      ),
    ).toEqual({
      cronExpression: '30 9 * * *',
      humanReadableSchedule: 'At 09:30',
      timezone: 'Europe/Berlin',
      nextRuns: [
        '2026-11-25T08:30:00Z',
        '2026-11-26T08:30:00Z',
        '2026-11-27T08:30:00Z',
        '2026-11-28T08:30:00Z',
        '2026-11-29T08:30:00Z',
      ],
    });
  });

  it('gives as many firings as asked, each after the one before', () => {
    const { nextRuns } = previewSchedule({ scheduleType: 'HOURLY', minute: 0, count: 3 }, settings, now);
    expect(nextRuns).toEqual(['2026-11-24T11:00:00Z', '2026-11-24T12:00:00Z', '2026-11-24T13:00:00Z']);
    expect(
      previewSchedule({ scheduleType: 'HOURLY', minute: 0, count: null }, settings, now).nextRuns,
    ).toHaveLength(5);
  });

  it('previews a schedule without a zone in UTC', () => {
    expect(previewSchedule({ scheduleType: 'HOURLY', minute: 0, count: 1 }, settings, now)).toMatchObject({
      timezone: 'UTC',
      nextRuns: ['2026-11-24T11:00:00Z'],
    });
  });

  it('checks the fields as a create does', () => {
    expect(() => previewSchedule({ scheduleType: 'CUSTOM' }, settings, now)).toThrow(ValidationError);
    expect(() => previewSchedule({ scheduleType: 'CUSTOM', customCron: '* * * * *' }, settings, now)).toThrow(
      ValidationError,
    );
  });
});
