import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '#lib/clock';
import { dispatchPass } from '#lib/domain/dispatch/dispatch-pass';
import { schedulePlanner } from '#lib/domain/schedules/schedule-planning';
import { outboxSink } from '#lib/jobs/outbox-sink';
import { dispatchOnce } from '#lib/local/dispatch-loop';
import { dispatchStore } from '#lib/store/dispatch/dispatch';
import { documentClient } from '#lib/store/dynamo/client';
import { webhookOutbox } from '#lib/store/webhooks/messages';
import { crash, injectDynamoDbFaults } from '#test/support/dynamodb-faults';
import { ADMIN_KEY, publishedDashboardFixture } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { platformRenderer } from '#test/support/tokens';

/**
 * Suspension after SUSPEND_AFTER_FAILED_RUNS (3 here, the default) consecutive scheduled runs that
 * failed to everyone: reached by the renderer's outcome reports after the runs were made, and by the
 * dispatcher's minute when the report that completed the run died before settling it.
 */

const platform = platformRenderer('suspension');
const RENDERER = () => platform.token();
const MINUTE = 60_000;
const base = '/v1/deployments/7/notifications';
let api: LocalApi;

const hourly = (id: number) => ({
  id,
  deploymentId: 7,
  dashboardId: 70,
  scheduleType: 'HOURLY',
  minute: 13,
  recipients: [{ userId: 1 }],
});

beforeAll(async () => {
  api = await startLocalApi(
    publishedDashboardFixture({
      platform,
      notifications: [hourly(700), hourly(701), hourly(702), hourly(703)],
    }),
  );
});
afterAll(() => api.close());

const get = async (id: number) => (await api.request('GET', `${base}/${id}`, { token: ADMIN_KEY })).body;
const report = (jobId: string, status: 'delivered' | 'failed') =>
  api.request('POST', `/v1/deliveries/${encodeURIComponent(jobId)}/outcome`, {
    token: RENDERER(),
    body: status === 'failed' ? { status, error: 'mailbox unavailable', attempt: 1 } : { status, attempt: 1 },
  });

/** Fires the notification's instant `hours` after its next one; the job of its run. */
async function fire(id: number, first: number, hours: number): Promise<string | undefined> {
  const dir = await mkdtemp(join(tmpdir(), 'suspension-outbox-'));
  const instant = first + hours * 60 * MINUTE;
  await dispatchPass(dispatchStore, outboxSink(dir), {
    randomHex,
    now: instant + 20_000,
    misfireGraceMinutes: 60,
    planner: schedulePlanner,
  });
  for (const file of await readdir(dir)) {
    const job = JSON.parse(await readFile(join(dir, file), 'utf8'));
    if (job.notificationId === id) return job.jobId as string;
  }
  return undefined;
}

/** Fires instant `hours` and reports its one job with `status`. */
async function runEnding(id: number, first: number, hours: number, status: 'delivered' | 'failed') {
  const jobId = await fire(id, first, hours);
  expect(jobId, `a job at hour ${hours}`).toBeDefined();
  expect((await report(jobId as string, status)).status).toBe(204);
}

describe('suspension after consecutive failed scheduled runs', () => {
  it('is reached by the third failed run, fires nothing more, and a resume brings it back', async () => {
    const first = Date.parse((await get(700)).nextRunAt);
    await runEnding(700, first, 0, 'failed');
    await runEnding(700, first, 1, 'failed');
    expect(await get(700)).toMatchObject({ status: 'active' });
    await runEnding(700, first, 2, 'failed');
    expect(await get(700)).toMatchObject({
      status: 'suspended',
      statusReason: 'consecutive_failed_runs',
      nextRunAt: null,
    });
    // The inventory lists it under status=suspended, and under it alone.
    const listed = async (status: string) =>
      (
        await api.request('GET', `${base}?status=${status}&dashboardId=70`, { token: ADMIN_KEY })
      ).body.items.map((item: { id: number }) => item.id);
    expect(await listed('suspended')).toEqual([700]);
    expect(await listed('paused')).toEqual([]);
    // Suspended: the next instants are not fired.
    expect(await fire(700, first, 3)).toBeUndefined();
    const runs = await api.request('GET', `${base}/700/runs`, { token: ADMIN_KEY });
    expect(runs.body.items).toHaveLength(3);

    const resumed = await api.request('POST', `${base}/700/resume`, { token: ADMIN_KEY });
    expect(resumed.body).toMatchObject({ status: 'active', statusReason: null });
    expect(resumed.body.nextRunAt).not.toBeNull();
    expect(await listed('suspended')).toEqual([]);
    // The trail: suspended by the system (in the hold's own transaction), resumed by the admin.
    const events = await api.request('GET', `${base}/700/events`, { token: ADMIN_KEY });
    expect(
      events.body.items.map(({ action, actor, requestId }: Record<string, unknown>) => ({
        action,
        actor,
        requestId,
      })),
    ).toEqual([
      {
        action: 'resumed',
        actor: { type: 'USER', userId: 1, via: 'api_key' },
        requestId: expect.any(String),
      },
      { action: 'suspended', actor: { type: 'SYSTEM' }, requestId: null },
    ]);
  });

  it('starts the count again after a run that delivers to anyone', async () => {
    const first = Date.parse((await get(701)).nextRunAt);
    await runEnding(701, first, 0, 'failed');
    await runEnding(701, first, 1, 'failed');
    await runEnding(701, first, 2, 'delivered');
    await runEnding(701, first, 3, 'failed');
    await runEnding(701, first, 4, 'failed');
    expect(await get(701)).toMatchObject({ status: 'active' });
    await runEnding(701, first, 5, 'failed');
    expect(await get(701)).toMatchObject({ status: 'suspended' });
  });

  it('is reached by the dispatcher minute when the report completing the third run died before settling it', async () => {
    const first = Date.parse((await get(702)).nextRunAt);
    await runEnding(702, first, 0, 'failed');
    await runEnding(702, first, 1, 'failed');
    const jobId = await fire(702, first, 2);
    const faults = injectDynamoDbFaults(documentClient());
    // The report's calls: its transaction, the run's read, then the settling write, which dies.
    faults.add({ operations: ['UpdateItem'], when: (call) => call === 1, fault: crash() });
    try {
      expect((await report(jobId as string, 'failed')).status).toBeGreaterThanOrEqual(500);
    } finally {
      faults.detach();
    }
    expect(await get(702)).toMatchObject({ status: 'active' });
    await dispatchOnce(Date.now() + 2 * MINUTE);
    expect(await get(702)).toMatchObject({ status: 'suspended', statusReason: 'consecutive_failed_runs' });
  });
});

describe('webhook events of a hold', () => {
  it('notification.suspended, .paused and .resumed, each with the notification as the change left it', async () => {
    const endpoint = await api.request('POST', '/v1/deployments/7/webhooks', {
      token: ADMIN_KEY,
      // A public address literal: nothing is sent here, the events are read from the outbox.
      body: {
        url: 'https://93.184.215.14/hook',
        events: ['notification.suspended', 'notification.paused', 'notification.resumed'],
      },
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    const first = Date.parse((await get(703)).nextRunAt);
    for (const hour of [0, 1, 2]) await runEnding(703, first, hour, 'failed');
    expect((await api.request('POST', `${base}/703/resume`, { token: ADMIN_KEY })).status).toBe(200);
    expect(
      (await api.request('POST', `${base}/703/pause`, { token: ADMIN_KEY, body: { reason: 'quarter end' } }))
        .status,
    ).toBe(200);
    // A pause that changes nothing records nothing more.
    await api.request('POST', `${base}/703/pause`, { token: ADMIN_KEY, body: { reason: 'quarter end' } });

    const events = (await webhookOutbox.due(Date.now() + 60_000, 100)).flatMap((work) =>
      work.kind === 'event' ? [work.event] : [],
    );
    const notificationOf = (type: string) =>
      events
        .filter((event) => event.type === type)
        .map((event) => (event.data as { notification: object }).notification);
    expect(notificationOf('notification.suspended')).toEqual([
      expect.objectContaining({
        id: 703,
        status: 'suspended',
        statusReason: 'consecutive_failed_runs',
        nextRunAt: null,
      }),
    ]);
    expect(notificationOf('notification.resumed')).toEqual([
      expect.objectContaining({ id: 703, status: 'active' }),
    ]);
    expect(notificationOf('notification.paused')).toEqual([
      expect.objectContaining({ id: 703, status: 'paused', statusReason: 'quarter end' }),
    ]);
    await api.request('DELETE', `/v1/deployments/7/webhooks/${endpoint.body.id}`, { token: ADMIN_KEY });
  });
});
