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

const measure = (bench: Bench, n: number) =>
  withOutbox(async (sink, folder) => {
    const { show, gate } = bench.figures;
    /** A notification with `size` recipients, sent now and dispatched: its run and its jobs' ids. */
    const sentRun = async (k: number, size: number) => {
      const { ref } = await sendAndDispatch(notificationOf(FIRST_ID + k), size, (k + 3) * 1_000_000, sink);
      const read = (file: string) => readFile(join(folder, file), 'utf8').then(JSON.parse);
      const jobs = await Promise.all((await readdir(folder)).map(read));
      return { ref, jobIds: jobs.filter((job) => job.runId === ref.runId).map((job): string => job.jobId) };
    };
    const [small, large] = [await sentRun(0, 1), await sentRun(1, n)];
    // A report that completes its run settles it too (one more write): the small run's only report does.
    const completing = await watch(() => report(small.jobIds[0] ?? '', delivered));
    const one = await watch(() => report(large.jobIds[0] ?? '', delivered));
    gate('outcome report: DynamoDB requests', one.work.requests, 2, 'requests');
    gate('outcome report completing its run: DynamoDB requests', completing.work.requests, 3, 'requests');
    gate('outcome report: write units', billedWriteUnits(one.calls), 4, 'WCU');
    const beyond = one.work.requests - (completing.work.requests - 1);
    gate(`outcome report: requests in a run of ${n} beyond a run of 1`, beyond, 0);

    // Every other report of the large run at once: a quarter failed, the rest delivered.
    const outcomes = large.jobIds
      .slice(1)
      .map((jobId, i) => [jobId, i % 4 === 0 ? failed : delivered] as const);
    const all = await timed(() => Promise.all(outcomes.map(([jobId, outcome]) => report(jobId, outcome))));
    const failures = outcomes.filter(([, outcome]) => outcome === failed).length;
    const done = await currentRun(large.ref);
    const exact = done?.status === 'completed_with_failures' && done.recipients.failed === failures;
    show(`${outcomes.length} concurrent reports: time for all of them`, ms(all.ms));
    const countsExact = exact && done.recipients.delivered === n - failures;
    gate(`${outcomes.length} concurrent reports: counts wrong`, countsExact ? 0 : 1, 0);

    // A run whose every delivery failed, retried in one request.
    const failing = await sentRun(2, n);
    await Promise.all(failing.jobIds.map((jobId) => report(jobId, failed)));
    const { deploymentId, notificationId: id, runId } = failing.ref;
    const retried = () => retryRun(retryStore, sink, { deploymentId, id, runId }, { now: Date.now() });
    const retry = await watch(() => timed(retried));
    // Per page of 99 failed deliveries: the page, the embed rows, the race guard's read, a transaction.
    gate(
      `retry of ${n} failed deliveries: DynamoDB requests`,
      retry.work.requests,
      6 + 4 * Math.ceil(n / 99),
    );
    show(`retry of ${n}: write units (meter)`, round(retry.work.writeUnits, 1), 'WCU');
    show(`retry of ${n}: time`, ms(retry.result.ms));
    gate(`retry of ${n}: deliveries left failed`, retry.result.result.run.recipients.failed, 0);
  });

export async function deliveriesSection(bench: Bench) {
  const n = bench.smoke ? 200 : 1000;
  section(bench, 'Delivery outcomes and retry: one report, many reports of one run at once, a retry of many');
  await part(bench, 'deliveries', () => measure(bench, n));
}
