import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { reportOutcome } from '#lib/domain/outcomes';
import { retryRun } from '#lib/domain/retry';
import { outcomeStore } from '#lib/store/outcomes';
import { retryStore } from '#lib/store/retries';
import { currentRun } from '#lib/store/run-status';
import { billedWriteUnits } from './billing.ts';
import { sendAndDispatch, withOutbox } from './dispatch.ts';
import { watch } from './dynamodb.ts';
import { notificationOf } from './fixture.ts';
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
const report = (jobId: string, outcome: typeof delivered | typeof failed) =>
  reportOutcome(outcomeStore, jobId, outcome, Date.now());

const measure = (recipients: number) =>
  withOutbox(async (sink, folder) => {
    /** A notification with `size` recipients, sent now and dispatched: its run and its jobs' ids. */
    const sentRun = async (k: number, size: number) => {
      const { ref } = await sendAndDispatch(notificationOf(FIRST_ID + k), size, (k + 3) * 1_000_000, sink);
      const files = await readdir(folder);
      const jobs = await Promise.all(
        files.map(async (f) => JSON.parse(await readFile(join(folder, f), 'utf8'))),
      );
      return { ref, jobIds: jobs.filter((job) => job.runId === ref.runId).map((job): string => job.jobId) };
    };
    const oneReport = async (jobId = '') => {
      const { work, calls } = await watch(() => report(jobId, delivered));
      return { ...work, billedWriteUnits: billedWriteUnits(calls) };
    };
    const [small, large] = [await sentRun(0, 1), await sentRun(1, recipients)];
    // A report that completes its run settles it too (one more write): the small run's only report does.
    const [reportSmallRun, reportLargeRun] = [
      await oneReport(small.jobIds[0]),
      await oneReport(large.jobIds[0]),
    ];
    // Every other report of the large run at once: a quarter failed, the rest delivered.
    const rest = large.jobIds.slice(1);
    const outcomes = rest.map((jobId, i) => [jobId, i % 4 === 0 ? failed : delivered] as const);
    const concurrent = await timed(() =>
      Promise.all(outcomes.map(([jobId, outcome]) => report(jobId, outcome))),
    );
    const failures = outcomes.filter(([, outcome]) => outcome === failed).length;
    const done = await currentRun(large.ref);
    const counts = done?.recipients;
    const countsExact =
      counts?.failed === failures &&
      counts.delivered === recipients - failures &&
      done?.status === 'completed_with_failures';
    // A run whose every delivery failed, retried in one request.
    const failing = await sentRun(2, recipients);
    await Promise.all(failing.jobIds.map((jobId) => report(jobId, failed)));
    const { deploymentId, notificationId: id, runId } = failing.ref;
    const retry = await watch(() =>
      timed(() => retryRun(retryStore, sink, { deploymentId, id, runId }, { now: Date.now() })),
    );
    const retried = recipients - retry.result.result.run.recipients.failed;
    return {
      ...{ reportSmallRun, reportLargeRun, concurrentReports: rest.length, concurrentMs: concurrent.ms },
      ...{ countsExact, retry: retry.work, retryMs: retry.result.ms, retried },
    };
  });

export async function deliveriesSection(bench: Bench) {
  const n = bench.smoke ? 200 : 1000;
  section(
    bench,
    'Delivery outcomes and retry: one report, many reports of one run at once, a retry of many failures',
  );
  const o = await part(bench, 'deliveries', () => measure(n));
  if (!o) return;
  const { show, gate } = bench.budgets;
  const [small, large] = [o.reportSmallRun, o.reportLargeRun];
  gate('outcome report: DynamoDB requests', large.requests, 2, 'requests');
  gate('outcome report completing its run: DynamoDB requests', small.requests, 3, 'requests');
  gate('outcome report: write units', large.billedWriteUnits, 4, 'WCU');
  gate(
    `outcome report: requests in a run of ${n} beyond a run of 1`,
    large.requests - (small.requests - 1),
    0,
  );
  show(`${o.concurrentReports} concurrent reports: time for all of them`, ms(o.concurrentMs));
  gate(`${o.concurrentReports} concurrent reports: counts wrong`, o.countsExact ? 0 : 1, 0);
  // Per page of 99 failed deliveries: the page, the embed rows, the race guard's read, a transaction.
  gate(
    `retry of ${n} failed deliveries: DynamoDB requests`,
    o.retry.requests,
    6 + 4 * Math.ceil(n / 99),
    'requests',
  );
  show(`retry of ${n}: write units (meter)`, round(o.retry.writeUnits, 1), 'WCU');
  show(`retry of ${n}: time`, ms(o.retryMs));
  gate(`retry of ${n}: deliveries left failed`, n - o.retried, 0);
}
