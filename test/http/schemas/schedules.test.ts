import { describe, expect, it } from 'vitest';
import { MAX_PREVIEW_COUNT } from '#lib/domain/schedules/schedule-preview';
import { check } from '#lib/http/schemas/common';
import { freshForEachTest } from '#test/support/fresh-module';

const schemas = freshForEachTest(() => import('#lib/http/schemas/schedules'));
const preview = (body: Record<string, unknown>) => check(schemas().schedulePreviewInput, body);

describe('schedulePreviewInput', () => {
  it("takes a create's schedule fields and a count", () => {
    const body = {
      scheduleType: 'CUSTOM',
      customCron: '0 9 * * 1',
      minute: 0,
      hour: 9,
      dayOfWeek: 1,
      dayOfMonth: 1,
      timezone: 'Europe/Berlin',
      count: MAX_PREVIEW_COUNT,
    };
    expect(preview(body)).toEqual({ value: body, problems: [] });
    expect(preview({ scheduleType: 'HOURLY' })).toEqual({ value: { scheduleType: 'HOURLY' }, problems: [] });
  });

  it('checks the fields as a create does, and bounds the count', () => {
    expect(preview({}).problems).toEqual([
      {
        path: 'scheduleType',
        message: 'Invalid option: expected one of "HOURLY"|"DAILY"|"WEEKLY"|"MONTHLY"|"CUSTOM"',
      },
    ]);
    expect(preview({ scheduleType: 'DAILY', hour: 24, timezone: 'Nowhere' }).problems).toEqual([
      { path: 'hour', message: 'must be from 0 to 23' },
      { path: 'timezone', message: 'must be an IANA time zone name such as Europe/Berlin or UTC' },
    ]);
    for (const count of [0, MAX_PREVIEW_COUNT + 1]) {
      expect(preview({ scheduleType: 'DAILY', count }).problems).toEqual([
        { path: 'count', message: `must be from 1 to ${MAX_PREVIEW_COUNT}` },
      ]);
    }
    expect(preview({ scheduleType: 'DAILY', isEnabled: true }).problems).toEqual([
      { path: 'isEnabled', message: 'is not a known field' },
    ]);
  });
});
