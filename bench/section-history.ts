import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type PurgeStore, purgePass } from '#lib/domain/purge';
import { type Run, scheduledRunId } from '#lib/domain/runs';
import { batchWriteAll, type WriteRequest } from '#lib/store/batch';
import { documentClient, tableName } from '#lib/store/client';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { encodeDelivery, encodeRun } from '#lib/store/codecs/runs';
import { keys } from '#lib/store/keys';
import { PURGE_GRACE_MS } from '#lib/store/notification-guard';
import { purgeStore } from '#lib/store/purge-store';
import { ADMIN_KEY } from './fixture.ts';
import type { LocalStack } from './local-stack.ts';
import { type Bench, log, part, section } from './output.ts';
import { type DynamoWork, expectStatus, metered } from './per-request.ts';
import { table } from './table.ts';

/**
 * A year of history: one notification with 100 recipients fired hourly for a year (8,760 runs and
 * 876,000 deliveries, written straight into the table in parallel BatchWrites), beside one with a
 * single run. Its run list's first page must cost what the single run's does, and its delete must
 * take the same requests; how long the background purge takes to empty the partition is reported.
 * `BENCH_HISTORY_RUNS` sets the number of runs (the full run's default: 8,760).
 */

const HOUR_MS = 3_600_000;
const FULL = { recipients: 100, runs: Number(process.env.BENCH_HISTORY_RUNS ?? 8_760) };
const SMOKE = { recipients: 20, runs: 50 };
const FILL_CONCURRENCY = 16;
const PROGRESS_MS = 20_000;
const authorization = `Bearer ${ADMIN_KEY}`;
const base = '/v1/deployments/7/notifications';

export interface HistoryFigures {
  recipients: number;
  runs: number;
  items: number;
  fillSeconds: number;
  /** First page of runs (`first=1`), the year against the single run. */
  firstPage: { year: DynamoWork; single: DynamoWork };
  /** The default page (`first=100`) of the year, for reference. */
  defaultPage: DynamoWork;
  deleteRequest: { year: DynamoWork; single: DynamoWork };
  /** From the delete's answer until the partition held nothing. */
  purgeSeconds: number;
  purgedItems: number;
}

/** Prints how far a long task has come, at least every PROGRESS_MS. */
function progress(what: string, total: number): { add: (n: number) => void; stop: () => void } {
  const started = Date.now();
  let done = 0;
  const timer = setInterval(() => {
    const seconds = (Date.now() - started) / 1000;
    log(
      `  ${what}: ${done.toLocaleString('en')} of ${total.toLocaleString('en')} items, ${seconds.toFixed(0)} s`,
    );
  }, PROGRESS_MS);
  return {
    add: (n) => {
      done += n;
    },
    stop: () => clearInterval(timer),
  };
}

async function createNotification(stack: LocalStack): Promise<number> {
  const reply = await stack.request('POST', base, {
    authorization,
    body: { dashboardId: 70, scheduleType: 'HOURLY', minute: 0 },
  });
  expectStatus(reply, 201, 'create a notification');
  return JSON.parse(reply.text).id;
}

const hourlyRun = (notificationId: number, instant: number): Run => ({
  runId: scheduledRunId(instant),
  deploymentId: 7,
  notificationId,
  trigger: 'schedule',
  scheduledFor: new Date(instant).toISOString(),
  createdAt: new Date(instant + 2_000).toISOString(),
  status: 'dispatched',
  skipReason: null,
  recipients: { queued: 0, skipped: 0 },
});

/** One run's items: the run and a delivery to each recipient, as the dispatcher writes them. */
function runItems(notificationId: number, instant: number, recipients: number): WriteRequest[] {
  const run = { ...hourlyRun(notificationId, instant), recipients: { queued: recipients, skipped: 0 } };
  const deliveries = Array.from({ length: recipients }, (_, i) => ({
    PutRequest: {
      Item: encodeDelivery(run, {
        recipientKey: `RECIPIENT#EMBED_USER#acme#history-${i}%40example.com`,
        recipient: {
          type: 'EMBED_USER' as const,
          embedTenantName: 'acme',
          externalId: `history-${i}@example.com`,
          embedUserId: 2_000_000 + i,
          email: `history-${i}@example.com`,
        },
        status: 'queued' as const,
        reason: null,
        jobId: `${run.runId}-${i}`,
      }),
    },
  }));
  return [{ PutRequest: { Item: encodeRun(run) } }, ...deliveries];
}

async function fill(notificationId: number, size: { recipients: number; runs: number }): Promise<number> {
  const notification = { deploymentId: 7, id: notificationId, dashboardId: 70 };
  const rows: WriteRequest[] = Array.from({ length: size.recipients }, (_, i) => ({
    PutRequest: {
      Item: encodeRecipient(notification, {
        type: 'EMBED_USER',
        embedTenantName: 'acme',
        normalizedExternalId: `history-${i}@example.com`,
        externalId: `history-${i}@example.com`,
        embedUserId: 2_000_000 + i,
        email: `history-${i}@example.com`,
        properties: {},
      }),
    },
  }));
  await batchWriteAll(rows);
  const total = size.runs * (size.recipients + 1);
  const shown = progress('writing the history', total);
  const now = Date.now();
  // Runs a few hundred at a time, so memory holds one slice of the year, not all of it.
  const RUNS_PER_SLICE = 200;
  try {
    for (let first = 0; first < size.runs; first += RUNS_PER_SLICE) {
      const slice = Array.from({ length: Math.min(RUNS_PER_SLICE, size.runs - first) }, (_, i) =>
        runItems(notificationId, now - (first + i + 1) * HOUR_MS, size.recipients),
      ).flat();
      await batchWriteAll(slice, { concurrency: FILL_CONCURRENCY });
      shown.add(slice.length);
    }
  } finally {
    shown.stop();
  }
  return total + size.recipients;
}

async function partitionIsEmpty(notificationId: number): Promise<boolean> {
  const { Items = [] } = await documentClient().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.notificationPartition(7, notificationId) },
      ConsistentRead: true,
      Limit: 1,
    }),
  );
  return Items.length === 0;
}

/** Purge passes as the deployed function runs them (60 s each), until the partition is empty. */
async function purgeUntilEmpty(
  notificationId: number,
  items: number,
): Promise<{ seconds: number; deleted: number }> {
  const started = Date.now();
  const shown = progress('purging', items);
  let deleted = 0;
  const counting: PurgeStore = {
    ...purgeStore,
    deleteSome: async (ref, limit) => {
      const n = await purgeStore.deleteSome(ref, limit);
      shown.add(n);
      return n;
    },
  };
  try {
    while (!(await partitionIsEmpty(notificationId))) {
      const deadline = Date.now() + 60_000;
      deleted += (
        await purgePass(counting, { now: Date.now(), remainingTimeMs: () => deadline - Date.now() })
      ).deleted;
    }
  } finally {
    shown.stop();
  }
  const seconds = (Date.now() - started) / 1000;
  // The tombstones go once the grace is over: a pass as of then.
  await purgePass(purgeStore, { now: Date.now() + PURGE_GRACE_MS + 1_000 });
  return { seconds, deleted };
}

async function measure(bench: Bench, stack: LocalStack): Promise<HistoryFigures> {
  const size = bench.smoke ? SMOKE : FULL;
  const single = await createNotification(stack);
  const year = await createNotification(stack);
  // Each function's first request loads it and looks its caller up: not what is measured here.
  const warmUp = await createNotification(stack);
  expectStatus(await stack.request('GET', `${base}/${warmUp}/runs`, { authorization }), 200, 'list runs');
  expectStatus(await stack.request('DELETE', `${base}/${warmUp}`, { authorization }), 204, 'delete');
  await batchWriteAll(runItems(single, Date.now() - HOUR_MS, 1));
  const started = Date.now();
  const items = await fill(year, size);
  const fillSeconds = (Date.now() - started) / 1000;
  log(`  wrote ${items.toLocaleString('en')} items in ${fillSeconds.toFixed(1)} s`);

  const page = async (id: number, first: number) =>
    (
      await metered(async () => {
        const reply = await stack.request('GET', `${base}/${id}/runs?first=${first}`, { authorization });
        expectStatus(reply, 200, 'list runs');
      })
    ).work;
  const firstPage = { year: await page(year, 1), single: await page(single, 1) };
  const defaultPage = await page(year, 100);

  const remove = async (id: number) =>
    (
      await metered(async () => {
        expectStatus(await stack.request('DELETE', `${base}/${id}`, { authorization }), 204, 'delete');
      })
    ).work;
  const deleteRequest = { single: await remove(single), year: await remove(year) };
  const purged = await purgeUntilEmpty(year, items);
  return {
    ...size,
    items,
    fillSeconds,
    firstPage,
    defaultPage,
    deleteRequest,
    purgeSeconds: purged.seconds,
    purgedItems: purged.deleted,
  };
}

export async function historySection(bench: Bench, stack: LocalStack): Promise<HistoryFigures | undefined> {
  const size = bench.smoke ? SMOKE : FULL;
  section(
    `A year of history: ${size.recipients} recipients × ${size.runs.toLocaleString('en')} hourly runs, its run list and its delete`,
  );
  const figures = await part(bench, 'a year of history', () => measure(bench, stack));
  if (!figures) return undefined;
  const { budgets } = bench;
  const { firstPage, deleteRequest } = figures;
  budgets.atMost(
    'year of history: first page of runs, requests more than 1 run',
    firstPage.year.requests - firstPage.single.requests,
    0,
    'requests',
    true,
  );
  budgets.atMost(
    'year of history: first page of runs, read units more than 1 run',
    firstPage.year.readUnits - firstPage.single.readUnits,
    0,
    'RCU',
    true,
  );
  budgets.atMost(
    'year of history: delete, requests more than 1 run',
    deleteRequest.year.requests - deleteRequest.single.requests,
    0,
    'requests',
    true,
  );
  const row = (what: string, work: DynamoWork) => [what, work.requests, work.readUnits, work.writeUnits];
  log(
    table({
      headers: ['request', 'DynamoDB requests', 'read units', 'write units'],
      rows: [
        row('runs, first=1: the year', firstPage.year),
        row('runs, first=1: one run', firstPage.single),
        row('runs, first=100: the year', figures.defaultPage),
        row('DELETE: the year', deleteRequest.year),
        row('DELETE: one run', deleteRequest.single),
      ],
    }),
  );
  const rate = (items: number, seconds: number) =>
    `${Math.round(items / Math.max(seconds, 0.001)).toLocaleString('en')} items/s`;
  log(
    `\nWriting the ${figures.items.toLocaleString('en')} items took ${figures.fillSeconds.toFixed(1)} s (${rate(figures.items, figures.fillSeconds)}); ` +
      `the purge emptied the partition ${figures.purgeSeconds.toFixed(1)} s after the delete's answer ` +
      `(${figures.purgedItems.toLocaleString('en')} items, ${rate(figures.purgedItems, figures.purgeSeconds)}, DynamoDB Local on this machine).`,
  );
  return figures;
}
