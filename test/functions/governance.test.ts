import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '#lib/clock';
import { dispatchPass } from '#lib/domain/dispatch/dispatch-pass';
import { schedulePlanner } from '#lib/domain/schedules/schedule-planning';
import { outboxSink } from '#lib/jobs/outbox-sink';
import { dispatchStore } from '#lib/store/dispatch/dispatch';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { ADMIN_KEY, publishedDashboardFixture } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';

/**
 * Status, owners, pause and resume through HTTP, and what the dispatcher makes of them, on the local
 * engine: who owns a notification, what an inactive owner, a pause or a suspension does to its runs.
 */

const DAVE_KEY = 'sk-test-dave';
const ERIN_KEY = 'sk-test-erin';
const MINUTE = 60_000;

let api: LocalApi;
const sink = async () => outboxSink(await mkdtemp(join(tmpdir(), 'governance-outbox-')));

beforeAll(async () => {
  api = await startLocalApi(
    publishedDashboardFixture({
      users: [
        { id: 4, email: 'dave@example.com', username: 'dave', role: 'admin', apiKeys: [DAVE_KEY] },
        { id: 5, email: 'erin@example.com', username: 'erin', role: 'admin', apiKeys: [ERIN_KEY] },
      ],
      notifications: [
        {
          id: 700,
          deploymentId: 7,
          dashboardId: 70,
          scheduleType: 'DAILY',
          hour: 9,
          ownerUserId: 5,
          recipients: [{ type: 'USER', userId: 1 }],
        },
      ],
    }),
  );
});
afterAll(() => api.close());

const base = '/v1/deployments/7/notifications';
const create = (body: object, token = ADMIN_KEY) =>
  api.request('POST', base, { token, body: { dashboardId: 70, scheduleType: 'HOURLY', minute: 7, ...body } });
const get = (id: number) => api.request('GET', `${base}/${id}`, { token: ADMIN_KEY });
const put = (id: number, body: object) => api.request('PUT', `${base}/${id}`, { token: ADMIN_KEY, body });

async function setActive(userId: number, active: boolean) {
  await documentClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.user(userId),
      UpdateExpression: 'SET active = :active',
      ExpressionAttributeValues: { ':active': active },
    }),
  );
}

const firedAt = async (instant: number) =>
  dispatchPass(dispatchStore, await sink(), {
    randomHex,
    now: instant + 20_000,
    misfireGraceMinutes: 60,
    planner: schedulePlanner,
  });

describe('status and owner on every NotificationDto', () => {
  it('makes the calling console user the owner of what it creates, active', async () => {
    const created = await create({}, DAVE_KEY);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'active',
      statusReason: null,
      pausedUntil: null,
      owner: { type: 'USER', userId: 4, email: 'dave@example.com' },
    });
    expect((await get(created.body.id)).body.owner).toEqual(created.body.owner);
  });

  it('takes a fixture owner, and lists owners and statuses as the single read does', async () => {
    const single = await get(700);
    expect(single.body).toMatchObject({ status: 'active', owner: { type: 'USER', userId: 5 } });
    const list = await api.request('GET', `${base}?first=200`, { token: ADMIN_KEY });
    const listed = list.body.items.find((item: { id: number }) => item.id === 700);
    expect(listed).toMatchObject({ status: 'active', owner: { type: 'USER', userId: 5 } });
  });

  it('answers orphaned while a console user owner is not active, and transfer makes it active again', async () => {
    const created = await create({}, ERIN_KEY);
    const id = created.body.id;
    await setActive(5, false);
    try {
      const orphaned = await get(id);
      expect(orphaned.body).toMatchObject({
        status: 'orphaned',
        statusReason: 'owner_inactive',
        nextRunAt: null,
      });
      const listed = (await api.request('GET', `${base}?first=200`, { token: ADMIN_KEY })).body.items.find(
        (item: { id: number }) => item.id === id,
      );
      expect(listed).toMatchObject({ status: 'orphaned' });

      const transferred = await put(id, { ownerUserId: 1 });
      expect(transferred.status).toBe(200);
      expect(transferred.body).toMatchObject({
        status: 'active',
        statusReason: null,
        owner: { type: 'USER', userId: 1, email: 'ada@example.com' },
      });
      expect(transferred.body.nextRunAt).not.toBeNull();
    } finally {
      await setActive(5, true);
    }
  });

  it.each([
    [3, 'is a deactivated console user'],
    [999, 'is not a console user'],
  ])(
    'refuses a transfer to user %i with 400 naming ownerUserId, changing nothing',
    async (userId, message) => {
      const created = await create({});
      const refused = await put(created.body.id, { ownerUserId: userId, notificationFormat: 'pdf' });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        code: 'validation_failed',
        errors: [{ path: 'ownerUserId', message }],
      });
      expect((await get(created.body.id)).body).toMatchObject({
        notificationFormat: 'png',
        owner: { userId: 1 },
      });
    },
  );

  it('refuses ownerUserId on a create, which makes the caller the owner', async () => {
    const refused = await create({ ownerUserId: 4 });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'ownerUserId' })]);
  });
});

describe('an owner deactivated between two instants', () => {
  it('fires the first instant, then records a skipped owner_inactive run that queues nothing', async () => {
    const created = await create({ scheduleType: 'HOURLY', minute: 11 }, DAVE_KEY);
    const id = created.body.id;
    const first = Date.parse(created.body.nextRunAt);
    const before = await firedAt(first);
    const firstRun = before.runs.find((run) => run.notificationId === id);
    expect(firstRun).toMatchObject({ status: 'dispatching', skipReason: null });

    await setActive(4, false);
    try {
      const after = await firedAt(first + 60 * MINUTE);
      const secondRun = after.runs.find((run) => run.notificationId === id);
      expect(secondRun).toMatchObject({
        status: 'skipped',
        skipReason: 'owner_inactive',
        recipients: { queued: 0, skipped: 0, delivered: 0, failed: 0 },
      });
      const runs = await api.request('GET', `${base}/${id}/runs`, { token: ADMIN_KEY });
      expect(runs.body.items.map((run: { skipReason: string | null }) => run.skipReason)).toEqual([
        'owner_inactive',
        null,
      ]);
    } finally {
      await setActive(4, true);
    }
  });
});

const pause = (id: number, body?: object) =>
  api.request('POST', `${base}/${id}/pause`, { token: ADMIN_KEY, body });
const resume = (id: number) => api.request('POST', `${base}/${id}/resume`, { token: ADMIN_KEY });
const runsOf = async (id: number) =>
  (await api.request('GET', `${base}/${id}/runs`, { token: ADMIN_KEY })).body.items as {
    scheduledFor: string;
    trigger: string;
  }[];

describe('pause and resume', () => {
  it('pauses until resumed: paused with its reason, no next run, and resume brings the next instant back', async () => {
    const { body: created } = await create({});
    const paused = await pause(created.id, { reason: 'Quarter closing' });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({
      status: 'paused',
      statusReason: 'Quarter closing',
      pausedUntil: null,
      nextRunAt: null,
      isEnabled: true,
    });
    expect((await get(created.id)).body).toMatchObject({ status: 'paused', nextRunAt: null });

    const resumed = await resume(created.id);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: 'active', statusReason: null, pausedUntil: null });
    expect(resumed.body.nextRunAt).toBe(created.nextRunAt);
  });

  it('answers the first instant at or after until as nextRunAt, and a second pause replaces until and reason', async () => {
    const { body: created } = await create({});
    const afterNext = Date.parse(created.nextRunAt) + 30 * MINUTE;
    const paused = await pause(created.id, { until: new Date(afterNext).toISOString(), reason: 'first' });
    expect(paused.body).toMatchObject({
      status: 'paused',
      statusReason: 'first',
      pausedUntil: new Date(afterNext).toISOString().replace('.000Z', 'Z'),
      // HOURLY at :07: the instant after the one skipped.
      nextRunAt: new Date(Date.parse(created.nextRunAt) + 60 * MINUTE).toISOString().replace('.000Z', 'Z'),
    });
    const again = await pause(created.id, {});
    expect(again.body).toMatchObject({
      status: 'paused',
      statusReason: null,
      pausedUntil: null,
      nextRunAt: null,
    });
  });

  it('keeps a disabled notification paused first, and answers disabled once resumed', async () => {
    const { body: created } = await create({ isEnabled: false });
    expect((await pause(created.id)).body).toMatchObject({ status: 'paused', nextRunAt: null });
    expect((await resume(created.id)).body).toMatchObject({ status: 'disabled', nextRunAt: null });
  });

  it.each([
    [{ until: '2020-01-01T00:00:00Z' }, 'until', 'must be later than now'],
    [
      { until: new Date(Date.now() + 367 * 24 * 60 * MINUTE).toISOString() },
      'until',
      'must be at most 366 days ahead',
    ],
    [{ until: '2027-03-28' }, 'until', undefined],
    [{ reason: 'x'.repeat(501) }, 'reason', 'must be at most 500 characters'],
    [{ untill: '2027-03-28T01:00:00Z' }, 'untill', undefined],
  ])('refuses the pause %j with 400 naming %s, changing nothing', async (body, path, message) => {
    const { body: created } = await create({});
    const refused = await pause(created.id, body);
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ path, ...(message && { message }) })]);
    expect((await get(created.id)).body.status).toBe('active');
  });

  it('answers 404 for an unknown notification, and 409 to resuming an orphaned one', async () => {
    expect((await pause(99_999)).status).toBe(404);
    expect((await resume(99_999)).status).toBe(404);
    const { body: created } = await create({}, ERIN_KEY);
    await setActive(5, false);
    try {
      const refused = await resume(created.id);
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('conflict');
    } finally {
      await setActive(5, true);
    }
  });

  it('still sends now while paused', async () => {
    const { body: created } = await create({});
    await pause(created.id);
    const sent = await api.request('POST', `${base}/${created.id}/send`, { token: ADMIN_KEY });
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ trigger: 'manual', skipReason: null });
  });

  it('fires no instant while paused and catches none up; at until the schedule goes on by itself', async () => {
    const { body: created } = await create({});
    const first = Date.parse(created.nextRunAt);
    const until = first + 90 * MINUTE;
    await pause(created.id, { until: new Date(until).toISOString() });
    // The instants at first and first + 1 h are paused: passes at them (and after) fire nothing.
    await firedAt(first);
    await firedAt(first + 60 * MINUTE);
    expect(await runsOf(created.id)).toEqual([]);
    // The first instant at or after until fires, and only it: the paused ones are not caught up.
    await firedAt(first + 120 * MINUTE);
    const runs = await runsOf(created.id);
    expect(runs.map((run) => run.scheduledFor)).toEqual([new Date(first + 120 * MINUTE).toISOString()]);
  });

  it('over a DST change with until inside the gap: the first instant at or after it, as the gap maps it', async () => {
    // DAILY 02:30 Berlin: on 2027-03-28 the clock jumps 02:00 → 03:00, so 02:30 fires at the gap's end, 01:00Z.
    const { body: created } = await create({
      scheduleType: 'DAILY',
      hour: 2,
      minute: 30,
      timezone: 'Europe/Berlin',
    });
    // 02:15 by the winter offset is inside the gap (01:15Z): the day's instant (01:00Z) is before it.
    const inGap = await pause(created.id, { until: '2027-03-28T02:15:00+01:00' });
    expect(inGap.body).toMatchObject({
      status: 'paused',
      pausedUntil: '2027-03-28T01:15:00Z',
      nextRunAt: '2027-03-29T00:30:00Z',
    });
    // Until the gap's end itself: that very instant fires.
    const atGapEnd = await pause(created.id, { until: '2027-03-28T01:00:00Z' });
    expect(atGapEnd.body).toMatchObject({
      pausedUntil: '2027-03-28T01:00:00Z',
      nextRunAt: '2027-03-28T01:00:00Z',
    });
    await firedAt(Date.parse('2027-03-27T01:30:00Z'));
    expect(await runsOf(created.id)).toEqual([]);
    await firedAt(Date.parse('2027-03-28T01:00:00Z'));
    expect((await runsOf(created.id)).map((run) => run.scheduledFor)).toEqual(['2027-03-28T01:00:00.000Z']);
  });
});
