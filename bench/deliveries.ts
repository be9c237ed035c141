import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dispatchPass, sendNow } from '#lib/domain/dispatch';
import { reportOutcome } from '#lib/domain/outcomes';
import { retryRun } from '#lib/domain/retry';
import { schedulePlanner } from '#lib/domain/schedule-planning';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { notificationItems } from '#lib/store/notification-items';
import { outcomeStore } from '#lib/store/outcomes';
import { retryStore } from '#lib/store/retries';
import { currentRun } from '#lib/store/run-status';
import { dispatchStore } from '#lib/store/runs';
import { sendNowStore } from '#lib/store/send-now';
import { billedWriteUnits } from './billing.ts';
import {
  OUTCOME_COMPLETING_REQUESTS,
  OUTCOME_REQUESTS,
  OUTCOME_WRITE_UNITS,
  retryRequests,
} from './budgets.ts';
import { withOutbox } from './dispatch.ts';
import { watch } from './dynamodb.ts';
import { embedRecipient, notificationOf, putItems } from './fixture.ts';
import { type Bench, part, section } from './report.ts';
import { ms, round, timed } from './stats.ts';

/**
 * Delivery outcomes and retry through the domain and the stores the functions use (the HTTP chain in
 * front of them is measured per request): a report's requests and write units, on a run of one
 * recipient and on a run of many, must not grow with the run; many reports of one run at once must
 * leave its counts exact; a retry of many failed deliveries takes requests per page.
 */

const FIRST_ID = 600_000;
const delivered = { status: 'delivered', attempt: 1 } as const;
const failed = { status: 'failed', error: 'bench', attempt: 1 } as const;

/** A notification with `size` recipients, sent now and dispatched by passes, as deployed: its run and jobs. */
async function sentRun(id: number, size: number, folder: string, sink: Parameters<typeof sendNow>[1]) {
  const notification = notificationOf(id);
  await putItems([
    ...notificationItems(notification),
    ...Array.from({ length: size }, (_, i) =>
      encodeRecipient(notification, embedRecipient('outcome', id * 10_000 + i, {}, 2_000_000)),
    ),
  ]);
  const { runId } = await sendNow(sendNowStore, sink, notification, { now: Date.now(), minIntervalMs: 0 });
  const ref = { deploymentId: 7, notificationId: id, runId };
  for (let passes = 0; (await currentRun(ref))?.status === 'dispatching'; passes++) {
    if (passes > 100) throw new Error('The run was not dispatched after 100 passes');
    await dispatchPass(dispatchStore, sink, {
      now: Date.now(),
      planner: schedulePlanner,
      misfireGraceMinutes: 60,
    });
  }
  const jobs = await Promise.all(
    (await readdir(folder)).map(async (file) => JSON.parse(await readFile(join(folder, file), 'utf8'))),
  );
  return { ref, jobIds: jobs.filter((job) => job.runId === runId).map((job) => job.jobId as string) };
}

async function oneReport(jobId: string | undefined) {
  const { work, calls } = await watch(() => reportOutcome(outcomeStore, jobId ?? '', delivered, Date.now()));
  return { ...work, billedWriteUnits: billedWriteUnits(calls) };
}

const measure = (recipients: number) =>
  withOutbox(async (sink, folder) => {
    const small = await sentRun(FIRST_ID, 1, folder, sink);
    const large = await sentRun(FIRST_ID + 1, recipients, folder, sink);
    // A report that completes its run settles it too (one more write): the small run's only report does.
    const reportSmallRun = await oneReport(small.jobIds[0]);
    const reportLargeRun = await oneReport(large.jobIds[0]);
    // Every other report of the large run at once: a quarter failed, the rest delivered.
    const rest = large.jobIds.slice(1);
    const concurrent = await timed(() =>
      Promise.all(
        rest.map((jobId, i) =>
          reportOutcome(outcomeStore, jobId, i % 4 === 0 ? failed : delivered, Date.now()),
        ),
      ),
    );
    const failures = rest.filter((_, i) => i % 4 === 0).length;
    const done = await currentRun(large.ref);
    const countsExact =
      done?.recipients.failed === failures &&
      done.recipients.delivered === recipients - failures &&
      done.status === 'completed_with_failures';
    // A run whose every delivery failed, retried in one request.
    const failing = await sentRun(FIRST_ID + 2, recipients, folder, sink);
    await Promise.all(failing.jobIds.map((jobId) => reportOutcome(outcomeStore, jobId, failed, Date.now())));
    const target = { deploymentId: 7, id: FIRST_ID + 2, runId: failing.ref.runId };
    const retry = await watch(() => timed(() => retryRun(retryStore, sink, target, { now: Date.now() })));
    const retried = recipients - retry.result.result.run.recipients.failed;
    return {
      reportSmallRun,
      reportLargeRun,
      concurrentReports: rest.length,
      concurrentMs: concurrent.ms,
      countsExact,
      retry: retry.work,
      retryMs: retry.result.ms,
      retried,
    };
  });

export async function deliveriesSection(bench: Bench) {
  const n = bench.smoke ? 200 : 1000;
  section(
    bench,
    'Delivery outcomes and retry: one report, many reports of one run at once, a retry of many failures',
  );
  const o = await part(bench, 'deliveries', () => measure(n));
  if (!o) return undefined;
  const { budgets } = bench;
  const [small, large] = [o.reportSmallRun, o.reportLargeRun];
  budgets.gate('outcome report: DynamoDB requests', large.requests, OUTCOME_REQUESTS, 'requests');
  budgets.gate(
    'outcome report completing its run: DynamoDB requests',
    small.requests,
    OUTCOME_COMPLETING_REQUESTS,
    'requests',
  );
  budgets.gate('outcome report: write units', large.billedWriteUnits, OUTCOME_WRITE_UNITS, 'WCU');
  budgets.gate(
    `outcome report: requests in a run of ${n} beyond a run of 1`,
    large.requests - (small.requests - 1),
    0,
    'requests',
  );
  budgets.show(`${o.concurrentReports} concurrent reports: time for all of them`, ms(o.concurrentMs));
  budgets.gate(`${o.concurrentReports} concurrent reports: counts wrong`, o.countsExact ? 0 : 1, 0, '');
  budgets.gate(
    `retry of ${n} failed deliveries: DynamoDB requests`,
    o.retry.requests,
    retryRequests(n),
    'requests',
  );
  budgets.show(`retry of ${n}: write units (meter)`, round(o.retry.writeUnits, 1), 'WCU');
  budgets.show(`retry of ${n}: time`, ms(o.retryMs));
  budgets.gate(`retry of ${n}: deliveries left failed`, n - o.retried, 0, '');
  return { recipients: n, ...o };
}
