import { describe, expect, it } from 'vitest';
import { check } from '#lib/http/schemas/common';
import { notificationListLimits as limits } from '#lib/limits';
import { freshForEachTest } from '#test/support/fresh-module';

const schemas = freshForEachTest(() => import('#lib/http/schemas/notifications'));
const paths = freshForEachTest(() => import('#lib/http/schemas/paths'));
const update = (body: unknown) => check(schemas().updateNotificationInput, body);
const problemsOf = (body: unknown) => update(body).problems;

describe('notificationPath', () => {
  it('reads both ids as positive integers', () => {
    expect(check(paths().notificationPath, { deploymentId: '7', id: '700' }).value).toEqual({
      deploymentId: 7,
      id: 700,
    });
    expect(check(paths().notificationPath, { deploymentId: '0', id: 'x' }).problems).toEqual([
      { path: 'deploymentId', message: 'must be a positive integer' },
      { path: 'id', message: 'must be a positive integer' },
    ]);
  });
});

describe('updateNotificationInput', () => {
  it('takes every field, and null for each', () => {
    const full = {
      scheduleType: 'CUSTOM',
      customCron: '*/15 * * * *',
      minute: 59,
      hour: 23,
      dayOfWeek: 6,
      dayOfMonth: 31,
      timezone: 'Europe/Berlin',
      isEnabled: true,
      notificationEnabled: false,
      notificationFormat: 'pdf',
      notificationAiSummary: true,
      filters: [{ member: 'Orders.status', operator: 'equals', value: 'paid' }],
      timeGrains: [{ member: 'Orders.createdAt', grain: 'week' }],
      memberSwitchers: [{ member: 'Orders.count', selected: 'Orders.total' }],
    };
    expect(update(full)).toEqual({ value: full, problems: [] });
    const nulls = Object.fromEntries(Object.keys(full).map((key) => [key, null]));
    expect(update(nulls)).toEqual({ value: nulls, problems: [] });
    expect(update({})).toEqual({ value: {}, problems: [] });
  });

  it('bounds the schedule numbers, saying the range', () => {
    expect(problemsOf({ minute: 60, hour: -1, dayOfWeek: 7, dayOfMonth: 0 })).toEqual([
      { path: 'minute', message: 'must be from 0 to 59' },
      { path: 'hour', message: 'must be from 0 to 23' },
      { path: 'dayOfWeek', message: 'must be from 0 to 6' },
      { path: 'dayOfMonth', message: 'must be from 1 to 31' },
    ]);
    expect(problemsOf({ minute: 0, hour: 0, dayOfWeek: 0, dayOfMonth: 1 })).toEqual([]);
    expect(problemsOf({ minute: 1.5 })).toEqual([
      { path: 'minute', message: 'must be a whole number from 0 to 59' },
    ]);
  });

  it('takes IANA zone names only, up to 1000 characters of cron', () => {
    expect(problemsOf({ timezone: 'UTC' })).toEqual([]);
    for (const timezone of ['+02:00', 'Mars/Olympus', '']) {
      expect(problemsOf({ timezone })).toEqual([
        { path: 'timezone', message: 'must be an IANA time zone name such as Europe/Berlin or UTC' },
      ]);
    }
    expect(problemsOf({ customCron: 'x'.repeat(1000) })).toEqual([]);
    expect(problemsOf({ customCron: 'x'.repeat(1001) })).toEqual([
      { path: 'customCron', message: 'must be at most 1000 characters' },
    ]);
  });

  it('takes the schedule types and formats it knows, and booleans as booleans', () => {
    for (const scheduleType of ['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'CUSTOM']) {
      expect(problemsOf({ scheduleType })).toEqual([]);
    }
    for (const notificationFormat of ['png', 'pdf']) expect(problemsOf({ notificationFormat })).toEqual([]);
    expect(
      problemsOf({ scheduleType: 'YEARLY', notificationFormat: 'csv', isEnabled: 'yes' }).map((p) => p.path),
    ).toEqual(['scheduleType', 'isEnabled', 'notificationFormat']);
    expect(problemsOf({ notificationEnabled: 1, notificationAiSummary: 'true' }).map((p) => p.path)).toEqual([
      'notificationEnabled',
      'notificationAiSummary',
    ]);
    expect(problemsOf({ colour: 'red' })).toEqual([{ path: 'colour', message: 'is not a known field' }]);
  });
});

describe('dashboard filters', () => {
  const filter = (fields: Record<string, unknown>) =>
    problemsOf({ filters: [{ member: 'Orders.status', ...fields }] });

  it('needs a member path of the form <Cube>.<member>', () => {
    expect(filter({})).toEqual([]);
    for (const member of ['Orders', '.status', 'Orders.', '']) {
      expect(filter({ member })).toEqual([
        { path: 'filters.0.member', message: 'must be a member path of the form <Cube>.<member>' },
      ]);
    }
    expect(filter({ member: `O.${'m'.repeat(limits.memberPathLength - 2)}` })).toEqual([]);
    expect(filter({ member: `O.${'m'.repeat(limits.memberPathLength - 1)}` })).toEqual([
      { path: 'filters.0.member', message: `must be at most ${limits.memberPathLength} characters` },
    ]);
  });

  it('needs a pair for between', () => {
    expect(filter({ operator: 'between', value: [1, 2] })).toEqual([]);
    for (const value of [[1], [1, 2, 3], '1..2', undefined]) {
      expect(filter({ operator: 'between', value })).toEqual([
        { path: 'filters.0.value', message: 'must be [start, end] for between' },
      ]);
    }
    expect(filter({ operator: 'equals', value: [1] })).toEqual([]);
  });

  it('refuses a value with is_null and is_not_null', () => {
    for (const operator of ['is_null', 'is_not_null']) {
      expect(filter({ operator })).toEqual([]);
      expect(filter({ operator, value: null })).toEqual([]);
      expect(filter({ operator, value: 0 })).toEqual([
        { path: 'filters.0.value', message: `must be omitted for ${operator}` },
      ]);
      expect(filter({ operator, value: false })).toEqual([
        { path: 'filters.0.value', message: `must be omitted for ${operator}` },
      ]);
    }
    expect(filter({ operator: 'equals', value: 0 })).toEqual([]);
  });

  it('takes text, numbers, booleans and lists as values, text within its length', () => {
    for (const value of ['paid', 3, true, ['a', 1]]) expect(filter({ value })).toEqual([]);
    expect(filter({ value: 'v'.repeat(limits.filters.valueLength) })).toEqual([]);
    expect(filter({ value: 'v'.repeat(limits.filters.valueLength + 1) }).map((p) => p.path)).toEqual([
      'filters.0.value',
    ]);
    expect(filter({ value: { a: 1 } }).map((p) => p.path)).toEqual(['filters.0.value']);
    expect(filter({ operator: 'like' }).map((p) => p.path)).toEqual(['filters.0.operator']);
    expect(filter({ caseSensitive: true, startInclusive: 1, endInclusive: 'x' })).toEqual([]);
  });

  it('bounds the list by count and by its bytes as JSON', () => {
    const many = (count: number) => Array.from({ length: count }, () => ({ member: 'O.m' }));
    expect(problemsOf({ filters: many(limits.filters.items) })).toEqual([]);
    expect(problemsOf({ filters: many(limits.filters.items + 1) })).toEqual([
      { path: 'filters', message: `must have at most ${limits.filters.items} items` },
    ]);
    // Text within its lengths always fits; a list value counts against the bytes only.
    const withList = (bytes: number) => {
      const item = { member: 'O.m', value: [''] };
      const padding = bytes - Buffer.byteLength(JSON.stringify([item]));
      return [{ ...item, value: ['x'.repeat(padding)] }];
    };
    expect(Buffer.byteLength(JSON.stringify(withList(limits.filters.bytes)))).toBe(limits.filters.bytes);
    expect(problemsOf({ filters: withList(limits.filters.bytes) })).toEqual([]);
    expect(problemsOf({ filters: withList(limits.filters.bytes + 1) })).toEqual([
      { path: 'filters', message: `must be at most ${limits.filters.bytes} bytes as JSON (UTF-8)` },
    ]);
  });
});

describe('time grains and member switchers', () => {
  it('need a member path and a non-empty grain or selection within its length', () => {
    expect(problemsOf({ timeGrains: [{ member: 'O.d', grain: 'day' }] })).toEqual([]);
    expect(problemsOf({ timeGrains: [{ member: 'O', grain: '' }] })).toEqual([
      { path: 'timeGrains.0.member', message: 'must be a member path of the form <Cube>.<member>' },
      { path: 'timeGrains.0.grain', message: 'must not be empty' },
    ]);
    expect(
      problemsOf({ timeGrains: [{ member: 'O.d', grain: 'g'.repeat(limits.timeGrains.grainLength + 1) }] }),
    ).toEqual([
      { path: 'timeGrains.0.grain', message: `must be at most ${limits.timeGrains.grainLength} characters` },
    ]);
    expect(problemsOf({ memberSwitchers: [{ member: 'O.a', selected: 'O.b' }] })).toEqual([]);
    expect(problemsOf({ memberSwitchers: [{ member: 'O', selected: '' }] })).toEqual([
      { path: 'memberSwitchers.0.member', message: 'must be a member path of the form <Cube>.<member>' },
      { path: 'memberSwitchers.0.selected', message: 'must not be empty' },
    ]);
    const longSelection = 's'.repeat(limits.memberSwitchers.selectedLength + 1);
    expect(problemsOf({ memberSwitchers: [{ member: 'O.a', selected: longSelection }] })).toEqual([
      {
        path: 'memberSwitchers.0.selected',
        message: `must be at most ${limits.memberSwitchers.selectedLength} characters`,
      },
    ]);
    expect(problemsOf({ timeGrains: [{ member: 'O.d', grain: 'day', extra: 1 }] })).toEqual([
      { path: 'timeGrains.0.extra', message: 'is not a known field' },
    ]);
  });

  it('bound each list by its own count', () => {
    const grains = (count: number) => Array.from({ length: count }, () => ({ member: 'O.d', grain: 'day' }));
    expect(problemsOf({ timeGrains: grains(limits.timeGrains.items) })).toEqual([]);
    expect(problemsOf({ timeGrains: grains(limits.timeGrains.items + 1) })).toEqual([
      { path: 'timeGrains', message: `must have at most ${limits.timeGrains.items} items` },
    ]);
    const switchers = (count: number) =>
      Array.from({ length: count }, () => ({ member: 'O.a', selected: 'O.b' }));
    expect(problemsOf({ memberSwitchers: switchers(limits.memberSwitchers.items) })).toEqual([]);
    expect(problemsOf({ memberSwitchers: switchers(limits.memberSwitchers.items + 1) })).toEqual([
      { path: 'memberSwitchers', message: `must have at most ${limits.memberSwitchers.items} items` },
    ]);
  });
});
