import { deadlineIn } from '#lib/clock';
import { purgePass } from '#lib/domain/deletion/purge';
import { decideDeliveries, noRecipients, type RecipientRow, scheduledRunId } from '#lib/domain/runs/runs';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { encodeDelivery, encodeRun } from '#lib/store/codecs/runs';
import { purgeStore } from '#lib/store/deletion/purge-store';
import { PURGE_GRACE_MS } from '#lib/store/notifications/notification-guard';
import { dailyRun, salesDashboard } from '#test/support/domain-fixtures';
import { embedRecipient, putItems } from '#test/support/stored-items';
import { watch } from './dynamodb.ts';
import { notificationOf } from './fixture.ts';
import { type Bench, ms, section, timed } from './report.ts';
import type { Stack } from './stack.ts';

/**
 * A year of history (8,760 hourly runs of 100 recipients; `BENCH_HISTORY_RUNS` sets the runs) beside a
 * single run: the run list's first page and the delete must cost the same; the purge is timed.
 */

const HOUR_MS = 3_600_000;
const iso = (instant: number) => new Date(instant).toISOString();
/** Dashboard 70 of the demo fixture, shared with the recipients' tenant: every delivery is queued. */
const dashboard = salesDashboard({ sharedWithTenants: ['acme'] });

/** One run's items: the run and a delivery to each recipient row, as the dispatcher writes them. */
function runItems(notificationId: number, instant: number, rows: RecipientRow[]) {
  const [runId, scheduledFor, createdAt] = [scheduledRunId(instant), iso(instant), iso(instant + 2_000)];
  const recipients = { ...noRecipients(), queued: rows.length };
  const run = dailyRun({ runId, notificationId, scheduledFor, createdAt, status: 'dispatched', recipients });
  const { deliveries } = decideDeliveries(
    run,
    notificationOf(notificationId),
    dashboard,
    rows,
    new Map(),
    new Set(),
  );
  return [encodeRun(run), ...deliveries.map((delivery) => encodeDelivery(run, delivery))];
}

/** `count` embed recipients of a notification, written: the rows a run delivers to. */
async function recipientRows(id: number, count: number): Promise<RecipientRow[]> {
  const recipients = Array.from({ length: count }, (_, i) => embedRecipient('history', i, {}, 2_000_000));
  const items = recipients.map((recipient) =>
    encodeRecipient({ deploymentId: 7, id, dashboardId: 70 }, recipient),
  );
  await putItems(items);
  return recipients.map((recipient, i) => ({ key: String(items[i]?.sk), recipient }));
}

/** The recipients and the runs, 200 runs at a time so that memory holds one slice of the year. */
async function fill(id: number, size: { recipients: number; runs: number }) {
  const [rows, now] = [await recipientRows(id, size.recipients), Date.now()];
  for (let first = 0; first < size.runs; first += 200) {
    const runs = Array.from({ length: Math.min(200, size.runs - first) }, (_, i) => first + i + 1);
    await putItems(runs.flatMap((hoursAgo) => runItems(id, now - hoursAgo * HOUR_MS, rows)));
  }
}

/** Purge passes as the deployed function runs them (60 s each), until one finds nothing left to delete. */
async function purgeUntilEmpty() {
  while ((await purgePass(purgeStore, { now: Date.now(), deadline: deadlineIn(60_000) })).deleted > 0);
}

async function measure(bench: Bench, stack: Stack, size: { recipients: number; runs: number }) {
  const base = '/v1/deployments/7/notifications';
  const create = async () =>
    (await stack.call('POST', base, 201, { dashboardId: 70, scheduleType: 'HOURLY', minute: 0 })).body.id;
  const [single, year, warmUp] = [await create(), await create(), await create()];
  // Each function's first request loads it and looks its caller up: not what is measured here.
  await stack.call('GET', `${base}/${warmUp}/runs`, 200);
  await stack.call('DELETE', `${base}/${warmUp}`, 204);
  await putItems(runItems(single, Date.now() - HOUR_MS, await recipientRows(single, 1)));
  await fill(year, size);
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
  const { show, gate } = bench.figures.about('year of history');
  const more = (what: 'requests' | 'readUnits', of: typeof firstPage) => of.year[what] - of.single[what];
  gate('first page of runs, requests more than 1 run', more('requests', firstPage), 0);
  gate('first page of runs, read units more than 1 run', more('readUnits', firstPage), 0);
  gate('delete, requests more than 1 run', more('requests', deleted), 0);
  show('purge until the partition is empty, after the delete', ms((await timed(purgeUntilEmpty)).ms));
  // The tombstones go once the grace is over: a pass as of then.
  await purgePass(purgeStore, { now: Date.now() + PURGE_GRACE_MS + 1_000 });
}

export async function historySection(bench: Bench, stack: Stack) {
  const runs = Number(process.env.BENCH_HISTORY_RUNS ?? 8_760);
  const size = bench.smoke ? { recipients: 20, runs: 50 } : { recipients: 100, runs };
  const title = `A year of history: ${size.recipients} recipients × ${size.runs} hourly runs`;
  await section(bench, `${title}, its run list and its delete`, () => measure(bench, stack, size));
}
