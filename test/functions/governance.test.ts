import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '#lib/clock';
import { dispatchPass } from '#lib/domain/dispatch';
import { schedulePlanner } from '#lib/domain/schedule-planning';
import { outboxSink } from '#lib/jobs/outbox-sink';
import { documentClient, tableName } from '#lib/store/client';
import * as keys from '#lib/store/item-keys';
import { dispatchStore } from '#lib/store/runs';
import { ADMIN_KEY, consoleUsers } from '#test/support/fixtures';
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
  api = await startLocalApi({
    users: [
      ...consoleUsers,
      { id: 4, email: 'dave@example.com', username: 'dave', role: 'admin', apiKeys: [DAVE_KEY] },
      { id: 5, email: 'erin@example.com', username: 'erin', role: 'admin', apiKeys: [ERIN_KEY] },
    ],
    deployments: [{ id: 7, name: 'Production' }],
    dashboards: [{ id: 70, deploymentId: 7, publicId: 'sales', title: 'Sales', published: true }],
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
  });
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
