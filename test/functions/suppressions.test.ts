import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '#lib/clock';
import { config } from '#lib/config';
import { dispatchPass } from '#lib/domain/dispatch/dispatch-pass';
import { schedulePlanner } from '#lib/domain/schedules/schedule-planning';
import { jobSink } from '#lib/jobs/job-sink';
import { meterDynamoDb } from '#lib/local/dynamodb-meter';
import { renderOutbox } from '#lib/local/renderer';
import { dispatchStore } from '#lib/store/dispatch/dispatch';
import { batchWriteAll } from '#lib/store/dynamo/batch';
import { documentClient } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { dueShard } from '#lib/store/dynamo/keys';
import { ADMIN_KEY, consoleUsers, MEMBER_KEY } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { platformRenderer } from '#test/support/tokens';

/**
 * Suppressions through the local API over the real engine: the renderer (played here with its
 * platform token) reports a bounce or a complaint and the address is suppressed; admins add and lift
 * suppressions; every kind of run then skips the address with reason `suppressed` and queues nothing.
 */

process.env.SEND_NOW_MIN_INTERVAL_SECONDS = '0';

const platform = platformRenderer('suppressions');
const RENDERER = () => platform.token();

const base = '/v1/deployments/7/notifications';
const suppressions = '/v1/deployments/7/suppressions';
let api: LocalApi;

/** Console users of their own per rule, so that one rule's suppression leaves the others' alone. */
const users = [
  ['hard', 11],
  ['manual', 12],
  ['tester', 13],
  ['renderer', 14],
  ['counted', 15],
] as const;
const userId = (name: (typeof users)[number][0]) => users.find(([n]) => n === name)?.[1] as number;
const notification = (id: number, recipients: unknown[], isEnabled = false) => ({
  id,
  deploymentId: 7,
  dashboardId: 70,
  scheduleType: 'DAILY',
  hour: 9,
  timezone: 'UTC',
  isEnabled,
  recipients,
});

beforeAll(async () => {
  api = await startLocalApi({
    users: [
      ...consoleUsers,
      ...users.map(([name, id]) => ({
        id,
        email: `${name}.person@example.com`,
        username: name,
        role: 'member',
        active: true,
      })),
      // Its address in capitals: a suppression of the lower-case address stops it.
      { id: 16, email: 'Mixed.Case@Example.com', username: 'mixed', role: 'member', active: true },
    ],
    deployments: [
      { id: 7, name: 'Production' },
      { id: 8, name: 'Staging' },
    ],
    dashboards: [
      {
        id: 70,
        deploymentId: 7,
        publicId: 'sales',
        title: 'Sales',
        published: true,
        sharedWithTenants: ['acme'],
      },
      {
        id: 80,
        deploymentId: 8,
        publicId: 'staging',
        title: 'Staging',
        published: true,
        sharedWithTenants: ['acme'],
      },
    ],
    embedTenants: [{ name: 'acme', issuer: 'https://auth.acme.example', jwks: { keys: [] } }],
    trustedIssuers: [platform.trustedIssuer],
    notifications: [
      notification(800, [{ userId: userId('hard') }, { userId: 1 }]),
      notification(801, [{ embedTenantName: 'acme', externalId: 'wile@acme.example' }, { userId: 1 }], true),
      notification(802, [{ userId: userId('manual') }, { userId: 16 }]),
      notification(803, [{ userId: 1 }]),
      notification(804, [
        { userId: userId('renderer') },
        { embedTenantName: 'acme', externalId: 'bounce.road@acme.example' },
      ]),
      notification(
        805,
        [
          { userId: userId('counted') },
          { embedTenantName: 'acme', externalId: 'counted-0@acme.example' },
          { embedTenantName: 'acme', externalId: 'counted-1@acme.example' },
        ],
        true,
      ),
      notification(807, [
        { embedTenantName: 'acme', externalId: 'costly-0@acme.example' },
        { embedTenantName: 'acme', externalId: 'costly-1@acme.example' },
      ]),
      notification(808, [
        { embedTenantName: 'acme', externalId: 'retry-0@acme.example' },
        { embedTenantName: 'acme', externalId: 'retry-1@acme.example' },
      ]),
      // The same recipients in another deployment, which suppresses nothing: the baseline of the count.
      {
        ...notification(
          806,
          [
            { userId: userId('counted') },
            { embedTenantName: 'acme', externalId: 'counted-0@acme.example' },
            { embedTenantName: 'acme', externalId: 'counted-1@acme.example' },
          ],
          true,
        ),
        deploymentId: 8,
        dashboardId: 80,
      },
    ],
  });
});

afterAll(() => api.close());

interface Job {
  jobId: string;
  runId: string;
  attempt: number;
  recipient: { type: string; email: string };
}

async function outboxJobs(runId: string): Promise<Job[]> {
  const dir = config().outboxDir;
  const jobs = await Promise.all(
    (await readdir(dir)).map(async (file) => JSON.parse(await readFile(join(dir, file), 'utf8')) as Job),
  );
  return jobs.filter((job) => job.runId === runId);
}

const send = async (id: number, body?: unknown) => {
  const answer = await api.request('POST', `${base}/${id}/send`, { token: ADMIN_KEY, body });
  expect(answer.status, answer.text).toBe(202);
  return answer.body as { runId: string; recipients: Record<string, number> };
};
const report = (jobId: string, body: unknown) =>
  api.request('POST', `/v1/deliveries/${encodeURIComponent(jobId)}/outcome`, { token: RENDERER(), body });
const deliveriesOf = async (id: number, runId: string, deploymentId = 7) =>
  (
    await api.request('GET', `/v1/deployments/${deploymentId}/notifications/${id}/runs/${runId}/deliveries`, {
      token: ADMIN_KEY,
    })
  ).body.items as {
    recipient: { email: string };
    status: string;
    reason: string | null;
    jobId: string | null;
  }[];
const suppressionOf = async (email: string) => {
  const page = await api.request('GET', `${suppressions}?email=${encodeURIComponent(email)}`, {
    token: ADMIN_KEY,
  });
  expect(page.status, page.text).toBe(200);
  return page.body.items as unknown[];
};
const byEmail = (deliveries: Awaited<ReturnType<typeof deliveriesOf>>, email: string) =>
  deliveries.find((delivery) => delivery.recipient.email === email);

/** The scheduled fire of an enabled notification: one dispatcher pass as of its next firing instant. */
async function fire(id: number, deploymentId = 7) {
  const path = `/v1/deployments/${deploymentId}/notifications/${id}`;
  const { nextRunAt } = (await api.request('GET', path, { token: ADMIN_KEY })).body;
  await dispatchPass(dispatchStore, jobSink(), {
    randomHex,
    now: Date.parse(nextRunAt) + 1_000,
    planner: schedulePlanner,
    misfireGraceMinutes: 60,
    slices: [{ shard: dueShard(deploymentId, id) }],
  });
  const runs = (await api.request('GET', `${path}/runs`, { token: ADMIN_KEY })).body.items;
  return runs.find((run: { trigger: string }) => run.trigger === 'schedule') as {
    runId: string;
    recipients: Record<string, number>;
  };
}

describe('an outcome report with a bounce', () => {
  it('suppresses a hard-bounced address, and the next run skips it and queues nothing for it', async () => {
    const first = await send(800);
    const hard = 'hard.person@example.com';
    const job = (await outboxJobs(first.runId)).find((j) => j.recipient.email === hard) as Job;
    const answer = await report(job.jobId, {
      status: 'failed',
      error: '550 no such user',
      bounce: 'hard',
      attempt: 1,
    });
    expect(answer.status, answer.text).toBe(204);
    expect(await suppressionOf(hard)).toEqual([
      {
        deploymentId: 7,
        email: hard,
        reason: 'hard_bounce',
        createdAt: expect.any(String),
        source: { runId: first.runId, jobId: job.jobId },
      },
    ]);
    expect(byEmail(await deliveriesOf(800, first.runId), hard)).toMatchObject({ status: 'failed' });

    const next = await send(800);
    expect(next.recipients).toMatchObject({ queued: 1, skipped: 1 });
    expect(byEmail(await deliveriesOf(800, next.runId), hard)).toMatchObject({
      status: 'skipped',
      reason: 'suppressed',
      jobId: null,
    });
    expect((await outboxJobs(next.runId)).map((j) => j.recipient.email)).toEqual(['ada@example.com']);
  });

  it('suppresses the address of a complaint, delivered or not, and a scheduled fire skips the embed user', async () => {
    const first = await send(801);
    const job = (await outboxJobs(first.runId)).find((j) => j.recipient.type === 'EMBED_USER') as Job;
    expect((await report(job.jobId, { status: 'delivered', bounce: 'complaint', attempt: 1 })).status).toBe(
      204,
    );
    expect(await suppressionOf('WILE@acme.example')).toMatchObject([
      { email: 'wile@acme.example', reason: 'complaint', source: { runId: first.runId, jobId: job.jobId } },
    ]);
    expect(byEmail(await deliveriesOf(801, first.runId), 'wile@acme.example')).toMatchObject({
      status: 'delivered',
    });

    const scheduled = await fire(801);
    expect(scheduled.recipients).toMatchObject({ queued: 1, skipped: 1 });
    expect(byEmail(await deliveriesOf(801, scheduled.runId), 'wile@acme.example')).toMatchObject({
      status: 'skipped',
      reason: 'suppressed',
    });
    expect((await outboxJobs(scheduled.runId)).map((j) => j.recipient.email)).toEqual(['ada@example.com']);
  });

  it('costs 3 DynamoDB requests, also when it completes its run', async () => {
    const run = await send(807);
    const [first, last] = (await outboxJobs(run.runId)) as [Job, Job];
    const meter = meterDynamoDb(documentClient());
    try {
      expect((await report(first.jobId, { status: 'failed', bounce: 'hard', attempt: 1 })).status).toBe(204);
      // The delivery and the run in one read, the transaction, the run read back: it is not complete yet.
      expect(meter.totalRequests()).toBe(3);
      meter.reset();
      expect(
        (await report(last.jobId, { status: 'delivered', bounce: 'complaint', attempt: 1 })).status,
      ).toBe(204);
      // The same read and transaction; the run as read plus this report is complete: its settle is the third.
      expect(meter.totalRequests()).toBe(3);
      expect(Object.keys(meter.byOperation).sort()).toEqual([
        'BatchGetItem',
        'TransactWriteItems',
        'UpdateItem',
      ]);
    } finally {
      meter.detach();
    }
    const runs = (await api.request('GET', `${base}/807/runs`, { token: ADMIN_KEY })).body.items;
    expect(runs[0]).toMatchObject({
      status: 'completed_with_failures',
      recipients: { delivered: 1, failed: 1 },
    });
    expect(await suppressionOf('costly-0@acme.example')).toHaveLength(1);
    expect(await suppressionOf('costly-1@acme.example')).toHaveLength(1);
  });

  it('refuses a hard bounce of a delivered job and an unknown kind, naming bounce, and changes nothing', async () => {
    const run = await send(803);
    const [job] = (await outboxJobs(run.runId)) as [Job];
    for (const body of [
      { status: 'delivered', bounce: 'hard', attempt: 1 },
      { status: 'failed', bounce: 'soft', attempt: 1 },
    ]) {
      const answer = await report(job.jobId, body);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.errors.map((e: { path: string }) => e.path)).toEqual(['bounce']);
    }
    expect(await suppressionOf('ada@example.com')).toEqual([]);
    expect((await deliveriesOf(803, run.runId))[0]).toMatchObject({ status: 'queued' });
  });

  it('a repeat of a bounce changes nothing, also after an admin lifted the suppression', async () => {
    const run = await send(803);
    const [job] = (await outboxJobs(run.runId)) as [Job];
    const bounce = { status: 'failed', error: 'gone', bounce: 'hard', attempt: 1 };
    expect((await report(job.jobId, bounce)).status).toBe(204);
    expect(await suppressionOf('ada@example.com')).toHaveLength(1);
    expect(
      (await api.request('DELETE', `${suppressions}/ada%40example.com`, { token: ADMIN_KEY })).status,
    ).toBe(204);
    expect((await report(job.jobId, bounce)).status).toBe(204);
    expect(await suppressionOf('ada@example.com')).toEqual([]);
  });
});

describe('admin suppressions', () => {
  it('adds (201, once whatever the case), lists, matches case-insensitively and removes (204, then 404)', async () => {
    const added = await api.request('POST', suppressions, {
      token: ADMIN_KEY,
      body: { email: 'Manual.Person@Example.com' },
    });
    expect(added.status, added.text).toBe(201);
    expect(added.body).toEqual({
      deploymentId: 7,
      email: 'Manual.Person@Example.com',
      reason: 'manual',
      createdAt: expect.any(String),
      source: null,
    });
    expect(added.headers.get('location')).toBe(`${suppressions}/Manual.Person%40Example.com`);
    const again = await api.request('POST', suppressions, {
      token: ADMIN_KEY,
      body: { email: 'manual.person@example.com' },
    });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(added.body);
    // The console user's stored address is mixed case; the suppression of its lower case stops it.
    expect(
      (
        await api.request('POST', suppressions, {
          token: ADMIN_KEY,
          body: { email: 'mixed.case@example.com' },
        })
      ).status,
    ).toBe(201);

    const run = await send(802);
    expect(run.recipients).toMatchObject({ queued: 0, skipped: 2 });
    const deliveries = await deliveriesOf(802, run.runId);
    expect(deliveries.map((d) => [d.recipient.email, d.status, d.reason]).sort()).toEqual([
      ['Mixed.Case@Example.com', 'skipped', 'suppressed'],
      ['manual.person@example.com', 'skipped', 'suppressed'],
    ]);
    expect(await outboxJobs(run.runId)).toEqual([]);

    const removed = await api.request('DELETE', `${suppressions}/MANUAL.PERSON%40example.com`, {
      token: ADMIN_KEY,
    });
    expect(removed.status, removed.text).toBe(204);
    const repeat = await api.request('DELETE', `${suppressions}/manual.person%40example.com`, {
      token: ADMIN_KEY,
    });
    expect(repeat.status).toBe(404);
    expect(repeat.body.code).toBe('not_found');
    const after = await send(802);
    expect(after.recipients).toMatchObject({ queued: 1, skipped: 1 });
  });

  it('pages the list in address order', async () => {
    for (const email of ['page-c@example.com', 'page-a@example.com', 'page-b@example.com'])
      await api.request('POST', '/v1/deployments/8/suppressions', { token: ADMIN_KEY, body: { email } });
    const first = await api.request('GET', '/v1/deployments/8/suppressions?first=2', { token: ADMIN_KEY });
    expect(first.body.items.map((s: { email: string }) => s.email)).toEqual([
      'page-a@example.com',
      'page-b@example.com',
    ]);
    expect(first.body.pageInfo.hasNextPage).toBe(true);
    const next = await api.request(
      'GET',
      `/v1/deployments/8/suppressions?first=2&after=${first.body.pageInfo.endCursor}`,
      {
        token: ADMIN_KEY,
      },
    );
    expect(next.body.items.map((s: { email: string }) => s.email)).toEqual(['page-c@example.com']);
    expect(next.body.pageInfo.hasNextPage).toBe(false);
    for (const email of ['page-a@example.com', 'page-b@example.com', 'page-c@example.com'])
      await api.request('DELETE', `/v1/deployments/8/suppressions/${encodeURIComponent(email)}`, {
        token: ADMIN_KEY,
      });
  });

  it('refuses what is not an address (400 naming email) and any caller but an admin (403)', async () => {
    const bad = await api.request('POST', suppressions, {
      token: ADMIN_KEY,
      body: { email: 'not-an-address' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(['email']);
    const member = await api.request('POST', suppressions, {
      token: MEMBER_KEY,
      body: { email: 'x@example.com' },
    });
    expect(member.status).toBe(403);
    expect((await api.request('GET', suppressions, { token: MEMBER_KEY })).status).toBe(403);
  });
});

describe('a retry', () => {
  it('leaves a failed delivery to an address suppressed since failed, and queues nothing for it', async () => {
    const run = await send(808);
    const jobs = await outboxJobs(run.runId);
    const bounced = jobs.find((j) => j.recipient.email === 'retry-0@acme.example') as Job;
    const failed = jobs.find((j) => j.recipient.email === 'retry-1@acme.example') as Job;
    expect((await report(bounced.jobId, { status: 'failed', bounce: 'hard', attempt: 1 })).status).toBe(204);
    expect((await report(failed.jobId, { status: 'failed', error: 'timeout', attempt: 1 })).status).toBe(204);
    const retried = await api.request('POST', `${base}/808/runs/${run.runId}/retry`, { token: ADMIN_KEY });
    expect(retried.status, retried.text).toBe(202);
    expect(retried.body.recipients).toMatchObject({ queued: 2, failed: 1 });
    const deliveries = await deliveriesOf(808, run.runId);
    expect(byEmail(deliveries, 'retry-0@acme.example')).toMatchObject({ status: 'failed', attempts: 1 });
    expect(byEmail(deliveries, 'retry-1@acme.example')).toMatchObject({ status: 'queued', attempts: 2 });
    const again = (await outboxJobs(run.runId)).filter((j) => j.attempt === 2);
    expect(again.map((j) => j.recipient.email)).toEqual(['retry-1@acme.example']);
  });
});

describe('a test send', () => {
  it('skips a suppressed console user with reason suppressed and queues nothing for it', async () => {
    const email = 'tester.person@example.com';
    expect((await api.request('POST', suppressions, { token: ADMIN_KEY, body: { email } })).status).toBe(201);
    const run = await send(803, { recipients: [{ userId: userId('tester') }, { userId: 1 }] });
    expect(run.recipients).toMatchObject({ queued: 1, skipped: 1 });
    expect(byEmail(await deliveriesOf(803, run.runId), email)).toMatchObject({
      status: 'skipped',
      reason: 'suppressed',
    });
    expect((await outboxJobs(run.runId)).map((j) => j.recipient.email)).toEqual(['ada@example.com']);
  });
});

describe('the check of a page of recipients', () => {
  it('costs the same requests at 100,000 suppressions as at none: one BatchGetItem a page', {
    timeout: 300_000,
  }, async () => {
    const now = new Date().toISOString();
    const suppressed = Array.from({ length: 100_000 }, (_, i) =>
      i === 0 ? 'counted-1@acme.example' : `suppressed-${i}@example.com`,
    );
    await batchWriteAll(
      suppressed.map((email) => ({
        PutRequest: {
          Item: {
            ...keys.suppression(7, email),
            entity: 'SUPPRESSION',
            deploymentId: 7,
            email,
            reason: 'manual',
            createdAt: now,
            source: null,
          },
        },
      })),
      { concurrency: 8 },
    );
    const meter = meterDynamoDb(documentClient());
    try {
      const baseline = await fire(806, 8);
      const none = { ...meter.byOperation };
      meter.reset();
      const counted = await fire(805);
      const many = { ...meter.byOperation };
      expect(baseline.recipients).toMatchObject({ queued: 3, skipped: 0 });
      expect(counted.recipients).toMatchObject({ queued: 2, skipped: 1 });
      const requests = (counts: typeof none) =>
        Object.fromEntries(Object.entries(counts).map(([operation, count]) => [operation, count.requests]));
      expect(requests(many)).toEqual(requests(none));
      // The console user and the page's suppressions: one BatchGetItem each.
      expect(many.BatchGetItem?.requests).toBe(2);
    } finally {
      meter.detach();
    }
  });
});

describe('the stand-in renderer', () => {
  it('reports an address whose local part starts with "bounce" as a hard bounce, which suppresses it', async () => {
    const run = await send(804);
    const mailDir = await mkdtemp(join(tmpdir(), 'mail-'));
    const swept = await renderOutbox(
      { outboxDir: config().outboxDir, mailDir, baseUrl: api.baseUrl, token: RENDERER },
      new Set(),
    );
    const jobs = await outboxJobs(run.runId);
    const bounced = jobs.find((j) => j.recipient.email === 'bounce.road@acme.example') as Job;
    expect(swept.bounced).toContain(bounced.jobId);
    expect(await readdir(mailDir)).not.toContain(`${bounced.jobId}.eml`);
    expect(byEmail(await deliveriesOf(804, run.runId), 'bounce.road@acme.example')).toMatchObject({
      status: 'failed',
    });
    expect(await suppressionOf('bounce.road@acme.example')).toMatchObject([{ reason: 'hard_bounce' }]);
  });
});
