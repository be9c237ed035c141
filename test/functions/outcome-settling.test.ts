import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { config } from '#lib/config';
import { dispatchOnce } from '#lib/local/dispatch-loop';
import { documentClient } from '#lib/store/dynamo/client';
import { crash, type Fault, injectDynamoDbFaults } from '#test/support/dynamodb-faults';
import { ADMIN_KEY, publishedDashboardFixture } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { tableSnapshot } from '#test/support/table-snapshot';
import { platformRenderer } from '#test/support/tokens';
import { handler as coordinator } from '../../functions/dispatch-coordinator.ts';

/**
 * Every run settles, and a deleted notification's jobs are unknown: through the local API over the
 * real engine, with the process made to die between an outcome report's writes (the fault injector
 * fails the chosen call as a dead process would, or lets it take effect and loses its answer).
 */

// These tests send the same notification again and again: the send-now limit is tested where it lives.
process.env.SEND_NOW_MIN_INTERVAL_SECONDS = '0';
// The coordinator names the worker it would start; nothing is due here, so it starts none.
process.env.DISPATCH_WORKER_FUNCTION = 'notification-dispatch-settling-test';

const platform = platformRenderer('settling');
const RENDERER = () => platform.token();

const MINUTE = 60_000;
const base = '/v1/deployments/7/notifications';
let api: LocalApi;

const notification = (id: number) => ({
  id,
  deploymentId: 7,
  dashboardId: 70,
  scheduleType: 'DAILY',
  hour: 9,
  isEnabled: false,
  recipients: [{ userId: 1 }],
});

beforeAll(async () => {
  api = await startLocalApi(
    publishedDashboardFixture({
      platform,
      notifications: [notification(700), notification(701)],
    }),
  );
});

afterAll(() => api.close());
afterEach(() => {
  vi.useRealTimers();
});

/** A send-now of a notification of one recipient: the run, dispatched, and its one job's id. */
async function sentRun(id: number): Promise<{ runId: string; jobId: string }> {
  const answer = await api.request('POST', `${base}/${id}/send`, { token: ADMIN_KEY });
  expect(answer.body).toMatchObject({ status: 'dispatched', recipients: { queued: 1 } });
  const { runId } = answer.body;
  const dir = config().outboxDir;
  for (const file of await readdir(dir)) {
    const job = JSON.parse(await readFile(join(dir, file), 'utf8'));
    if (job.runId === runId) return { runId, jobId: job.jobId };
  }
  throw new Error(`no job of run ${runId}`);
}

const report = (jobId: string) =>
  api.request('POST', `/v1/deliveries/${encodeURIComponent(jobId)}/outcome`, {
    token: RENDERER(),
    body: { status: 'delivered', attempt: 1 },
  });
const runOf = async (id: number, runId: string) => {
  const page = await api.request('GET', `${base}/${id}/runs?first=200`, { token: ADMIN_KEY });
  return page.body.items.find((run: { runId: string }) => run.runId === runId);
};

/**
 * Where the report of a run's last outcome dies once that outcome is recorded: its three calls are the
 * transaction (delivery and counts), the run's read and the settling write.
 */
const deaths: { name: string; operation: string; fault: Fault }[] = [
  {
    name: 'the transaction took effect, its answer lost',
    operation: 'TransactWriteItems',
    fault: { kind: 'lost' },
  },
  // The run is read beside the deployment's webhook subscriptions (one BatchGetItem) when no container cache holds them.
  { name: 'before the run is read', operation: 'BatchGetItem', fault: crash() },
  { name: 'before the settling write', operation: 'UpdateItem', fault: crash() },
];

/** The last outcome of a fresh run of `id`, reported by a process that dies as `death` says: the run stuck. */
async function stuckRun(id: number, death: (typeof deaths)[number]) {
  const run = await sentRun(id);
  const faults = injectDynamoDbFaults(documentClient());
  faults.add({ operations: [death.operation], when: (call) => call === 1, fault: death.fault });
  try {
    expect((await report(run.jobId)).status, death.name).toBeGreaterThanOrEqual(500);
  } finally {
    faults.detach();
  }
  // Recorded, not settled: what the renderer's repeat or the dispatcher's minute must finish.
  expect(await runOf(id, run.runId), death.name).toMatchObject({
    status: 'dispatched',
    recipients: { queued: 1, delivered: 1, failed: 0 },
    completedAt: null,
  });
  return run;
}

const completed = { status: 'completed', recipients: { queued: 1, delivered: 1, failed: 0 } };

describe('a run whose last outcome was recorded by a process that died before settling it', () => {
  it('is settled at once by the repeated report, wherever the process died', async () => {
    for (const death of deaths) {
      const run = await stuckRun(700, death);
      expect((await report(run.jobId)).status, death.name).toBe(204);
      const settled = await runOf(700, run.runId);
      expect(settled, death.name).toMatchObject(completed);
      expect(Date.parse(settled.completedAt), death.name).toBeGreaterThanOrEqual(
        Date.parse(settled.createdAt),
      );
      // Settled once: a further repeat changes nothing.
      expect((await report(run.jobId)).status, death.name).toBe(204);
      expect(await runOf(700, run.runId), death.name).toEqual(settled);
    }
  });

  it('is settled without a repeat by the local dispatcher pass two minutes later', async () => {
    for (const death of deaths) {
      const run = await stuckRun(700, death);
      const { line } = await dispatchOnce(Date.now() + 2 * MINUTE);
      expect(line, death.name).toMatch(/runs left awaiting outcomes settled$/);
      const settled = await runOf(700, run.runId);
      expect(settled, death.name).toMatchObject(completed);
      expect(settled.completedAt, death.name).not.toBeNull();
    }
  });

  it('is settled without a repeat by the deployed coordinator two minutes later, and no other run is touched', async () => {
    const stuck = await stuckRun(700, deaths[2] as (typeof deaths)[number]);
    // A run still awaiting its outcome stays as it is.
    const awaiting = await sentRun(701);
    const before = await runOf(701, awaiting.runId);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 2 * MINUTE);
    await coordinator({}, { getRemainingTimeInMillis: () => 30_000 });
    vi.useRealTimers();
    expect(await runOf(700, stuck.runId)).toMatchObject(completed);
    expect(await runOf(701, awaiting.runId)).toEqual(before);
  });
});

describe('an outcome report for a job of a deleted notification', () => {
  it('is 404 and writes nothing, its repeat too', async () => {
    const run = await sentRun(701);
    expect((await api.request('DELETE', `${base}/701`, { token: ADMIN_KEY })).status).toBe(204);
    const before = await tableSnapshot();
    expect((await report(run.jobId)).status).toBe(404);
    expect((await report(run.jobId)).status).toBe(404);
    expect(await tableSnapshot()).toEqual(before);
  });
});
