import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deadlineIn, randomHex } from '#lib/clock';
import { config } from '#lib/config';
import { systemContext } from '#lib/domain/audit/audit';
import { dispatchPass } from '#lib/domain/dispatch/dispatch-pass';
import type { Notification } from '#lib/domain/notifications/notification';
import { reportOutcome } from '#lib/domain/runs/outcomes';
import { retryRun } from '#lib/domain/runs/retry';
import { sendNow } from '#lib/domain/runs/send-now';
import { schedulePlanner } from '#lib/domain/schedules/schedule-planning';
import { outboxSink } from '#lib/jobs/outbox-sink';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { dispatchStore } from '#lib/store/dispatch/dispatch';
import { DUE_INDEX_SHARDS } from '#lib/store/dynamo/keys';
import { notificationItems } from '#lib/store/notifications/notification-items';
import { outcomeStore } from '#lib/store/runs/outcomes';
import { retryStore } from '#lib/store/runs/retries';
import { currentRun } from '#lib/store/runs/run-status';
import { sendNowStore } from '#lib/store/runs/send-now';
import { eventRecorder } from '#lib/store/webhooks/subscriptions';
import { embedRecipient, putItems } from '#test/support/stored-items';
import type { Figures } from './budgets.ts';
import { billedWriteUnits, type Call, describe, indexWriteUnits, watch } from './dynamodb.ts';
import { notificationOf } from './fixture.ts';
import { type Bench, ms, round, section, timed } from './report.ts';

/**
 * The dispatcher at scale through the domain and the stores the worker uses: a busy minute, send-nows of
 * many recipients finished by passes; then delivery outcomes and retry, whose cost must not grow with
 * their run (BENCHMARKS.md, "Dispatch" and "Delivery outcomes").
 */

/** Monday 2026-11-23, 09:00 UTC: the minute every notification of the pass is due. */
const NINE = Date.parse('2026-11-23T09:00:00Z');
/** A deployed dispatcher invocation's time limit (cdk/scheduler.ts): a pass stops short of it, the next goes on. */
const INVOCATION_MS = 60_000;
const FIRST_ID = 500_000;
const settings = { randomHex, planner: schedulePlanner, misfireGraceMinutes: 60 };
type Sink = ReturnType<typeof outboxSink>;

/**
 * A send-now of a notification with `count` embed recipients, as the handler makes it (the send-now
 * limit aside), then dispatcher passes one after the other, each within a deployed invocation's time,
 * until the run is dispatched (deployed, the next pass starts at the next minute). With `figures`, what
 * it cost: the request's requests, and the requests per recipient of the request and the passes.
 */
async function sendAndDispatch(notification: Notification, count: number, sink: Sink, figures?: Figures) {
  const row = (i: number) => encodeRecipient(notification, embedRecipient(`send-${notification.id}`, i));
  await putItems([
    ...notificationItems(notification, NINE),
    ...Array.from({ length: count }, (_, i) => row(i)),
  ]);
  const started = performance.now();
  const options = { randomHex, now: NINE, minIntervalMs: 0, audit: systemContext() };
  const sent = await watch(() => timed(() => sendNow(sendNowStore, sink, notification, options)));
  const { result: run, ms: requestMs } = sent.result;
  const ref = { deploymentId: notification.deploymentId, notificationId: notification.id, runId: run.runId };
  let passes = 0;
  const { work: background } = await watch(async () => {
    for (let status = run.status; status === 'dispatching'; ) {
      if (++passes > 1_000) throw new Error('The run was not dispatched after 1000 passes');
      const deadline = deadlineIn(INVOCATION_MS);
      await dispatchPass(dispatchStore, sink, { ...settings, now: NINE + passes * INVOCATION_MS, deadline });
      status = (await currentRun(ref))?.status ?? status;
    }
  });
  const queued = (await currentRun(ref))?.recipients.queued;
  if (queued !== count) throw new Error(`The run queued ${queued} of ${count} deliveries`);
  if (!figures) return ref;
  const { show, gate } = figures.about(`send-now of ${count} recipients`);
  // With the first page's one read of its addresses' suppressions.
  gate('DynamoDB requests in the request', sent.work.requests, 13, 'requests');
  show('requests in the request, by operation', describe(sent.work.byOperation));
  show('request time', ms(requestMs));
  show('queued by the request', run.recipients.queued);
  show('passes (60 s each)', passes);
  show('until dispatched (passes back to back)', ms(performance.now() - started));
  // A pass's own reads of the due index (a Query per shard) are its fixed cost, whatever it does.
  const requests = sent.work.requests + background.requests - passes * DUE_INDEX_SHARDS;
  const perRecipient = 'DynamoDB requests per recipient, request and passes (their index reads apart)';
  gate(perRecipient, round(requests / count, 3), 0.1, 'requests');
  return ref;
}

/** A BatchGetItem of console users alone: the pass reads each once and keeps it for the pass. */
function readsConsoleUsersOnly(operation: string, input: Call['input']): boolean {
  if (operation !== 'BatchGetItem') return false;
  // The keys as the client sends them: attribute values (`{S: …}`) by the time the meter sees them.
  const requested = Object.values(input.RequestItems as Record<string, { Keys: { pk: { S?: string } }[] }>);
  return requested.every(({ Keys }) => Keys.every((key) => key.pk.S?.startsWith('USER#')));
}

/** One pass with `count` notifications due in the same minute, each with three recipients, at the deployed concurrency. */
async function busyMinute({ figures }: Bench, count: number, sink: Sink) {
  const due = Array.from({ length: count }, (_, i) => notificationOf(FIRST_ID + i, { isEnabled: true }));
  // A console user of the demo fixture, active, and two embed users.
  const adaAndTwo = (i: number) => [
    { type: 'USER', userId: 1 } as const,
    ...[0, 1].map((k) => embedRecipient('bench', 2 * i + k)),
  ];
  const recipients = (n: Notification, i: number) => adaAndTwo(i).map((r) => encodeRecipient(n, r));
  await putItems(due.flatMap((n, i) => [...notificationItems(n, NINE - 3_600_000), ...recipients(n, i)]));
  const options = { ...settings, now: NINE + 10_000, concurrency: config().dispatchConcurrency };
  const cpuBefore = process.cpuUsage();
  const pass = await watch(() => timed(() => dispatchPass(dispatchStore, sink, options)));
  const cpu = process.cpuUsage(cpuBefore);
  const { fired } = pass.result.result;
  if (fired !== count) throw new Error(`The pass fired ${fired} of ${count} notifications`);
  // The pass's own reads: one Query per due-index shard (and its pages), the dashboards and the console
  // users it caches (read once a pass, whatever the number of notifications that name them).
  const isOwnRead = ({ operation, input }: Call) =>
    operation === 'GetItem' || input.IndexName === 'gsi3' || readsConsoleUsersOnly(operation, input);
  const ownReads = pass.calls.filter(isOwnRead).length;
  const perFired = (n: number) => round(n / fired, 3);
  const [tableUnits, index] = [perFired(billedWriteUnits(pass.calls)), indexWriteUnits(pass.calls)];
  const { show, gate } = figures.about('dispatch');
  const per = 'per fired notification (3 recipients';
  show('pass wall time', ms(pass.result.ms));
  // What bounds a worker's pace deployed (lib/domain/dispatch/dispatch-fanout.ts): the SDK, the cron code, the codecs.
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
  reportOutcome(outcomeStore, jobId, outcome, Date.now(), eventRecorder);

async function deliveries({ figures }: Bench, n: number, outbox: string) {
  const { show, gate } = figures;
  const sink = outboxSink(outbox);
  /** A notification with `size` recipients, sent now and dispatched: its run and its jobs' ids (`<run>.<delivery>`). */
  const sentRun = async (k: number, size: number) => {
    const ref = await sendAndDispatch(notificationOf(FIRST_ID + 100_000 + k), size, sink);
    const ofRun = new RegExp(`^(${ref.deploymentId}\\.${ref.notificationId}\\.${ref.runId}\\..*)\\.json$`);
    return { ref, jobIds: (await readdir(outbox)).flatMap((file) => ofRun.exec(file)?.[1] ?? []) };
  };
  const [small, large] = [await sentRun(0, 1), await sentRun(1, n)];
  // A report that completes its run settles it too (one more write): the small run's only report does.
  const completing = await watch(() => report(small.jobIds[0]));
  const one = await watch(() => report(large.jobIds[0]));
  gate('outcome report: DynamoDB requests', one.work.requests, 2, 'requests');
  gate('outcome report completing its run: DynamoDB requests', completing.work.requests, 3, 'requests');
  // Two small items updated and the notification checked (a delete makes its reports 404), in a transaction.
  gate('outcome report: write units', billedWriteUnits(one.calls), 6, 'WCU');
  const beyond = one.work.requests - (completing.work.requests - 1);
  gate(`outcome report: requests in a run of ${n} beyond a run of 1`, beyond, 0);

  // Every other report of the large run at once: a quarter failed, the rest delivered.
  const outcomes = large.jobIds.slice(1).map((jobId, i) => [jobId, i % 4 ? delivered : failed] as const);
  const all = await timed(() => Promise.all(outcomes.map(([jobId, outcome]) => report(jobId, outcome))));
  const failures = outcomes.filter(([, outcome]) => outcome === failed).length;
  const { status, recipients } = (await currentRun(large.ref)) ?? {};
  const counts = status === 'completed_with_failures' ? [recipients?.failed, recipients?.delivered] : [];
  show(`${outcomes.length} concurrent reports: time for all of them`, ms(all.ms));
  const exact = counts[0] === failures && counts[1] === n - failures;
  gate(`${outcomes.length} concurrent reports: counts wrong`, exact ? 0 : 1, 0);

  // A run whose every delivery failed, retried in one request.
  const failing = await sentRun(2, n);
  await Promise.all(failing.jobIds.map((jobId) => report(jobId, failed)));
  const { deploymentId, notificationId: id, runId } = failing.ref;
  const retried = () =>
    retryRun(retryStore, sink, { deploymentId, id, runId }, { now: Date.now(), audit: systemContext() });
  const retry = await watch(() => timed(retried));
  // Per page of 96 failed deliveries: the page, its addresses' suppressions, the embed rows, the race
  // guard's read, a transaction.
  gate(`retry of ${n} failed deliveries: DynamoDB requests`, retry.work.requests, 6 + 5 * Math.ceil(n / 96));
  show(`retry of ${n}: write units (meter)`, round(retry.work.writeUnits, 1), 'WCU');
  show(`retry of ${n}: time`, ms(retry.result.ms));
  gate(`retry of ${n}: deliveries left failed`, retry.result.result.run.recipients.failed, 0);

  // Bounces: the report reads its delivery's address and run first, and suppresses the address in its transaction.
  const bouncing = await sentRun(3, 2);
  const hard = { status: 'failed', error: 'bench', attempt: 1, bounce: 'hard' } as const;
  const complaint = { status: 'delivered', attempt: 1, bounce: 'complaint' } as const;
  const bounced = await watch(() =>
    reportOutcome(outcomeStore, bouncing.jobIds[0] ?? '', hard, Date.now(), eventRecorder),
  );
  const complained = await watch(() =>
    reportOutcome(outcomeStore, bouncing.jobIds[1] ?? '', complaint, Date.now(), eventRecorder),
  );
  gate('outcome report with a bounce: DynamoDB requests', bounced.work.requests, 3, 'requests');
  gate(
    'outcome report with a bounce completing its run: DynamoDB requests',
    complained.work.requests,
    3,
    'requests',
  );
  gate('outcome report with a bounce: run completed', complained.result.completedRun ? 0 : 1, 0);
}

export async function dispatchSection(bench: Bench) {
  const [due, sizes] = bench.smoke ? [200, [1_000, 2_000]] : [10_000, [10_000, 100_000]];
  // Delivery jobs go to a temporary folder of the section's own, the dispatcher's job sink.
  const outbox = await mkdtemp(join(tmpdir(), 'bench-outbox-'));
  const sink = outboxSink(outbox);
  try {
    const busy = `Dispatch: ${due} notifications due in one minute; send-now of many recipients`;
    await section(bench, busy, async () => {
      await busyMinute(bench, due, sink);
      for (const [i, count] of sizes.entries())
        await sendAndDispatch(notificationOf(FIRST_ID + due + i), count, sink, bench.figures);
    });
    const title = 'Delivery outcomes and retry: one report, many reports of one run at once, a retry of many';
    await section(bench, title, () => deliveries(bench, bench.smoke ? 200 : 1000, outbox));
  } finally {
    await rm(outbox, { recursive: true, force: true });
  }
}
