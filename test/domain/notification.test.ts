import { describe, expect, it } from 'vitest';
import type { AuditContext, NewAuditEvent } from '#lib/domain/audit/audit';
import { noHold } from '#lib/domain/governance/governance';
import type { IdempotencyClaim } from '#lib/domain/idempotency';
import type { Notification } from '#lib/domain/notifications/notification';
import type { UpdateNotificationInput } from '#lib/domain/notifications/notification-fields';
import type {
  CreateNotificationInput,
  DashboardRef,
  NotificationCreation,
} from '#lib/domain/notifications/notification-lifecycle';
import {
  applyNotificationUpdate,
  createNotification,
  MAX_ATTEMPTS,
  type NotificationUpdate,
  updateNotification,
} from '#lib/domain/notifications/notification-writes';
import type { ScheduleState } from '#lib/domain/schedules/schedule';
import { ConflictError, NotFoundError, ValidationError } from '#lib/errors';
import { dailyNotification } from '#test/support/domain-fixtures';
import { loadFresh } from '#test/support/fresh-module';

const settings = { customCronMinIntervalMinutes: 15 };
/** A Tuesday, 10:00 UTC: the instant the updates answer as of. */
const NOW = Date.parse('2026-11-24T10:00:00Z');
const timing = { now: NOW, pause: async () => {} };
const audit: AuditContext = { actor: { type: 'USER', userId: 1, via: 'api_key' }, requestId: 'request-1' };

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
  memberSwitchers: null,
  notificationAiSummary: false,
  owner: null,
  hold: noHold(),
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

  it('leaves a field given as undefined as stored', () => {
    expect(applyNotificationUpdate(stored, { hour: undefined, filters: undefined }, settings)).toEqual(
      stored,
    );
  });

  it('clears filters, timeGrains and memberSwitchers with an explicit null', () => {
    const switched = {
      ...stored,
      memberSwitchers: [{ member: 'Orders.region', selected: 'Orders.country' }],
    };
    const next = applyNotificationUpdate(
      switched,
      { filters: null, timeGrains: null, memberSwitchers: null },
      settings,
    );
    expect(next.filters).toBeNull();
    expect(next.timeGrains).toBeNull();
    expect(next.memberSwitchers).toBeNull();
  });

  it('replaces filters, timeGrains and memberSwitchers as whole sets, an empty list included', () => {
    const memberSwitchers = [{ member: 'Orders.region', selected: 'Orders.country' }];
    const next = applyNotificationUpdate(
      stored,
      { filters: [], timeGrains: [{ member: 'Orders.day', grain: 'day' }], memberSwitchers },
      settings,
    );
    expect(next.filters).toEqual([]);
    expect(next.timeGrains).toEqual([{ member: 'Orders.day', grain: 'day' }]);
    expect(next.memberSwitchers).toEqual(memberSwitchers);
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

  it('takes a supplied custom cron that passes its checks', () => {
    expect(applyNotificationUpdate(stored, { customCron: '0 9 * * 1' }, settings).customCron).toBe(
      '0 9 * * 1',
    );
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

/**
 * An in-memory repository with the DynamoDB one's contract; `interfere` plays a concurrent schedule
 * change landing just before a schedule write.
 */
function memoryRepository(
  initial: Notification | undefined,
  interfere: {
    /** A concurrent write between this request's read and its write: it moves the version on. */
    beforeWrite?: (n: Notification) => Notification;
  } = {},
) {
  let current = initial;
  let version = 0;
  let schedule: ScheduleState = { humanReadableSchedule: 'At 09:00', upcoming: [] };
  let stored: { signature: string; scheduleVersion: number } | undefined;
  let writes = 0;
  let reads = 0;
  const events: NewAuditEvent[] = [];
  const repository: NotificationUpdate = {
    async find() {
      reads += 1;
      return current && { notification: current, schedule };
    },
    async findForUpdate() {
      reads += 1;
      return current && { scheduled: { notification: current, schedule }, version };
    },
    async update(_, changes, readVersion, event) {
      writes += 1;
      const interfering = current && interfere.beforeWrite?.(current);
      if (interfering && interfering !== current) {
        current = interfering;
        version += 1;
      }
      if (!current || readVersion !== version) return undefined;
      current = { ...current, ...changes.set } as Notification;
      version += 1;
      events.push(event);
      return { scheduleVersion: version };
    },
    consoleUser: async () => undefined,
    async storeSchedule(_, state, signature, scheduleVersion) {
      if (stored && stored.scheduleVersion >= scheduleVersion) return;
      if (stored?.signature !== signature) schedule = state;
      stored = { signature, scheduleVersion };
    },
  };
  return {
    repository,
    writes: () => writes,
    reads: () => reads,
    current: () => current,
    schedule: () => schedule,
    events: () => events,
  };
}

describe('updateNotification', () => {
  const target = { deploymentId: 7, id: 700 };

  it('answers with the stored notification as a NotificationDto, its new schedule state stored', async () => {
    const memory = memoryRepository(stored);
    const dto = await updateNotification(
      memory.repository,
      target,
      { scheduleType: 'WEEKLY', dayOfWeek: 1 },
      settings,
      timing,
      audit,
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
      memberSwitchers: null,
      notificationAiSummary: false,
      // The first Monday 09:00 UTC after the answer.
      nextRunAt: '2026-11-30T09:00:00Z',
      status: 'active',
      statusReason: null,
      pausedUntil: null,
      owner: null,
    });
    expect(memory.current()?.dayOfWeek).toBe(1);
    expect(memory.schedule().humanReadableSchedule).toBe('At 09:00, only on Monday');
    expect(memory.schedule().upcoming[0]).toBe(Date.parse('2026-11-30T09:00:00Z'));
  });

  it('counts a write of the schedule’s fields, and only those, as a new schedule', async () => {
    // Loaded anew: the set of schedule fields, built on import, then counts as checked here.
    const fresh = await loadFresh(() => import('#lib/domain/notifications/notification-writes'));
    const scheduleInputs: UpdateNotificationInput[] = [
      { scheduleType: 'HOURLY' },
      { minute: 5 },
      { hour: 10 },
      { dayOfWeek: 2 },
      { dayOfMonth: 3 },
      { customCron: '0 9 * * 1' },
      { timezone: 'Europe/Berlin' },
      { isEnabled: false },
    ];
    const otherInputs: UpdateNotificationInput[] = [
      { notificationEnabled: false },
      { notificationFormat: 'pdf' },
      { filters: null },
      { memberSwitchers: [] },
      { notificationAiSummary: true },
    ];
    const counted: boolean[] = [];
    for (const input of [...scheduleInputs, ...otherInputs]) {
      const { repository } = memoryRepository(stored);
      const update = repository.update;
      repository.update = async (target, changes, version, event) => {
        counted.push(changes.schedule);
        return update(target, changes, version, event);
      };
      await fresh.updateNotification(repository, target, input, settings, timing, audit);
    }
    expect(counted).toEqual([...scheduleInputs.map(() => true), ...otherInputs.map(() => false)]);
  });

  it('reads once and writes once, the change and its event together', async () => {
    const memory = memoryRepository(stored);
    await updateNotification(memory.repository, target, { hour: 10, filters: null }, settings, timing, audit);
    expect([memory.writes(), memory.reads()]).toEqual([1, 1]);
    expect(memory.events()).toEqual([
      {
        at: new Date(NOW).toISOString(),
        deploymentId: 7,
        notificationId: 700,
        action: 'updated',
        actor: audit.actor,
        changes: { hour: { before: 9, after: 10 }, filters: { before: stored.filters, after: null } },
        requestId: 'request-1',
      },
    ]);
    expect(memory.current()).toMatchObject({ hour: 10, filters: null });
    expect(memory.schedule().humanReadableSchedule).toBe('At 10:00');
  });

  it('keeps the stored instants when the schedule is written as it already was', async () => {
    const memory = memoryRepository(stored);
    await updateNotification(memory.repository, target, { hour: 10 }, settings, timing, audit);
    const first = memory.schedule();
    await updateNotification(memory.repository, target, { hour: 10 }, settings, timing, audit);
    expect(memory.schedule()).toBe(first);
    await updateNotification(
      memory.repository,
      target,
      { notificationFormat: 'pdf' },
      settings,
      timing,
      audit,
    );
    expect(memory.schedule()).toBe(first);
  });

  it('answers an update that changes nothing with a read, writing nothing', async () => {
    const memory = memoryRepository(stored);
    const dto = await updateNotification(memory.repository, target, { hour: null }, settings, timing, audit);
    expect(dto).toMatchObject({ id: 700, cronExpression: '0 9 * * *' });
    expect([memory.writes(), memory.reads()]).toEqual([0, 1]);
  });

  it('refuses a bad custom cron before any write', async () => {
    const memory = memoryRepository(stored);
    const update = updateNotification(
      memory.repository,
      target,
      { customCron: 'nope' },
      settings,
      timing,
      audit,
    );
    await expect(update).rejects.toMatchObject({
      name: 'ValidationError',
      problems: [{ path: 'customCron' }],
    });
    expect(memory.writes()).toBe(0);
  });

  it('is not found when the notification is not there', async () => {
    for (const input of [
      {},
      { hour: 10 },
      { scheduleType: 'WEEKLY' as const },
      { notificationFormat: 'pdf' as const },
    ]) {
      await expect(
        updateNotification(memoryRepository(undefined).repository, target, input, settings, timing, audit),
      ).rejects.toThrow(new NotFoundError('Notification 700 of deployment 7'));
    }
  });

  it('refuses a schedule type whose fields are neither supplied nor stored, naming them', async () => {
    const memory = memoryRepository(stored);
    const error = await updateNotification(
      memory.repository,
      target,
      { scheduleType: 'WEEKLY' },
      settings,
      timing,
      audit,
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).problems.map((problem) => problem.path)).toEqual(['dayOfWeek']);
    expect(memory.current()).toEqual(stored);
    expect(memory.writes()).toBe(0);
  });

  it('reads again when a concurrent update changed the notification in between, its event before that change', async () => {
    let interfered = false;
    const memory = memoryRepository(stored, {
      beforeWrite: (n) => {
        if (interfered) return n;
        interfered = true;
        return { ...n, hour: 11 };
      },
    });
    await updateNotification(memory.repository, target, { hour: 12 }, settings, timing, audit);
    expect(memory.writes()).toBe(2);
    expect(memory.current()).toMatchObject({ hour: 12 });
    expect(memory.events().map((event) => event.changes)).toEqual([{ hour: { before: 11, after: 12 } }]);
  });

  it('gives up with a conflict when every attempt is overtaken, pausing between attempts', async () => {
    const memory = memoryRepository(stored, { beforeWrite: (n) => ({ ...n }) });
    const pauses: number[] = [];
    const pause = async (attempt: number) => {
      pauses.push(attempt);
    };
    await expect(
      updateNotification(
        memory.repository,
        target,
        { hour: 10 },
        settings,
        {
          now: NOW,
          pause,
        },
        audit,
      ),
    ).rejects.toThrow(new ConflictError('The notification is being changed by others; retry the request'));
    expect(memory.writes()).toBe(MAX_ATTEMPTS);
    // No pause after the last attempt: the conflict is answered at once.
    expect(pauses).toEqual(Array.from({ length: MAX_ATTEMPTS - 1 }, (_, i) => Math.min(i + 1, 5)));
    expect(memory.current()?.scheduleType).toBe('DAILY');
    expect(memory.events()).toEqual([]);
  });
});

describe('createNotification', () => {
  /** A creation port whose deployment 7 has dashboard 70 (`sales`), recording what it is asked. */
  function creation() {
    const asked: {
      dashboards: DashboardRef[];
      created: Parameters<NotificationCreation['create']>[];
      claimed: IdempotencyClaim[];
    } = { dashboards: [], created: [], claimed: [] };
    const port: NotificationCreation = {
      async dashboardIdOf(_deploymentId, ref) {
        asked.dashboards.push(ref);
        const found = 'dashboardId' in ref ? ref.dashboardId === 70 : ref.dashboardPublicId === 'sales';
        return found ? 70 : undefined;
      },
      async create(...args) {
        asked.created.push(args);
        return { ...args[0], id: 701 };
      },
      isLive: async () => true,
      async claimKey(deploymentId, claim) {
        asked.claimed.push(claim);
        return { held: { deploymentId, claim, owner: 'o' } };
      },
      async completeKey() {},
      async releaseKey() {},
    };
    return { port, asked };
  }

  it('refuses a create that names no dashboard, before anything is read or written', async () => {
    const { port, asked } = creation();
    await expect(
      createNotification(port, 7, { scheduleType: 'DAILY', hour: 9 }, settings, NOW, null, audit),
    ).rejects.toMatchObject({
      name: 'ValidationError',
      problems: [
        { path: 'dashboardId', message: 'exactly one of dashboardId and dashboardPublicId is required' },
      ],
    });
    expect(asked).toEqual({ dashboards: [], created: [], claimed: [] });
  });

  it('creates the notification with the defaults and its schedule state, on the dashboard named', async () => {
    const { port, asked } = creation();
    const dto = await createNotification(
      port,
      7,
      { scheduleType: 'DAILY', hour: 9, minute: 0, dashboardPublicId: 'sales' },
      settings,
      NOW,
      null,
      audit,
    );
    // UTC, enabled, PNG, no lists and no summary unless the request says otherwise.
    const { id: _, ...draft } = dailyNotification();
    expect(asked.dashboards).toEqual([{ dashboardPublicId: 'sales' }]);
    expect(asked.created).toEqual([
      [
        draft,
        {
          humanReadableSchedule: 'At 09:00',
          upcoming: expect.arrayContaining([Date.parse('2026-11-25T09:00:00Z')]),
          signature: '0 9 * * *|UTC|true',
        },
        undefined,
        expect.any(Function),
      ],
    ]);
    expect(asked.created[0]?.[0]).not.toHaveProperty('id');
    // The `created` event of the notification made: every field it was made with, before null.
    const record = asked.created[0]?.[3];
    expect(record?.({ ...draft, id: 701 })).toMatchObject({
      notificationId: 701,
      action: 'created',
      actor: audit.actor,
      changes: { dashboardId: { before: null, after: 70 }, hour: { before: null, after: 9 } },
    });
    expect(dto).toMatchObject({
      id: 701,
      dashboardId: 70,
      humanReadableSchedule: 'At 09:00',
      nextRunAt: '2026-11-25T09:00:00Z',
    });
  });

  it('looks the dashboard up by its id when the id is given', async () => {
    const { port, asked } = creation();
    await createNotification(
      port,
      7,
      { scheduleType: 'HOURLY', dashboardId: 70, dashboardPublicId: 'x' },
      settings,
      NOW,
      null,
      audit,
    );
    expect(asked.dashboards).toEqual([{ dashboardId: 70 }]);
  });

  it('is not found, naming the dashboard as given, when the deployment has no such dashboard', async () => {
    const { port, asked } = creation();
    await expect(
      createNotification(
        port,
        7,
        { scheduleType: 'HOURLY', dashboardPublicId: 'draft' },
        settings,
        NOW,
        null,
        audit,
      ),
    ).rejects.toThrow(new NotFoundError('Dashboard draft of deployment 7'));
    await expect(
      createNotification(port, 7, { scheduleType: 'HOURLY', dashboardId: 71 }, settings, NOW, null, audit),
    ).rejects.toThrow(new NotFoundError('Dashboard 71 of deployment 7'));
    expect(asked.created).toEqual([]);
  });

  it('refuses an incomplete schedule before anything is read', async () => {
    const { port, asked } = creation();
    const creating = createNotification(
      port,
      7,
      { scheduleType: 'DAILY', dashboardId: 70 },
      settings,
      NOW,
      null,
      audit,
    );
    await expect(creating).rejects.toMatchObject({ name: 'ValidationError', problems: [{ path: 'hour' }] });
    expect(asked.dashboards).toEqual([]);
  });

  it('claims an Idempotency-Key with a fingerprint of the body that ignores the order of its fields', async () => {
    const { port, asked } = creation();
    const key = { caller: 'admin:1', key: 'k-1' };
    const bodies: CreateNotificationInput[] = [
      { scheduleType: 'DAILY', hour: 9, dashboardId: 70 },
      { dashboardId: 70, hour: 9, scheduleType: 'DAILY' },
      { scheduleType: 'DAILY', hour: 10, dashboardId: 70 },
    ];
    for (const body of bodies) await createNotification(port, 7, body, settings, NOW, null, audit, key);
    const [first, reordered, other] = asked.claimed;
    expect(asked.created.map((args) => args[2]?.claim)).toEqual(asked.claimed);
    expect(first).toEqual({ ...key, fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(reordered).toEqual(first);
    expect(other?.fingerprint).not.toBe(first?.fingerprint);
  });
});
