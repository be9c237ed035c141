import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomHex } from '#lib/clock';
import { config } from '#lib/config';
import { dispatchPass, sendNow } from '#lib/domain/dispatch';
import type { Notification } from '#lib/domain/notification';
import { reportOutcome } from '#lib/domain/outcomes';
import { retryRun } from '#lib/domain/retry';
import { schedulePlanner } from '#lib/domain/schedule-planning';
import { outboxSink } from '#lib/jobs/outbox-sink';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { DUE_INDEX_SHARDS } from '#lib/store/keys';
import { notificationItems } from '#lib/store/notification-items';
import { outcomeStore } from '#lib/store/outcomes';
import { retryStore } from '#lib/store/retries';
import { currentRun } from '#lib/store/run-status';
import { dispatchStore } from '#lib/store/runs';
import { sendNowStore } from '#lib/store/send-now';
import { embedRecipient, putItems } from '#test/support/stored-items';
import { billedWriteUnits, describe, indexWriteUnits, watch } from './dynamodb.ts';
import { notificationOf } from './fixture.ts';
import { type Bench, ms, part, round, section, timed } from './report.ts';

/**
 * The dispatcher at scale, through the domain and the stores the worker uses: one pass with many
 * notifications due in the same minute (each with three recipients: a console user and two embed
 * users) at the deployed concurrency, and send-nows of many recipients finished by passes. Then the
 * deliveries' outcomes and retry, through the domain and the stores the functions use (the HTTP chain
 * in front is measured per request): a report's requests and write units must not grow with its run;
 * many reports of one run at once must leave its counts exact; a retry takes requests per page.
 */

/** Monday 2026-11-23, 09:00 UTC: the minute every notification of the pass is due. */
const NINE = Date.parse('2026-11-23T09:00:00Z');
/** A deployed dispatcher invocation's time limit (cdk/scheduler.ts): a pass stops short of it, the next goes on. */
const INVOCATION_MS = 60_000;
const FIRST_ID = 500_000;
const settings = { randomHex, planner: schedulePlanner, misfireGraceMinutes: 60 };
type Sink = ReturnType<typeof outboxSink>;

/** Runs `work` with an outbox of its own, a temporary folder, as the dispatcher's job sink. */
async function withOutbox<T>(work: (sink: Sink, folder: string) => Promise<T>): Promise<T> {
  const folder = await mkdtemp(join(tmpdir(), 'bench-outbox-'));
  return work(outboxSink(folder), folder).finally(() => rm(folder, { recursive: true, force: true }));
}

/**
 * A send-now of a notification with `count` embed recipients, as the handler makes it (the send-now
 * limit aside), then dispatcher passes one after the other, each within a deployed invocation's time,
 * until the run is dispatched. Deployed, the next pass starts at the next minute.
 */
async function sendAndDispatch(notification: Notification, count: number, firstUser: number, sink: Sink) {
  const recipient = (i: number) => encodeRecipient(notification, embedRecipient('bench', firstUser + i));
  await putItems([
    ...notificationItems(notification, NINE),
    ...Array.from({ length: count }, (_, i) => recipient(i)),
  ]);
  const started = performance.now();
  const options = { randomHex, now: NINE, minIntervalMs: 0 };
  const sent = await watch(() => timed(() => sendNow(sendNowStore, sink, notification, options)));
  const { result: run, ms: requestMs } = sent.result;
  const ref = { deploymentId: notification.deploymentId, notificationId: notification.id, runId: run.runId };
  let passes = 0;
  const { work: background } = await watch(async () => {
    for (
      let status = run.status;
      status === 'dispatching';
      status = (await currentRun(ref))?.status ?? status
    ) {
      if (++passes > 1_000) throw new Error('The run was not dispatched after 1000 passes');
      const deadline = performance.now() + INVOCATION_MS;
      const remainingTimeMs = () => deadline - performance.now();
      await dispatchPass(dispatchStore, sink, {
        ...settings,
        now: NINE + passes * INVOCATION_MS,
        remainingTimeMs,
      });
    }
  });
  const queued = (await currentRun(ref))?.recipients.queued;
  if (queued !== count) throw new Error(`The run queued ${queued} of ${count} deliveries`);
  // A pass's own reads of the due index (a Query per shard) are its fixed cost, whatever it does.
  const perRecipient = (sent.work.requests + background.requests - passes * DUE_INDEX_SHARDS) / count;
  const untilDispatchedMs = performance.now() - started;
  return {
    ref,
    request: sent.work,
    requestMs,
    queued: run.recipients.queued,
    passes,
    untilDispatchedMs,
    perRecipient,
  };
}

/** One pass with `count` notifications due in the same minute, each with three recipients, at the deployed concurrency. */
async function busyMinute(bench: Bench, count: number, sink: Sink) {
  const due = Array.from({ length: count }, (_, i) => notificationOf(FIRST_ID + i, { isEnabled: true }));
  const recipients = (n: Notification, i: number) =>
    // A console user of the demo fixture, active, and two embed users.
    [
      { type: 'USER', userId: 1 } as const,
      embedRecipient('bench', 2 * i),
      embedRecipient('bench', 2 * i + 1),
    ].map((recipient) => encodeRecipient(n, recipient));
  await putItems(due.flatMap((n, i) => [...notificationItems(n, NINE - 3_600_000), ...recipients(n, i)]));
  const options = { ...settings, now: NINE + 10_000, concurrency: config().dispatchConcurrency };
  const cpuBefore = process.cpuUsage();
  const pass = await watch(() => timed(() => dispatchPass(dispatchStore, sink, options)));
  const cpu = process.cpuUsage(cpuBefore);
  const { fired } = pass.result.result;
  if (fired !== count) throw new Error(`The pass fired ${fired} of ${count} notifications`);
  // The pass's own reads: one Query per due-index shard (and its pages), the dashboards it caches.
  const ownReads = pass.calls.filter(
    (c) => (c.operation === 'Query' && c.input.IndexName === 'gsi3') || c.operation === 'GetItem',
  ).length;
  const perFired = (n: number) => round(n / fired, 3);
  const [tableUnits, index] = [perFired(billedWriteUnits(pass.calls)), indexWriteUnits(pass.calls)];
  const { show, gate } = bench.figures.about('dispatch');
  const per = 'per fired notification (3 recipients';
  show('pass wall time', ms(pass.result.ms));
  // What bounds a worker's pace deployed (lib/domain/dispatch-fanout.ts): the SDK, the cron code, the codecs.
  show('CPU of this process per fired notification', ms((cpu.user + cpu.system) / 1000 / fired));
  show('DynamoDB requests per fired notification, all in', perFired(pass.work.requests));
  gate(`DynamoDB requests ${per}, the pass’s own reads apart)`, perFired(pass.work.requests - ownReads), 4);
  show(`write units ${per}, table, billed)`, tableUnits, 'WCU');
  show(`write units ${per}, due index, billed)`, perFired(index.due), 'WCU');
  gate(`write units ${per}, table and due index)`, round(tableUnits + perFired(index.due), 3), 16, 'WCU');
  gate('list-index writes per fired notification', perFired(index.lists), 0, 'writes');
}

const delivered = { status: 'delivered', attempt: 1 } as const;
const failed = { status: 'failed', error: 'bench', attempt: 1 } as const;
const report = (jobId = '', outcome: typeof delivered | typeof failed = delivered) =>
  reportOutcome(outcomeStore, jobId, outcome, Date.now());

const deliveries = (bench: Bench, n: number) =>
  withOutbox(async (sink, folder) => {
    const { show, gate } = bench.figures;
    /** A notification with `size` recipients, sent now and dispatched: its run and its jobs' ids. */
    const sentRun = async (k: number, size: number) => {
      const { ref } = await sendAndDispatch(
        notificationOf(FIRST_ID + 100_000 + k),
        size,
        (k + 3) * 1_000_000,
        sink,
      );
      const read = (file: string) => readFile(join(folder, file), 'utf8').then(JSON.parse);
      const jobs = await Promise.all((await readdir(folder)).map(read));
      return { ref, jobIds: jobs.filter((job) => job.runId === ref.runId).map((job): string => job.jobId) };
    };
    const [small, large] = [await sentRun(0, 1), await sentRun(1, n)];
    // A report that completes its run settles it too (one more write): the small run's only report does.
    const completing = await watch(() => report(small.jobIds[0]));
    const one = await watch(() => report(large.jobIds[0]));
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
    const { status, recipients } = (await currentRun(large.ref)) ?? {};
    const exact = status === 'completed_with_failures' && recipients?.failed === failures;
    show(`${outcomes.length} concurrent reports: time for all of them`, ms(all.ms));
    const countsExact = exact && recipients.delivered === n - failures;
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

export async function dispatchSection(bench: Bench) {
  const [due, sizes] = bench.smoke ? [200, [1_000, 2_000]] : [10_000, [10_000, 100_000]];
  section(bench, `Dispatch: ${due} notifications due in one minute; send-now of many recipients`);
  await part(bench, 'dispatch', () =>
    withOutbox(async (sink, folder) => {
      await busyMinute(bench, due, sink);
      for (const [i, count] of sizes.entries()) {
        const jobsBefore = (await readdir(folder)).length;
        const s = await sendAndDispatch(notificationOf(FIRST_ID + due + i), count, (i + 1) * 1_000_000, sink);
        const { show, gate } = bench.figures.about(`send-now of ${count} recipients`);
        gate('DynamoDB requests in the request', s.request.requests, 12, 'requests');
        show('requests in the request, by operation', describe(s.request.byOperation));
        show('request time', ms(s.requestMs));
        show('queued by the request', s.queued);
        show('passes (60 s each)', s.passes);
        show('until dispatched (passes back to back)', ms(s.untilDispatchedMs));
        const perRecipient = 'DynamoDB requests per recipient, request and passes (their index reads apart)';
        gate(perRecipient, round(s.perRecipient, 3), 0.1, 'requests');
        show('jobs written', (await readdir(folder)).length - jobsBefore);
      }
    }),
  );
  section(bench, 'Delivery outcomes and retry: one report, many reports of one run at once, a retry of many');
  await part(bench, 'deliveries', () => deliveries(bench, bench.smoke ? 200 : 1000));
}
