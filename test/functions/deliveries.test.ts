import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '#lib/clock';
import { config } from '#lib/config';
import { dispatchPass } from '#lib/domain/dispatch/dispatch-pass';
import { schedulePlanner } from '#lib/domain/schedules/schedule-planning';
import { jobSink } from '#lib/jobs/job-sink';
import { dispatchStore } from '#lib/store/dispatch/dispatch';
import { ADMIN_KEY, MEMBER_KEY, publishedDashboardFixture } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { platformRenderer } from '#test/support/tokens';

/**
 * Delivery outcomes, retry, test sends and one-click unsubscribe, through the local API over the real
 * engine: a send queues jobs in the outbox, the renderer (played here with its platform token)
 * reports on them, and the run and its deliveries follow.
 */

// These tests send the same notifications again and again: the send-now limit is tested where it lives.
process.env.SEND_NOW_MIN_INTERVAL_SECONDS = '0';

const platform = platformRenderer('deliveries');
const RENDERER = () => platform.token();

const MANY = 200;
const base = '/v1/deployments/7/notifications';
let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi(
    publishedDashboardFixture({
      platform,
      users: [{ id: 4, email: 'dave@example.com', username: 'dave', role: 'member', active: true }],
      dashboards: [{ id: 71, deploymentId: 7, publicId: 'draft', title: 'Draft', published: false }],
      notifications: [
        {
          id: 700,
          deploymentId: 7,
          dashboardId: 70,
          scheduleType: 'DAILY',
          hour: 9,
          isEnabled: false,
          recipients: [
            { userId: 1 },
            { email: 'carol@example.com' },
            { embedTenantName: 'acme', externalId: 'Wile@Acme.example', groups: ['sales'] },
          ],
        },
        {
          id: 710,
          deploymentId: 7,
          dashboardId: 70,
          scheduleType: 'DAILY',
          hour: 9,
          isEnabled: false,
          recipients: Array.from({ length: MANY }, (_, i) => ({
            embedTenantName: 'acme',
            externalId: `user-${i}@acme.example`,
          })),
        },
        {
          id: 720,
          deploymentId: 7,
          dashboardId: 70,
          scheduleType: 'DAILY',
          hour: 9,
          isEnabled: false,
          recipients: [{ userId: 1 }],
        },
        { id: 730, deploymentId: 7, dashboardId: 71, scheduleType: 'DAILY', hour: 9, isEnabled: false },
      ],
    }),
  );
});

afterAll(() => api.close());

interface Job {
  jobId: string;
  runId: string;
  attempt: number;
  dashboard: { id: number; publicId: string; title: string };
  recipient: { type: string; userId?: number; externalId?: string; email: string };
  unsubscribeUrl: string;
  notificationAiSummary: boolean;
  memberSwitchers: unknown;
}

async function outboxJobs(runId: string): Promise<Job[]> {
  const dir = config().outboxDir;
  const jobs = await Promise.all(
    (await readdir(dir)).map(async (file) => JSON.parse(await readFile(join(dir, file), 'utf8')) as Job),
  );
  return jobs.filter((job) => job.runId === runId);
}

/** A send-now (or test send); a run too large for the request is finished by dispatcher passes, as deployed. */
async function send(id: number, body?: unknown) {
  const answer = await api.request('POST', `${base}/${id}/send`, { token: ADMIN_KEY, body });
  for (let passes = 0; answer.body?.status === 'dispatching'; passes++) {
    if (passes > 20) throw new Error('the run was not dispatched');
    await dispatchPass(dispatchStore, jobSink(), {
      randomHex,
      now: Date.now(),
      planner: schedulePlanner,
      misfireGraceMinutes: 60,
    });
    answer.body = await runOf(id, answer.body.runId);
  }
  return answer;
}
const report = (jobId: string, body: unknown, token = RENDERER()) =>
  api.request('POST', `/v1/deliveries/${encodeURIComponent(jobId)}/outcome`, { token, body });
const runOf = async (id: number, runId: string) => {
  const page = await api.request('GET', `${base}/${id}/runs?first=200`, { token: ADMIN_KEY });
  return page.body.items.find((run: { runId: string }) => run.runId === runId);
};
const deliveriesOf = async (id: number, runId: string) =>
  (await api.request('GET', `${base}/${id}/runs/${runId}/deliveries?first=200`, { token: ADMIN_KEY })).body
    .items;

describe('delivery jobs', () => {
  it('carry the attempt, the dashboard title, the notification fields and an unsubscribe link', async () => {
    const run = (await send(700)).body;
    const jobs = await outboxJobs(run.runId);
    expect(jobs).toHaveLength(2);
    for (const job of jobs) {
      expect(job).toMatchObject({
        attempt: 1,
        dashboard: { id: 70, publicId: 'sales', title: 'Sales' },
        notificationAiSummary: false,
        memberSwitchers: null,
        unsubscribeUrl: expect.stringMatching(
          /^http:\/\/api\.test\.example\/v1\/unsubscribe\?token=[\w-]+\.[\w-]+$/,
        ),
      });
    }
  });
});

describe('POST /v1/deliveries/{jobId}/outcome', () => {
  it('records delivered and failed outcomes and completes the run with the last one', async () => {
    const run = (await send(700)).body;
    const [first, second] = (await outboxJobs(run.runId)) as [Job, Job];
    const delivered = await report(first.jobId, { status: 'delivered', attempt: 1 });
    expect(delivered.status).toBe(204);
    expect(await runOf(700, run.runId)).toMatchObject({
      status: 'dispatched',
      recipients: { queued: 2, skipped: 1, delivered: 1, failed: 0 },
      completedAt: null,
    });
    expect(
      (await report(second.jobId, { status: 'failed', error: 'SMTP 550: mailbox unavailable', attempt: 1 }))
        .status,
    ).toBe(204);
    const done = await runOf(700, run.runId);
    expect(done).toMatchObject({
      status: 'completed_with_failures',
      recipients: { queued: 2, skipped: 1, delivered: 1, failed: 1 },
    });
    expect(Date.parse(done.completedAt)).toBeGreaterThanOrEqual(Date.parse(done.createdAt));
    const deliveries = await deliveriesOf(700, run.runId);
    expect(deliveries.find((d: { jobId: string }) => d.jobId === second.jobId)).toMatchObject({
      status: 'failed',
      error: 'SMTP 550: mailbox unavailable',
      attempts: 1,
    });
    expect(deliveries.find((d: { jobId: string }) => d.jobId === first.jobId)).toMatchObject({
      status: 'delivered',
      error: null,
      attempts: 1,
    });
  });

  it('completes a run whose every delivery was delivered', async () => {
    const run = (await send(700)).body;
    for (const job of await outboxJobs(run.runId))
      await report(job.jobId, { status: 'delivered', attempt: 1 });
    expect(await runOf(700, run.runId)).toMatchObject({
      status: 'completed',
      recipients: { delivered: 2, failed: 0 },
    });
  });

  it('is idempotent: a repeat, a failure after delivered and a stale attempt change nothing', async () => {
    const run = (await send(700)).body;
    const [job] = (await outboxJobs(run.runId)) as [Job];
    expect((await report(job.jobId, { status: 'delivered', attempt: 1 })).status).toBe(204);
    const before = await runOf(700, run.runId);
    expect((await report(job.jobId, { status: 'delivered', attempt: 1 })).status).toBe(204);
    expect((await report(job.jobId, { status: 'failed', error: 'late', attempt: 1 })).status).toBe(204);
    expect(await runOf(700, run.runId)).toEqual(before);
    const delivery = (await deliveriesOf(700, run.runId)).find(
      (d: { jobId: string }) => d.jobId === job.jobId,
    );
    expect(delivery).toMatchObject({ status: 'delivered', error: null });
  });

  it("keeps an attempt's first outcome: a success reported after a failure of the same attempt is ignored", async () => {
    const run = (await send(700)).body;
    const [job] = (await outboxJobs(run.runId)) as [Job];
    expect((await report(job.jobId, { status: 'failed', error: 'bounced', attempt: 1 })).status).toBe(204);
    expect((await report(job.jobId, { status: 'delivered', attempt: 1 })).status).toBe(204);
    expect((await runOf(700, run.runId)).recipients).toMatchObject({ delivered: 0, failed: 1 });
    const delivery = (await deliveriesOf(700, run.runId)).find(
      (d: { jobId: string }) => d.jobId === job.jobId,
    );
    expect(delivery).toMatchObject({ status: 'failed', error: 'bounced' });
  });

  it('answers 409 for an attempt that was never queued, and changes nothing', async () => {
    const run = (await send(700)).body;
    const [job] = (await outboxJobs(run.runId)) as [Job];
    const ahead = await report(job.jobId, { status: 'delivered', attempt: 2 });
    expect(ahead.status).toBe(409);
    expect((await runOf(700, run.runId)).recipients.delivered).toBe(0);
  });

  it('is for the renderer alone: other principals 403, no credential 401', async () => {
    const run = (await send(700)).body;
    const [job] = (await outboxJobs(run.runId)) as [Job];
    const body = { status: 'delivered', attempt: 1 };
    expect((await report(job.jobId, body, ADMIN_KEY)).status).toBe(403);
    expect((await report(job.jobId, body, platform.token('creator'))).status).toBe(403);
    expect((await api.request('POST', `/v1/deliveries/${job.jobId}/outcome`, { body })).status).toBe(401);
    expect((await runOf(700, run.runId)).recipients.delivered).toBe(0);
  });

  it("pages through a run's deliveries by their ids, each exactly once", async () => {
    const run = (await send(710)).body;
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const query = `first=70${after ? `&after=${encodeURIComponent(after)}` : ''}`;
      const page = await api.request('GET', `${base}/710/runs/${run.runId}/deliveries?${query}`, {
        token: ADMIN_KEY,
      });
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((d: { jobId: string }) => d.jobId));
      after = page.body.pageInfo.hasNextPage ? page.body.pageInfo.endCursor : undefined;
    } while (after);
    expect(new Set(seen).size).toBe(MANY);
    expect(seen).toHaveLength(MANY);
  });

  it('answers 404 for a job the service never issued, whatever its form', async () => {
    const run = (await send(700)).body;
    const unknown = `7.700.${run.runId}.${'0'.repeat(32)}`;
    expect((await report(unknown, { status: 'delivered', attempt: 1 })).status).toBe(404);
    expect((await report('not-a-job', { status: 'delivered', attempt: 1 })).status).toBe(404);
    expect(
      (await report(`7.799.${run.runId}.${'0'.repeat(32)}`, { status: 'failed', attempt: 1 })).status,
    ).toBe(404);
  });

  it('refuses a malformed report with 400 naming the field', async () => {
    const run = (await send(700)).body;
    const [job] = (await outboxJobs(run.runId)) as [Job];
    const cases: [unknown, string][] = [
      [{ status: 'delivered', error: 'no', attempt: 1 }, 'error'],
      [{ status: 'failed', error: 'x'.repeat(1001), attempt: 1 }, 'error'],
      [{ status: 'bounced', attempt: 1 }, 'status'],
      [{ status: 'failed', attempt: 0 }, 'attempt'],
      [{ status: 'failed' }, 'attempt'],
      [{ status: 'failed', attempt: 1, retry: true }, 'retry'],
    ];
    for (const [body, field] of cases) {
      const answer = await report(job.jobId, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.errors.map((e: { path: string }) => e.path)).toContain(field);
    }
  });

  it(`keeps a run's counts exact under ${MANY} concurrent reports`, async () => {
    const run = (await send(710)).body;
    expect(run.recipients.queued).toBe(MANY);
    const jobs = await outboxJobs(run.runId);
    expect(jobs).toHaveLength(MANY);
    const answers = await Promise.all(
      jobs.map((job, i) =>
        report(
          job.jobId,
          i % 4 === 0
            ? { status: 'failed', error: `boom ${i}`, attempt: 1 }
            : { status: 'delivered', attempt: 1 },
        ),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(jobs.map(() => 204));
    const done = await runOf(710, run.runId);
    expect(done).toMatchObject({
      status: 'completed_with_failures',
      recipients: { queued: MANY, skipped: 0, delivered: MANY * 0.75, failed: MANY * 0.25 },
    });
    expect(done.completedAt).not.toBeNull();
  });
});

describe('POST …/runs/{runId}/retry', () => {
  const retry = (id: number, runId: string, token = ADMIN_KEY) =>
    api.request('POST', `${base}/${id}/runs/${runId}/retry`, { token });

  it('queues only the failed deliveries again: same job id, the next attempt', async () => {
    const run = (await send(700)).body;
    const [ok, bad] = (await outboxJobs(run.runId)) as [Job, Job];
    await report(ok.jobId, { status: 'delivered', attempt: 1 });
    await report(bad.jobId, { status: 'failed', error: 'timeout', attempt: 1 });
    const answer = await retry(700, run.runId);
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({
      runId: run.runId,
      status: 'dispatched',
      recipients: { queued: 2, delivered: 1, failed: 0 },
      completedAt: null,
    });
    const requeued = (await outboxJobs(run.runId)).find((job) => job.jobId === bad.jobId);
    expect(requeued).toMatchObject({ jobId: bad.jobId, attempt: 2, recipient: bad.recipient });
    // The retry's audit event, written with the deliveries it queued again.
    const [event] = (await api.request('GET', `${base}/700/events?first=1`, { token: ADMIN_KEY })).body.items;
    expect(event).toMatchObject({ action: 'retried', changes: { runId: run.runId } });
    const deliveries = await deliveriesOf(700, run.runId);
    expect(deliveries.find((d: { jobId: string }) => d.jobId === bad.jobId)).toMatchObject({
      status: 'queued',
      attempts: 2,
      error: null,
    });
    expect(deliveries.find((d: { jobId: string }) => d.jobId === ok.jobId)).toMatchObject({
      status: 'delivered',
      attempts: 1,
    });

    // The first attempt's late report is stale now; the second attempt's completes the run.
    expect((await report(bad.jobId, { status: 'delivered', attempt: 1 })).status).toBe(204);
    expect((await runOf(700, run.runId)).status).toBe('dispatched');
    expect((await report(bad.jobId, { status: 'delivered', attempt: 2 })).status).toBe(204);
    expect(await runOf(700, run.runId)).toMatchObject({
      status: 'completed',
      recipients: { delivered: 2, failed: 0 },
    });
  });

  it('with nothing failed changes nothing and answers the run as it is', async () => {
    const run = (await send(700)).body;
    const answer = await retry(700, run.runId);
    expect(answer.status).toBe(202);
    // Nothing changed: the last event is the send's, none is the retry's.
    const [event] = (await api.request('GET', `${base}/700/events?first=1`, { token: ADMIN_KEY })).body.items;
    expect(event).toMatchObject({ action: 'sent', changes: { runId: run.runId } });
    expect(answer.body).toEqual(await runOf(700, run.runId));
    expect(answer.body.recipients).toMatchObject({ queued: 2, failed: 0 });
  });

  it('answers 404 for a run of another notification or an unknown run, 403 to members', async () => {
    const run = (await send(700)).body;
    expect((await retry(720, run.runId)).status).toBe(404);
    expect((await retry(700, '20200101T000000000Z-s')).status).toBe(404);
    // Run ids are opaque: one of a form never issued, however long, names no run.
    expect((await retry(700, 'no-such-run-1')).status).toBe(404);
    expect((await retry(700, 'x'.repeat(2000))).status).toBe(404);
    expect((await retry(700, run.runId, MEMBER_KEY)).status).toBe(403);
  });

  it(`retries ${MANY} failed deliveries of one run in one request`, async () => {
    const run = (await send(710)).body;
    const jobs = await outboxJobs(run.runId);
    await Promise.all(jobs.map((job) => report(job.jobId, { status: 'failed', error: 'down', attempt: 1 })));
    expect((await runOf(710, run.runId)).recipients.failed).toBe(MANY);
    const answer = await retry(710, run.runId);
    expect(answer.status).toBe(202);
    expect(answer.body.recipients).toMatchObject({ queued: MANY, failed: 0, delivered: 0 });
    const attempts = (await outboxJobs(run.runId)).map((job) => job.attempt);
    expect(attempts).toEqual(jobs.map(() => 2));
  });
});

describe('test send: POST …/send with recipients', () => {
  it('makes a test run to exactly the named console users, subscribed or not', async () => {
    const answer = await send(720, { recipients: [{ userId: 4 }, { email: 'BOB@example.com' }] });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    expect(answer.body).toMatchObject({
      runId: expect.stringMatching(/-t[0-9a-f]{8}$/),
      trigger: 'test',
      status: 'dispatched',
      recipients: { queued: 2, skipped: 0, delivered: 0, failed: 0 },
    });
    const jobs = await outboxJobs(answer.body.runId);
    expect(jobs.map((job) => job.recipient.userId).sort()).toEqual([2, 4]);
    const deliveries = await deliveriesOf(720, answer.body.runId);
    expect(deliveries.map((d: { recipient: { userId: number } }) => d.recipient.userId).sort()).toEqual([
      2, 4,
    ]);
    // Its outcomes count as any run's.
    for (const job of jobs) await report(job.jobId, { status: 'delivered', attempt: 1 });
    expect((await runOf(720, answer.body.runId)).status).toBe('completed');
  });

  it('still follows the dashboard rule: an unpublished dashboard skips the run', async () => {
    const answer = await send(730, { recipients: [{ userId: 1 }] });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({
      trigger: 'test',
      status: 'skipped',
      skipReason: 'dashboard_unavailable',
    });
  });

  it('refuses anything but 1 to 10 console users, naming the field', async () => {
    const cases: [unknown, number, string][] = [
      [{ recipients: [] }, 400, 'recipients'],
      [{ recipients: Array.from({ length: 11 }, (_, i) => ({ userId: i + 1 })) }, 400, 'recipients'],
      [
        { recipients: [{ embedTenantName: 'acme', externalId: 'x@acme.example' }] },
        400,
        'recipients.0.embedTenantName',
      ],
      [{ recipients: [{}] }, 400, 'recipients.0'],
      [{ recipients: [{ userId: 99 }] }, 400, 'recipients.0.userId'],
      [{ recipients: [{ userId: 3 }] }, 400, 'recipients.0.userId'],
      [{ recipients: [{ userId: 1 }, { userId: 1 }] }, 400, 'recipients.1'],
    ];
    for (const [body, status, field] of cases) {
      const answer = await send(720, body);
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.body.errors.map((e: { path: string }) => e.path)).toContain(field);
    }
  });
});

describe('one-click unsubscribe', () => {
  const tokenOf = (job: Job) => new URL(job.unsubscribeUrl).searchParams.get('token') as string;
  const recipientsOf = async (id: number) =>
    (await api.request('GET', `${base}/${id}/recipients`, { token: ADMIN_KEY })).body.items;

  it('GET shows a page whose button posts back, changes nothing and carries a policy', async () => {
    const run = (await send(720)).body;
    const [job] = (await outboxJobs(run.runId)) as [Job];
    const page = await api.request('GET', `/v1/unsubscribe?token=${tokenOf(job)}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.text).toContain('<form method="post"');
    expect(page.text).toContain(tokenOf(job));
    expect(await recipientsOf(720)).toHaveLength(1);
  });

  it('POST removes that recipient from that notification, without credentials; a repeat answers the same', async () => {
    const run = (await send(700)).body;
    const jobs = await outboxJobs(run.runId);
    const embed = jobs.find((job) => job.recipient.type === 'EMBED_USER') as Job;
    const first = await api.request('POST', `/v1/unsubscribe?token=${tokenOf(embed)}`, {
      body: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ unsubscribed: true, deploymentId: 7, notificationId: 700 });
    const left = await recipientsOf(700);
    expect(left.map((r: { type: string }) => r.type)).toEqual(['USER', 'USER']);
    const again = await api.request('POST', `/v1/unsubscribe?token=${tokenOf(embed)}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    // The other notification's subscription of the same kind of recipient is untouched.
    expect(await recipientsOf(710)).toHaveLength(100);
  });

  it('refuses a forged or altered token with 400, and changes nothing', async () => {
    const run = (await send(720)).body;
    const [job] = (await outboxJobs(run.runId)) as [Job];
    const [payload, signature] = tokenOf(job).split('.') as [string, string];
    const otherPayload = Buffer.from(JSON.stringify([1, 7, 720, 'U', 4])).toString('base64url');
    for (const token of [
      `${otherPayload}.${signature}`,
      `${payload}.${signature.slice(0, -2)}AA`,
      'garbage',
      `${payload}.`,
    ]) {
      const answer = await api.request('POST', `/v1/unsubscribe?token=${encodeURIComponent(token)}`);
      expect(answer.status, token).toBe(400);
      expect(answer.body.errors[0].path).toBe('token');
      expect((await api.request('GET', `/v1/unsubscribe?token=${encodeURIComponent(token)}`)).status).toBe(
        400,
      );
    }
    expect((await api.request('POST', '/v1/unsubscribe')).status).toBe(400);
    expect(await recipientsOf(720)).toHaveLength(1);
  });
});

describe('POST /v1/schedules/preview', () => {
  const preview = (body: unknown, token = ADMIN_KEY) =>
    api.request('POST', '/v1/schedules/preview', { token, body });

  it('answers the cron, its reading and the next firing instants, clock changes included', async () => {
    const answer = await preview({
      scheduleType: 'DAILY',
      hour: 2,
      minute: 30,
      timezone: 'Europe/Berlin',
      count: 3,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      cronExpression: '30 2 * * *',
      humanReadableSchedule: 'At 02:30',
      timezone: 'Europe/Berlin',
    });
    expect(answer.body.nextRuns).toHaveLength(3);
    const instants = answer.body.nextRuns.map((run: string) => Date.parse(run));
    expect(instants[0]).toBeGreaterThan(Date.now());
    for (const run of answer.body.nextRuns) expect(run).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00Z$/);
    expect((await preview({ scheduleType: 'HOURLY' })).body.nextRuns).toHaveLength(5);
  });

  it('checks as a create does: the same 400s, and nothing stored', async () => {
    const cases: [unknown, string][] = [
      [{ scheduleType: 'DAILY' }, 'hour'],
      [{ scheduleType: 'CUSTOM', customCron: '*/5 * * * *' }, 'customCron'],
      [{ scheduleType: 'WEEKLY', hour: 9, dayOfWeek: 7 }, 'dayOfWeek'],
      [{ scheduleType: 'DAILY', hour: 9, timezone: 'Mars/Base' }, 'timezone'],
      [{ scheduleType: 'DAILY', hour: 9, count: 51 }, 'count'],
      [{ scheduleType: 'DAILY', hour: 9, dashboardId: 70 }, 'dashboardId'],
      [{ hour: 9 }, 'scheduleType'],
    ];
    for (const [body, field] of cases) {
      const answer = await preview(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.errors.map((e: { path: string }) => e.path)).toContain(field);
    }
    expect((await preview({ scheduleType: 'HOURLY' }, MEMBER_KEY)).status).toBe(403);
    const list = await api.request('GET', base, { token: ADMIN_KEY });
    expect(list.body.items.map((n: { id: number }) => n.id).sort()).toEqual([700, 710, 720, 730]);
  });
});
