import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { deadlineIn } from '#lib/clock';
import { purgePass } from '#lib/domain/purge';
import { type Run, scheduledRunId } from '#lib/domain/runs';
import { documentClient, tableName } from '#lib/store/client';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { encodeDelivery, encodeRun } from '#lib/store/codecs/runs';
import * as keys from '#lib/store/item-keys';
import { PURGE_GRACE_MS } from '#lib/store/notification-guard';
import { purgeStore } from '#lib/store/purge-store';
import { watch } from './dynamodb.ts';
import { embedRecipient, putItems } from './fixture.ts';
import { type Bench, note, part, section, working } from './report.ts';
import type { Stack } from './stack.ts';
import { timed } from './stats.ts';

/**
 * A year of history: one notification with 100 recipients fired hourly for a year (8,760 runs and
 * 876,000 deliveries, written straight into the table), beside one with a single run. Its run list's
 * first page must cost what the single run's does, and its delete must take the same requests; how
 * long the background purge takes to empty the partition is reported. `BENCH_HISTORY_RUNS` sets the
 * number of runs (the full run's default: 8,760).
 */

const HOUR_MS = 3_600_000;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const historyUser = (i: number) => embedRecipient('history', i, {}, 2_000_000);

/** One run's items: the run and a delivery to each recipient, as the dispatcher writes them. */
function runItems(notificationId: number, instant: number, recipients: number) {
  const [scheduledFor, createdAt] = [
    new Date(instant).toISOString(),
    new Date(instant + 2_000).toISOString(),
  ];
  const counts = { queued: recipients, skipped: 0, delivered: 0, failed: 0 };
  const run: Run = {
    runId: scheduledRunId(instant),
    deploymentId: 7,
    notificationId,
    trigger: 'schedule',
    scheduledFor,
    createdAt,
    status: 'dispatched',
    skipReason: null,
    recipients: counts,
    completedAt: null,
  };
  const delivery = (i: number) => {
    const { type, embedTenantName, externalId, embedUserId, email } = historyUser(i);
    return encodeDelivery(run, {
      recipientKey: `RECIPIENT#EMBED_USER#acme#${encodeURIComponent(externalId)}`,
      recipient: { type, embedTenantName, externalId, embedUserId, email },
      deliveryId: String(i).padStart(32, '0'),
      status: 'queued',
      reason: null,
      jobId: `${run.runId}-${i}`,
      attempts: 1,
      error: null,
      updatedAt: createdAt,
    });
  };
  return [encodeRun(run), ...Array.from({ length: recipients }, (_, i) => delivery(i))];
}

/** The recipients and the runs, 200 runs at a time so that memory holds one slice of the year. */
async function fill(id: number, size: { recipients: number; runs: number }): Promise<number> {
  const recipient = (i: number) => encodeRecipient({ deploymentId: 7, id, dashboardId: 70 }, historyUser(i));
  await putItems(Array.from({ length: size.recipients }, (_, i) => recipient(i)));
  const total = size.runs * (size.recipients + 1);
  const now = Date.now();
  for (let first = 0; first < size.runs; first += 200) {
    const instants = Array.from(
      { length: Math.min(200, size.runs - first) },
      (_, i) => now - (first + i + 1) * HOUR_MS,
    );
    await putItems(instants.flatMap((instant) => runItems(id, instant, size.recipients)));
    working(`writing the history: ${(first + instants.length) * (size.recipients + 1)} of ${total} items`);
  }
  return total + size.recipients;
}

/** Purge passes as the deployed function runs them (60 s each), until the partition is empty: the items deleted. */
async function purgeUntilEmpty(notificationId: number) {
  const query = new QueryCommand({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.notificationPartition(7, notificationId) },
    ConsistentRead: true,
    Limit: 1,
  });
  let deleted = 0;
  while (((await documentClient().send(query)).Items ?? []).length > 0) {
    deleted += (await purgePass(purgeStore, { now: Date.now(), deadline: deadlineIn(60_000) })).deleted;
    working(`purging: ${deleted} items`);
  }
  return deleted;
}

async function measure(bench: Bench, stack: Stack, size: { recipients: number; runs: number }) {
  const base = '/v1/deployments/7/notifications';
  const hourly = { dashboardId: 70, scheduleType: 'HOURLY', minute: 0 };
  const create = async () => (await stack.call('POST', base, 201, hourly)).body.id;
  const [single, year, warmUp] = [await create(), await create(), await create()];
  // Each function's first request loads it and looks its caller up: not what is measured here.
  await stack.call('GET', `${base}/${warmUp}/runs`, 200);
  await stack.call('DELETE', `${base}/${warmUp}`, 204);
  await putItems(runItems(single, Date.now() - HOUR_MS, 1));
  const filled = await timed(() => fill(year, size));
  const metered = async (request: string, method: string, path: string, status: number) => {
    const { work } = await watch(() => stack.call(method, `${base}${path}`, status));
    const { show } = bench.figures.about(request);
    show('DynamoDB requests', work.requests);
    show('read units', work.readUnits);
    show('write units', work.writeUnits);
    return work;
  };
  const page = (of: string, id: number, first: number) =>
    metered(`runs, first=${first}: ${of}`, 'GET', `/${id}/runs?first=${first}`, 200);
  const firstPage = { year: await page('the year', year, 1), single: await page('one run', single, 1) };
  await page('the year', year, 100);
  const remove = (of: string, id: number) => metered(`DELETE: ${of}`, 'DELETE', `/${id}`, 204);
  const deleted = { single: await remove('one run', single), year: await remove('the year', year) };
  const { gate } = bench.figures.about('year of history');
  const more = (what: 'requests' | 'readUnits', of: typeof firstPage) => of.year[what] - of.single[what];
  gate('first page of runs, requests more than 1 run', more('requests', firstPage), 0);
  gate('first page of runs, read units more than 1 run', more('readUnits', firstPage), 0);
  gate('delete, requests more than 1 run', more('requests', deleted), 0);
  const purge = await timed(() => purgeUntilEmpty(year));
  // The tombstones go once the grace is over: a pass as of then.
  await purgePass(purgeStore, { now: Date.now() + PURGE_GRACE_MS + 1_000 });
  const rate = (items: number, ms: number) => `${Math.round((items * 1000) / Math.max(ms, 1))} items/s`;
  note(`Writing the ${filled.result} items took ${seconds(filled.ms)} (${rate(filled.result, filled.ms)}).`);
  const purged = `${purge.result} items, ${rate(purge.result, purge.ms)}, DynamoDB Local on this machine`;
  note(`The purge emptied the partition ${seconds(purge.ms)} after the delete's answer (${purged}).`);
}

export async function historySection(bench: Bench, stack: Stack) {
  const runs = Number(process.env.BENCH_HISTORY_RUNS ?? 8_760);
  const size = bench.smoke ? { recipients: 20, runs: 50 } : { recipients: 100, runs };
  const title = `A year of history: ${size.recipients} recipients × ${size.runs} hourly runs`;
  section(bench, `${title}, its run list and its delete`, true);
  await part(bench, 'a year of history', () => measure(bench, stack, size));
}
