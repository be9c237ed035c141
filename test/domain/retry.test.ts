import { describe, expect, it } from 'vitest';
import type { Dashboard } from '#lib/domain/entities';
import { type RetryStore, retryRun } from '#lib/domain/runs/retry';
import {
  type Delivery,
  type DeliveryJob,
  noRecipients,
  type Run,
  scheduledRunId,
} from '#lib/domain/runs/runs';
import { ConflictError, NotFoundError } from '#lib/errors';
import { dailyNotification, dailyRun, salesDashboard, testAudit } from '#test/support/domain-fixtures';

/**
 * Retry against a store of one run held in memory: its failed deliveries in key order, a requeue that
 * moves them, and a sink that records the jobs it is sent.
 */

const now = Date.UTC(2026, 10, 24, 10);
const runId = scheduledRunId(Date.UTC(2026, 10, 24, 9));
const ref = { deploymentId: 7, id: 700, runId };
const notification = dailyNotification();
const dashboard = salesDashboard();

const failedDelivery = (i: number): Delivery => ({
  recipientKey: `R#U#${String(i).padStart(4, '0')}`,
  deliveryId: i.toString(16).padStart(32, '0'),
  recipient: { type: 'USER', userId: i, email: `u${i}@example.com`, username: `u${i}` },
  status: 'failed',
  reason: null,
  jobId: `7.700.${runId}.${i.toString(16).padStart(32, '0')}`,
  attempts: 1,
  error: 'boom',
  updatedAt: '2026-11-24T09:01:00.000Z',
});

function world(options: {
  failed: number;
  run?: Partial<Run> | null;
  notificationGone?: boolean;
  dashboard?: Dashboard | undefined;
  deletedAfterPages?: number;
  deletedBeforeRecord?: boolean;
}) {
  let failed = Array.from({ length: options.failed }, (_, i) => failedDelivery(i + 1));
  const run = dailyRun({
    status: 'completed_with_failures',
    recipients: { ...noRecipients(), queued: options.failed, failed: options.failed },
    completedAt: '2026-11-24T09:02:00.000Z',
    ...options.run,
  });
  const sent: DeliveryJob[][] = [];
  const runReads: string[] = [];
  const pageLimits: number[] = [];
  let pages = 0;
  const store: RetryStore = {
    suppressedAmong: async () => new Set(),
    async findRun(asked) {
      runReads.push(asked.runId);
      return options.run === null || asked.runId !== runId ? undefined : run;
    },
    findNotification: async () => (options.notificationGone ? undefined : { notification }),
    findDashboard: async () => ('dashboard' in options ? options.dashboard : dashboard),
    async failedPage(_ref, after, limit) {
      pageLimits.push(limit);
      const start = after === undefined ? 0 : failed.findIndex((d) => d.recipientKey > after);
      const deliveries = start < 0 ? [] : failed.slice(start, start + limit);
      return { deliveries, last: deliveries.length === limit ? deliveries.at(-1)?.recipientKey : undefined };
    },
    jobRecipients: async (_ref, deliveries) => deliveries.map((delivery) => delivery.recipient),
    async requeue(_ref, deliveries, _now, held) {
      if (options.deletedBeforeRecord) return { gone: true };
      const moved = new Set(deliveries.map((delivery) => delivery.recipientKey));
      failed = failed.filter((delivery) => !moved.has(delivery.recipientKey));
      run.recipients = { ...run.recipients, failed: run.recipients.failed - moved.size };
      return { gone: false, moved: moved.size, keyDone: held !== undefined };
    },
    claimKey: async (deploymentId, claim) => ({ held: { deploymentId, claim, owner: 'o' } }),
    completeKey: async () => {},
    releaseKey: async () => {},
    settle: async () => ({ ...run, status: run.recipients.failed === 0 ? 'dispatched' : run.status }),
    isLive: async () => {
      pages++;
      return options.deletedAfterPages === undefined || pages <= options.deletedAfterPages;
    },
  };
  const sink = { send: async (jobs: readonly DeliveryJob[]) => void sent.push([...jobs]) };
  return { store, sink, sent, runReads, pageLimits, failedLeft: () => failed.length };
}

const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (caught: unknown) => caught as Error,
  );

describe('retryRun', () => {
  it('queues every failed delivery again, as the same job with the next attempt', async () => {
    const { store, sink, sent, failedLeft } = world({ failed: 3 });
    const result = await retryRun(store, sink, ref, { now, audit: testAudit });
    expect(result.queued).toBe(3);
    expect(result.run).toMatchObject({ status: 'dispatched', recipients: { failed: 0 } });
    expect(sent.flat().map((job) => [job.jobId, job.attempt])).toEqual([
      [failedDelivery(1).jobId, 2],
      [failedDelivery(2).jobId, 2],
      [failedDelivery(3).jobId, 2],
    ]);
    expect(sent.flat()[0]?.recipient).toEqual(failedDelivery(1).recipient);
    expect(failedLeft()).toBe(0);
  });

  it('answers the run as it is when nothing failed', async () => {
    const { store, sink, sent } = world({ failed: 0 });
    expect(await retryRun(store, sink, ref, { now, audit: testAudit })).toEqual({
      run: expect.objectContaining({ runId, status: 'completed_with_failures' }),
      queued: 0,
    });
    expect(sent).toEqual([]);
  });

  it('works in pages of 96 and queues at most 1000 in one request', async () => {
    const { store, sink, sent, pageLimits, failedLeft } = world({ failed: 1100 });
    const result = await retryRun(store, sink, ref, { now, audit: testAudit });
    expect(result.queued).toBe(1000);
    expect(sent.map((jobs) => jobs.length)).toEqual([...Array(10).fill(96), 40]);
    expect(pageLimits).toEqual([...Array(10).fill(96), 40]);
    expect(failedLeft()).toBe(100);
    expect(result.run.recipients.failed).toBe(100);
  });

  it('starts no new page with three seconds or less left', async () => {
    let left = 10_000;
    const { store, sink, sent } = world({ failed: 300 });
    const result = await retryRun(store, sink, ref, {
      now,
      audit: testAudit,
      deadline: {
        remainingMs: () => {
          left -= 3_500;
          return left;
        },
      },
    });
    // 6,500 ms left after the first page, 3,000 after the second: no third.
    expect(sent.length).toBe(2);
    expect(result.queued).toBe(192);
  });

  it('does not know a run id of another form, an unknown run, or a run whose notification is gone', async () => {
    const cases = [
      [{ ...ref, runId: 'nope' }, world({ failed: 1 })],
      [ref, world({ failed: 1, run: null })],
      [ref, world({ failed: 1, notificationGone: true })],
    ] as const;
    for (const [asked, { store, sink, sent }] of cases) {
      const error = await errorOf(retryRun(store, sink, asked, { now, audit: testAudit }));
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error?.message).toBe(`Run ${asked.runId} of notification 700 was not found`);
      expect(sent).toEqual([]);
    }
  });

  it('reads nothing for a run id of a form the service never issues', async () => {
    const { store, sink, runReads } = world({ failed: 1 });
    await errorOf(retryRun(store, sink, { ...ref, runId: 'nope' }, { now, audit: testAudit }));
    expect(runReads).toEqual([]);
  });

  it('sends nothing when the failed deliveries were queued again by another request first', async () => {
    const { store, sink, sent } = world({
      failed: 0,
      run: { recipients: { ...noRecipients(), queued: 2, failed: 2 } },
    });
    expect((await retryRun(store, sink, ref, { now, audit: testAudit })).queued).toBe(0);
    expect(sent).toEqual([]);
  });

  it('refuses while the dashboard is unpublished or gone', async () => {
    for (const gone of [undefined, { ...dashboard, published: false }]) {
      const { store, sink, sent } = world({ failed: 1, dashboard: gone });
      const error = await errorOf(retryRun(store, sink, ref, { now, audit: testAudit }));
      expect(error).toBeInstanceOf(ConflictError);
      expect(error?.message).toBe(
        'The dashboard is unpublished or gone: nothing can be delivered until it is back',
      );
      expect(sent).toEqual([]);
    }
  });

  it('answers 404 having sent nothing when the notification is deleted before its first page leaves', async () => {
    const { store, sink, sent } = world({ failed: 300, deletedAfterPages: 0 });
    const error = await errorOf(retryRun(store, sink, ref, { now, audit: testAudit }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(sent).toEqual([]);
  });

  it('sends nothing more once the notification is deleted under it, and answers the run it sent a page of', async () => {
    const { store, sink, sent } = world({ failed: 300, deletedAfterPages: 1 });
    const result = await retryRun(store, sink, ref, { now, audit: testAudit });
    expect(result.queued).toBe(96);
    expect(sent.length).toBe(1);
  });

  it('answers the run, not 404, when the delete lands between its check and its record', async () => {
    const { store, sink, sent } = world({ failed: 3, deletedBeforeRecord: true });
    const result = await retryRun(store, sink, ref, { now, audit: testAudit });
    expect(result).toMatchObject({ queued: 0, run: { runId } });
    expect(sent.length).toBe(1);
  });
});
