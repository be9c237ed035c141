import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomHex } from '#lib/clock';
import { dispatchPass, sendNow } from '#lib/domain/dispatch';
import type { Notification } from '#lib/domain/notification';
import { reportOutcome } from '#lib/domain/outcomes';
import type { StoredRecipient } from '#lib/domain/recipients-resolution';
import { retryRun } from '#lib/domain/retry';
import { schedulePlanner } from '#lib/domain/schedule-planning';
import { outboxSink } from '#lib/jobs/outbox-sink';
import { batchWriteAll } from '#lib/store/batch';
import { documentClient } from '#lib/store/client';
import { encodeNotification } from '#lib/store/codecs/notifications';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { outcomeStore } from '#lib/store/outcomes';
import { retryStore } from '#lib/store/retries';
import { currentRun } from '#lib/store/run-status';
import { dispatchStore } from '#lib/store/runs';
import { sendNowStore } from '#lib/store/send-now';
import { billedWriteUnits } from './billing.ts';
import { type DynamoWork, metered } from './per-request.ts';
import { recordDynamoDb } from './recorder.ts';

/**
 * Delivery outcomes and retry against the local engine, through the domain and the stores the
 * functions use (the HTTP chain in front of them is measured per request elsewhere). A report's
 * DynamoDB requests and write units are deterministic and must not grow with the run: they are taken
 * on a run of one recipient and on a run of many, and gated. Many reports of one run at once, and a
 * retry of many failed deliveries, report their time; the retry's requests are gated.
 */

export interface DeliveryFigures {
  recipients: number;
  /** One report in a run of one recipient, and one in the large run (not its last). */
  reportSmallRun: DynamoWork & { billedWriteUnits: number };
  reportLargeRun: DynamoWork & { billedWriteUnits: number };
  concurrentReports: number;
  concurrentMs: number;
  countsExact: boolean;
  retried: number;
  retry: DynamoWork;
  retryMs: number;
}

const FIRST_ID = 600_000;
const NINE = Date.parse('2026-11-23T09:00:00Z');

const notificationOf = (id: number): Notification =>
  ({
    id,
    deploymentId: 7,
    dashboardId: 70,
    scheduleType: 'DAILY',
    minute: 0,
    hour: 9,
    timezone: 'UTC',
    isEnabled: false,
    notificationEnabled: true,
    notificationFormat: 'png',
    filters: null,
    timeGrains: null,
  }) as Notification;

const embedRecipient = (i: number): StoredRecipient => ({
  type: 'EMBED_USER',
  embedTenantName: 'acme',
  normalizedExternalId: `outcome-${i}@example.com`,
  externalId: `outcome-${i}@example.com`,
  embedUserId: 2_000_000 + i,
  email: `outcome-${i}@example.com`,
  properties: {},
});

/** A notification with `size` recipients and one sent run of it: its jobs' ids. */
async function sentRun(
  id: number,
  size: number,
  outbox: string,
): Promise<{ runId: string; jobIds: string[] }> {
  const notification = notificationOf(id);
  await batchWriteAll(
    [
      { PutRequest: { Item: encodeNotification(notification, 0, new Date(NINE).toISOString()) } },
      ...Array.from({ length: size }, (_, i) => ({
        PutRequest: { Item: encodeRecipient(notification, embedRecipient(id * 10_000 + i)) },
      })),
    ],
    { concurrency: 16 },
  );
  const sink = outboxSink(outbox);
  const run = await sendNow(sendNowStore, sink, notification, {
    randomHex,
    now: Date.now(),
    minIntervalMs: 0,
  });
  // Past one page a send-now hands the run to the dispatcher: passes finish it, as deployed.
  const ref = { deploymentId: 7, notificationId: id, runId: run.runId };
  for (let passes = 0; (await currentRun(ref))?.status === 'dispatching'; passes++) {
    if (passes > 100) throw new Error('The run was not dispatched after 100 passes');
    await dispatchPass(dispatchStore, sink, {
      randomHex,
      now: Date.now(),
      planner: schedulePlanner,
      misfireGraceMinutes: 60,
    });
  }
  const jobs = await Promise.all(
    (await readdir(outbox)).map(async (file) => JSON.parse(await readFile(join(outbox, file), 'utf8'))),
  );
  return {
    runId: run.runId,
    jobIds: jobs.filter((job) => job.runId === run.runId).map((job) => job.jobId as string),
  };
}

async function oneReport(jobId: string): Promise<DynamoWork & { billedWriteUnits: number }> {
  const recorder = recordDynamoDb(documentClient());
  try {
    const { work, result } = await metered(() =>
      recorder.record(() =>
        reportOutcome(outcomeStore, jobId, { status: 'delivered', attempt: 1 }, Date.now()),
      ),
    );
    return { ...work, billedWriteUnits: billedWriteUnits(result.calls) };
  } finally {
    recorder.detach();
  }
}

export async function measureDeliveries(recipients: number): Promise<DeliveryFigures> {
  const outbox = await mkdtemp(join(tmpdir(), 'bench-outcomes-'));
  try {
    const small = await sentRun(FIRST_ID, 1, outbox);
    const large = await sentRun(FIRST_ID + 1, recipients, outbox);
    // A report that completes its run settles it too (one more write): the small run's only report does.
    const reportSmallRun = await oneReport(small.jobIds[0] as string);
    const reportLargeRun = await oneReport(large.jobIds[0] as string);

    // Every other report of the large run at once: a quarter failed, the rest delivered.
    const rest = large.jobIds.slice(1);
    const t0 = performance.now();
    await Promise.all(
      rest.map((jobId, i) =>
        reportOutcome(
          outcomeStore,
          jobId,
          i % 4 === 0
            ? { status: 'failed', error: 'bench', attempt: 1 }
            : { status: 'delivered', attempt: 1 },
          Date.now(),
        ),
      ),
    );
    const concurrentMs = performance.now() - t0;
    const failed = rest.filter((_, i) => i % 4 === 0).length;
    const ref = { deploymentId: 7, notificationId: FIRST_ID + 1, runId: large.runId };
    const done = await currentRun(ref);
    const countsExact =
      done?.recipients.failed === failed &&
      done.recipients.delivered === recipients - failed &&
      done.status === 'completed_with_failures';

    // A run whose every delivery failed, retried in one request.
    const failing = await sentRun(FIRST_ID + 2, recipients, outbox);
    await Promise.all(
      failing.jobIds.map((jobId) =>
        reportOutcome(outcomeStore, jobId, { status: 'failed', error: 'bench', attempt: 1 }, Date.now()),
      ),
    );
    const retryOutbox = await mkdtemp(join(tmpdir(), 'bench-retry-'));
    let retryMs = 0;
    let retried = 0;
    const { work: retry } = await metered(async () => {
      const t1 = performance.now();
      const { run } = await retryRun(
        retryStore,
        outboxSink(retryOutbox),
        { deploymentId: 7, id: FIRST_ID + 2, runId: failing.runId },
        { now: Date.now() },
      );
      retryMs = performance.now() - t1;
      retried = recipients - run.recipients.failed;
    });
    await rm(retryOutbox, { recursive: true, force: true });
    return {
      recipients,
      reportSmallRun,
      reportLargeRun,
      concurrentReports: rest.length,
      concurrentMs,
      countsExact,
      retried,
      retry,
      retryMs,
    };
  } finally {
    await rm(outbox, { recursive: true, force: true });
  }
}
