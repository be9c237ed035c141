import { describe, expect, it } from 'vitest';
import {
  type OutcomeReport,
  type OutcomeStore,
  type RecordResult,
  reportOutcome,
  SETTLE_CHECK_AFTER_MS,
  settleStalledRuns,
} from '#lib/domain/runs/outcomes';
import { type DeliveryStatus, type Run, scheduledRunId } from '#lib/domain/runs/runs';
import { ConflictError, NotFoundError } from '#lib/errors';

/**
 * The outcome rules against a store of one delivery held in memory: `record` moves it only from the
 * state it is asked to move it from, as the table's conditional write does, and says otherwise how
 * the delivery is, as the refused write returns it.
 */

const runId = scheduledRunId(Date.UTC(2026, 10, 24, 9));
const deliveryId = 'a'.repeat(32);
const jobId = `7.700.${runId}.${deliveryId}`;
const now = Date.UTC(2026, 10, 24, 9, 5);
const completedRun = { runId, status: 'completed' } as Run;

function storeOf(
  delivery: { status: DeliveryStatus; attempts: number } | undefined,
  options: { runGone?: boolean; changesUnderfoot?: number } = {},
) {
  const calls: string[] = [];
  let changes = options.changesUnderfoot ?? 0;
  const store: OutcomeStore = {
    async record(_ref, from, report, at): Promise<RecordResult> {
      calls.push(`record ${from.status}@${from.attempts} → ${report.status} at ${at}`);
      if (options.runGone || !delivery) return { outcome: 'unknown' };
      // Another writer's change in between: the write is refused, the delivery as it is comes back.
      if (changes > 0) {
        changes--;
        return { outcome: 'changed', current: { ...delivery } };
      }
      if (delivery.status !== from.status || delivery.attempts !== from.attempts)
        return { outcome: 'changed', current: { ...delivery } };
      delivery = { status: report.status, attempts: delivery.attempts };
      return { outcome: 'recorded' };
    },
    async settle(_ref, at) {
      calls.push(`settle at ${at}`);
      return completedRun;
    },
  };
  return { store, calls, current: () => delivery };
}

const delivered: OutcomeReport = { status: 'delivered', attempt: 1 };

async function errorOf(promise: Promise<unknown>) {
  return promise.then(
    () => undefined,
    (caught: unknown) => caught as Error,
  );
}

/** A deployment without webhook endpoints: no report records an event. */
const noEvents = { subscribedTypes: async () => new Set<never>(), newEventId: () => 'evt_0' };

describe('reportOutcome', () => {
  it('records the first outcome of a queued attempt at once, and settles the run', async () => {
    const { store, calls, current } = storeOf({ status: 'queued', attempts: 1 });
    expect(await reportOutcome(store, jobId, delivered, now, noEvents)).toEqual({
      applied: true,
      completedRun,
    });
    expect(calls).toEqual([`record queued@1 → delivered at ${now}`, `settle at ${now}`]);
    expect(current()).toEqual({ status: 'delivered', attempts: 1 });
  });

  it('ignores a repeat, a stale attempt, and anything after delivered, and settles the run all the same', async () => {
    for (const [delivery, report] of [
      [{ status: 'delivered', attempts: 1 }, delivered],
      [
        { status: 'failed', attempts: 1 },
        { status: 'failed', attempt: 1 },
      ],
      [{ status: 'queued', attempts: 2 }, delivered],
      [
        { status: 'delivered', attempts: 2 },
        { status: 'failed', attempt: 2 },
      ],
    ] as const) {
      const { store, calls, current } = storeOf({ ...delivery });
      // The first sending of a repeat may have died between recording the last outcome and settling.
      expect(await reportOutcome(store, jobId, report, now, noEvents)).toEqual({
        applied: false,
        completedRun,
      });
      expect(calls.filter((call) => call.startsWith('settle'))).toEqual([`settle at ${now}`]);
      expect(current()).toEqual(delivery);
    }
  });

  it('applies a report once the delivery it raced with turns out to be queued at its attempt', async () => {
    const { store, calls } = storeOf({ status: 'queued', attempts: 2 }, { changesUnderfoot: 1 });
    expect(
      await reportOutcome(store, jobId, { status: 'failed', error: 'x', attempt: 2 }, now, noEvents),
    ).toEqual({
      applied: true,
      completedRun,
    });
    expect(calls).toEqual([
      `record queued@2 → failed at ${now}`,
      `record queued@2 → failed at ${now}`,
      `settle at ${now}`,
    ]);
  });

  it('asks to report again an attempt that is not queued yet', async () => {
    const { store } = storeOf({ status: 'queued', attempts: 1 });
    const error = await errorOf(
      reportOutcome(store, jobId, { status: 'delivered', attempt: 2 }, now, noEvents),
    );
    expect(error).toBeInstanceOf(ConflictError);
    expect(error?.message).toBe(
      `Attempt 2 of job ${jobId} is not queued (its current attempt is 1); report it again shortly`,
    );
  });

  it('gives up after five rounds of a delivery that keeps changing', async () => {
    const { store, calls } = storeOf({ status: 'queued', attempts: 1 }, { changesUnderfoot: 99 });
    const error = await errorOf(reportOutcome(store, jobId, delivered, now, noEvents));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error?.message).toBe(`Job ${jobId} keeps changing; report its outcome again`);
    expect(calls.filter((call) => call.startsWith('record'))).toHaveLength(5);
  });

  it('does not know a job id of another form, a delivery that is gone, or one whose run is gone', async () => {
    for (const [id, store] of [
      ['not-a-job', storeOf({ status: 'queued', attempts: 1 }).store],
      [jobId, storeOf(undefined).store],
      [jobId, storeOf({ status: 'queued', attempts: 1 }, { runGone: true }).store],
    ] as const) {
      const error = await errorOf(reportOutcome(store, id, delivered, now, noEvents));
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error?.message).toBe(`Delivery job ${id} was not found`);
    }
  });
});

describe('settleStalledRuns', () => {
  const run = (id: string, counts: { queued: number; delivered: number; failed: number }): Run =>
    ({ runId: id, status: 'dispatched', recipients: { skipped: 0, ...counts }, completedAt: null }) as Run;

  it('settles only the runs whose counts are complete, and returns those it completed', async () => {
    const pages = [
      [
        run('awaiting', { queued: 2, delivered: 1, failed: 0 }),
        run('done', { queued: 2, delivered: 2, failed: 0 }),
      ],
      [
        run('failed', { queued: 1, delivered: 0, failed: 1 }),
        run('raced', { queued: 1, delivered: 1, failed: 0 }),
      ],
    ];
    const asked: number[] = [];
    const settledIds: string[] = [];
    const completed = await settleStalledRuns(
      {
        async *awaitingSince(instant) {
          asked.push(instant);
          yield* pages;
        },
        async settle(stalled, at) {
          settledIds.push(stalled.runId);
          // Another writer settled `raced` first: its condition fails, the run comes back as given.
          if (stalled.runId === 'raced') return stalled;
          const status = stalled.recipients.failed > 0 ? 'completed_with_failures' : 'completed';
          return { ...stalled, status, completedAt: new Date(at).toISOString() };
        },
      },
      now,
    );
    expect(asked).toEqual([now - SETTLE_CHECK_AFTER_MS]);
    expect(settledIds).toEqual(['done', 'failed', 'raced']);
    expect(completed.map((r) => [r.runId, r.status])).toEqual([
      ['done', 'completed'],
      ['failed', 'completed_with_failures'],
    ]);
  });
});
