import { describe, expect, it } from 'vitest';
import {
  applyNotificationUpdate,
  type Notification,
  type NotificationRepository,
  updateNotification,
} from '#lib/domain/notification';
import { ConflictError, NotFoundError, ValidationError } from '#lib/errors';

const settings = { customCronMinIntervalMinutes: 15 };

const stored: Notification = {
  id: 700,
  deploymentId: 7,
  dashboardId: 70,
  scheduleType: 'DAILY',
  minute: 0,
  hour: 9,
  timezone: 'UTC',
  isEnabled: true,
  notificationEnabled: true,
  notificationFormat: 'png',
  filters: [{ member: 'Orders.status', operator: 'equals', value: 'paid' }],
  timeGrains: [{ member: 'Orders.createdAt', grain: 'week' }],
};

function problemsOf(action: () => unknown): { path: string; message: string }[] {
  try {
    action();
  } catch (error) {
    if (error instanceof ValidationError) return error.problems;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('applyNotificationUpdate', () => {
  it('leaves omitted fields unchanged', () => {
    expect(applyNotificationUpdate(stored, {}, settings)).toEqual(stored);
    expect(applyNotificationUpdate(stored, { isEnabled: false }, settings)).toEqual({
      ...stored,
      isEnabled: false,
    });
  });

  it('treats an explicit null as omitted for ordinary fields', () => {
    const next = applyNotificationUpdate(
      stored,
      { hour: null, timezone: null, isEnabled: null, scheduleType: null },
      settings,
    );
    expect(next).toEqual(stored);
  });

  it('clears filters and timeGrains with an explicit null', () => {
    const next = applyNotificationUpdate(stored, { filters: null, timeGrains: null }, settings);
    expect(next.filters).toBeNull();
    expect(next.timeGrains).toBeNull();
  });

  it('replaces filters and timeGrains as whole sets, an empty list included', () => {
    const next = applyNotificationUpdate(
      stored,
      { filters: [], timeGrains: [{ member: 'Orders.day', grain: 'day' }] },
      settings,
    );
    expect(next.filters).toEqual([]);
    expect(next.timeGrains).toEqual([{ member: 'Orders.day', grain: 'day' }]);
  });

  it('names each field the new schedule type needs and that was never set', () => {
    expect(problemsOf(() => applyNotificationUpdate(stored, { scheduleType: 'WEEKLY' }, settings))).toEqual([
      { path: 'dayOfWeek', message: 'is required for a WEEKLY schedule' },
    ]);
    expect(problemsOf(() => applyNotificationUpdate(stored, { scheduleType: 'CUSTOM' }, settings))).toEqual([
      { path: 'customCron', message: 'is required for a CUSTOM schedule' },
    ]);
  });

  it('keeps a supplied field the type does not use, without changing the schedule', () => {
    const next = applyNotificationUpdate(stored, { dayOfMonth: 12 }, settings);
    expect(next.dayOfMonth).toBe(12);
    expect(next.scheduleType).toBe('DAILY');
  });

  it('checks a supplied custom cron even when the type does not use it', () => {
    expect(
      problemsOf(() => applyNotificationUpdate(stored, { customCron: '*/5 * * * *' }, settings))[0]?.path,
    ).toBe('customCron');
  });

  it('reports a bad custom cron and a missing field together', () => {
    const problems = problemsOf(() =>
      applyNotificationUpdate(
        { ...stored, hour: undefined },
        { scheduleType: 'MONTHLY', customCron: 'nope' },
        settings,
      ),
    );
    expect(problems.map((problem) => problem.path)).toEqual(['customCron', 'hour', 'dayOfMonth']);
  });
});

/** An in-memory repository with the same optimistic-concurrency contract as the DynamoDB one. */
function memoryRepository(
  initial: Notification | undefined,
  interfere: (attempt: number) => boolean = () => false,
) {
  let current = initial;
  let version = 0;
  let attempts = 0;
  const repository: NotificationRepository = {
    async find() {
      return current && { notification: current, version };
    },
    async replace(next, expectedVersion) {
      attempts += 1;
      // Simulates another writer landing between our read and our write.
      if (interfere(attempts)) version += 1;
      if (expectedVersion !== version) return false;
      current = next;
      version += 1;
      return true;
    },
  };
  return { repository, attempts: () => attempts, current: () => current };
}

describe('updateNotification', () => {
  const target = { deploymentId: 7, id: 700 };

  it('answers with the stored notification as a NotificationDto', async () => {
    const memory = memoryRepository(stored);
    const dto = await updateNotification(
      memory.repository,
      target,
      { scheduleType: 'WEEKLY', dayOfWeek: 1 },
      settings,
    );
    expect(dto).toEqual({
      id: 700,
      dashboardId: 70,
      deploymentId: 7,
      cronExpression: '0 9 * * 1',
      timezone: 'UTC',
      isEnabled: true,
      humanReadableSchedule: 'At 09:00, only on Monday',
      notificationEnabled: true,
      notificationFormat: 'png',
      filters: stored.filters,
      timeGrains: stored.timeGrains,
      nextRunAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T09:00:00Z$/),
    });
    // The first Monday 09:00 UTC after the answer.
    const next = Date.parse(dto.nextRunAt as string);
    expect(new Date(next).getUTCDay()).toBe(1);
    expect(next).toBeGreaterThan(Date.now());
    expect(next - Date.now()).toBeLessThanOrEqual(7 * 24 * 3_600_000);
    expect(memory.current()?.dayOfWeek).toBe(1);
  });

  it('is not found when the notification is not there', async () => {
    await expect(
      updateNotification(memoryRepository(undefined).repository, target, {}, settings),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('applies the update again when another write landed first', async () => {
    const memory = memoryRepository(stored, (attempt) => attempt === 1);
    await updateNotification(memory.repository, target, { hour: 10 }, settings);
    expect(memory.attempts()).toBe(2);
    expect(memory.current()?.hour).toBe(10);
  });

  it('gives up with a conflict when every attempt is overtaken', async () => {
    const memory = memoryRepository(stored, () => true);
    await expect(
      updateNotification(memory.repository, target, { hour: 10 }, settings),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(memory.current()?.hour).toBe(9);
  });
});
