import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '#lib/clock';
import { config } from '#lib/config';
import { purgePass } from '#lib/domain/deletion/purge';
import { dispatchPass } from '#lib/domain/dispatch/dispatch-pass';
import { schedulePlanner } from '#lib/domain/schedules/schedule-planning';
import { deliveryPage, runOutput, runPage } from '#lib/http/schemas/run-outputs';
import { outboxSink } from '#lib/jobs/outbox-sink';
import { purgeStore } from '#lib/store/deletion/purge-store';
import { dispatchStore } from '#lib/store/dispatch/dispatch';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { PURGE_GRACE_MS } from '#lib/store/notifications/notification-guard';
import { ADMIN_KEY, MEMBER_KEY, publishedDashboardFixture } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';

/** Send-now and the run and delivery lists, through the local API over the real engine. */

// These tests send the same notification again at once; the send-now limit has tests of its own
// (test/functions/send-now.test.ts). Read on first use of the configuration, after this line.
process.env.SEND_NOW_MIN_INTERVAL_SECONDS = '0';

let api: LocalApi;
const base = '/v1/deployments/7/notifications';

beforeAll(async () => {
  api = await startLocalApi(
    publishedDashboardFixture({
      notifications: [
        {
          id: 700,
          deploymentId: 7,
          dashboardId: 70,
          scheduleType: 'WEEKLY',
          minute: 0,
          hour: 9,
          dayOfWeek: 0,
          timezone: 'America/New_York',
          isEnabled: false,
          recipients: [
            { userId: 1 },
            { email: 'carol@example.com' },
            { embedTenantName: 'acme', externalId: 'Wile@Acme.example', groups: ['sales'] },
          ],
        },
        { id: 701, deploymentId: 7, dashboardId: 70, scheduleType: 'DAILY', minute: 0, hour: 9 },
        {
          id: 702,
          deploymentId: 7,
          dashboardId: 70,
          scheduleType: 'HOURLY',
          minute: 0,
          recipients: [{ userId: 1 }],
        },
      ],
    }),
  );
});

afterAll(() => api.close());

const send = (id: number, token = ADMIN_KEY) => api.request('POST', `${base}/${id}/send`, { token });

async function outboxJobs(runId: string) {
  const dir = config().outboxDir;
  const jobs = await Promise.all(
    (await readdir(dir)).map(async (file) => JSON.parse(await readFile(join(dir, file), 'utf8'))),
  );
  return jobs.filter((job) => job.runId === runId);
}

describe('POST …/{id}/send', () => {
  it('answers 202 with the manual run and puts one job per queued delivery in the outbox', async () => {
    const before = Date.now();
    const response = await send(700);
    expect(response.status).toBe(202);
    expect(response.body).toEqual({
      runId: expect.stringMatching(/-m[0-9a-f]{8}$/),
      deploymentId: 7,
      notificationId: 700,
      trigger: 'manual',
      scheduledFor: expect.any(String),
      createdAt: response.body.scheduledFor,
      status: 'dispatched',
      skipReason: null,
      recipients: { queued: 2, skipped: 1, delivered: 0, failed: 0 },
      completedAt: null,
    });
    expect(Date.parse(response.body.scheduledFor)).toBeGreaterThanOrEqual(before);
    expect(runOutput.safeParse(response.body).success).toBe(true);
    const jobs = await outboxJobs(response.body.runId);
    expect(jobs.map((job) => job.recipient.type).sort()).toEqual(['EMBED_USER', 'USER']);
    expect(jobs.find((job) => job.recipient.type === 'EMBED_USER').recipient).toMatchObject({
      externalId: 'Wile@Acme.example',
      email: 'Wile@Acme.example',
      groups: ['sales'],
    });
  });

  it('takes no fields: an empty body or {} is a send, anything else 400', async () => {
    const empty = await api.request('POST', `${base}/700/send`, { token: ADMIN_KEY, body: {} });
    expect(empty.status).toBe(202);
    const extra = await api.request('POST', `${base}/700/send`, { token: ADMIN_KEY, body: { now: true } });
    expect(extra.status).toBe(400);
    expect(JSON.stringify(extra.body)).toContain('now');
  });

  it('is refused to members, and 404 for a notification that does not exist', async () => {
    expect((await send(700, MEMBER_KEY)).status).toBe(403);
    const missing = await send(799);
    expect(missing.status).toBe(404);
  });

  it('shows nextRunAt in the notification answers: null while disabled, else the next instant', async () => {
    const disabled = await api.request('PUT', `${base}/700`, { token: ADMIN_KEY, body: {} });
    expect(disabled.body.nextRunAt).toBeNull();
    const enabled = await api.request('PUT', `${base}/700`, { token: ADMIN_KEY, body: { isEnabled: true } });
    // Sundays 09:00 in New York: 13:00 or 14:00 UTC, with seconds and no milliseconds.
    expect(enabled.body.nextRunAt).toMatch(/^\d{4}-\d{2}-\d{2}T1[34]:00:00Z$/);
    expect(new Date(enabled.body.nextRunAt).getUTCDay()).toBe(0);
    expect(Date.parse(enabled.body.nextRunAt)).toBeGreaterThan(Date.now());
    await api.request('PUT', `${base}/700`, { token: ADMIN_KEY, body: { isEnabled: false } });
  });
});

describe('GET …/{id}/runs and …/runs/{runId}/deliveries', () => {
  it('pages through the runs newest first, each exactly once', async () => {
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) sent.push((await send(701)).body.runId);
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      const query = after ? `?first=2&after=${encodeURIComponent(after)}` : '?first=2';
      const page = await api.request('GET', `${base}/701/runs${query}`, { token: ADMIN_KEY });
      expect(page.status).toBe(200);
      expect(page.body.pageInfo.hasPreviousPage).toBe(after !== undefined);
      seen.push(...page.body.items.map((run: { runId: string }) => run.runId));
      pages += 1;
      if (!page.body.pageInfo.hasNextPage) break;
      after = page.body.pageInfo.endCursor;
    }
    expect(pages).toBe(2);
    const page = await api.request('GET', `${base}/701/runs`, { token: ADMIN_KEY });
    expect(runPage.safeParse(page.body).success).toBe(true);
    expect(seen).toEqual([...sent].reverse());
  });

  it('lists a run’s deliveries with who was skipped and why', async () => {
    const run = (await send(700)).body;
    const page = await api.request('GET', `${base}/700/runs/${run.runId}/deliveries`, { token: ADMIN_KEY });
    expect(page.status).toBe(200);
    expect(page.body.items).toHaveLength(3);
    expect(deliveryPage.safeParse(page.body).success).toBe(true);
    expect(page.body.items).toContainEqual({
      recipient: { type: 'USER', userId: 3, email: 'carol@example.com', username: 'carol' },
      status: 'skipped',
      reason: 'user_deactivated',
      jobId: null,
      attempts: 0,
      error: null,
      updatedAt: run.createdAt,
    });
    expect(page.body.items).toContainEqual({
      recipient: { type: 'USER', userId: 1, email: 'ada@example.com', username: 'ada' },
      status: 'queued',
      reason: null,
      jobId: expect.stringMatching(new RegExp(`^7\\.700\\.${run.runId}\\.[0-9a-f]{32}$`)),
      attempts: 1,
      error: null,
      updatedAt: run.createdAt,
    });
    const ids = page.body.items.flatMap((d: { jobId: string | null }) => (d.jobId ? [d.jobId] : []));
    expect((await outboxJobs(run.runId)).map((job) => job.jobId).sort()).toEqual(ids.sort());
  });

  it('refuses a cursor of another list with 400 naming the field', async () => {
    const first = await api.request('GET', `${base}/701/runs?first=1`, { token: ADMIN_KEY });
    const cursor = first.body.pageInfo.endCursor as string;
    const foreign = await api.request('GET', `${base}/700/runs?after=${encodeURIComponent(cursor)}`, {
      token: ADMIN_KEY,
    });
    expect(foreign.status).toBe(400);
    expect(JSON.stringify(foreign.body)).toContain('after');
  });

  it('answers 404 for an unknown notification or run', async () => {
    expect((await api.request('GET', `${base}/799/runs`, { token: ADMIN_KEY })).status).toBe(404);
    const unknownRun = await api.request('GET', `${base}/701/runs/20200101T000000000Z-s/deliveries`, {
      token: ADMIN_KEY,
    });
    expect(unknownRun.status).toBe(404);
  });

  it('answers 404 for a run id of any form, since a client cannot know the form of an opaque id', async () => {
    for (const runId of [
      'no-such-run-1',
      'x'.repeat(2000),
      '%E2%82%AC',
      '20200101T000000000Z-s%23DELIVERY',
    ]) {
      const answer = await api.request('GET', `${base}/701/runs/${runId}/deliveries`, { token: ADMIN_KEY });
      expect(answer.status, runId.slice(0, 40)).toBe(404);
      expect(answer.body.code).toBe('not_found');
    }
  });

  it('goes with its notification: its runs and deliveries are deleted, and it fires no more', async () => {
    const run = (await send(702)).body;
    expect(run.recipients).toEqual({ queued: 1, skipped: 0, delivered: 0, failed: 0 });
    expect((await api.request('DELETE', `${base}/702`, { token: ADMIN_KEY })).status).toBe(204);
    expect((await api.request('GET', `${base}/702/runs`, { token: ADMIN_KEY })).status).toBe(404);
    // The purge empties the partition in the background: a pass as of after its grace.
    await purgePass(purgeStore, { now: Date.now() + PURGE_GRACE_MS + 1_000 });
    const { Items = [] } = await documentClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.notification(7, 702).pk },
      }),
    );
    expect(Items).toEqual([]);
    const summary = await dispatchPass(dispatchStore, outboxSink(config().outboxDir), {
      randomHex,
      now: Date.now() + 2 * 3_600_000,
      planner: schedulePlanner,
      misfireGraceMinutes: 60,
    });
    expect(summary.runs.filter((fired) => fired.notificationId === 702)).toEqual([]);
  });
});
