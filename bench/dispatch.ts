import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deadlineIn, randomHex } from '#lib/clock';
import { config } from '#lib/config';
import { dispatchPass, sendNow } from '#lib/domain/dispatch';
import type { Notification } from '#lib/domain/notification';
import { schedulePlanner } from '#lib/domain/schedule-planning';
import { outboxSink } from '#lib/jobs/outbox-sink';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { DUE_INDEX_SHARDS } from '#lib/store/keys';
import { notificationItems } from '#lib/store/notification-items';
import { currentRun } from '#lib/store/run-status';
import { dispatchStore } from '#lib/store/runs';
import { sendNowStore } from '#lib/store/send-now';
import { billedWriteUnits, indexWriteUnits } from './billing.ts';
import { type Call, describe, watch } from './dynamodb.ts';
import { embedRecipient, notificationOf, putItems } from './fixture.ts';
import { type Bench, part, section } from './report.ts';
import { ms, round, timed } from './stats.ts';

/**
 * The dispatcher at scale, through the domain and the stores the worker uses: one pass with many
 * notifications due in the same minute (each with three recipients: a console user and two embed
 * users) at the deployed concurrency, and send-nows of many recipients finished by passes. The
 * requests and write units per fired notification are deterministic: the smoke run gates them.
 */

/** Monday 2026-11-23, 09:00 UTC: the minute every notification of the pass is due. */
const NINE = Date.parse('2026-11-23T09:00:00Z');
/** A deployed dispatcher invocation's time limit (cdk/scheduler.ts): a pass stops short of it, the next goes on. */
const INVOCATION_MS = 60_000;
const FIRST_ID = 500_000;
type Sink = ReturnType<typeof outboxSink>;

/** Runs `work` with an outbox of its own, a temporary folder, as the dispatcher's job sink. */
export async function withOutbox<T>(work: (sink: Sink, folder: string) => Promise<T>): Promise<T> {
  const folder = await mkdtemp(join(tmpdir(), 'bench-outbox-'));
  return work(outboxSink(folder), folder).finally(() => rm(folder, { recursive: true, force: true }));
}

/**
 * A send-now of a notification with `count` embed recipients, as the handler makes it (the send-now
 * limit aside), then dispatcher passes one after the other, each within a deployed invocation's time,
 * until the run is dispatched. Deployed, the next pass starts at the next minute.
 */
export async function sendAndDispatch(
  notification: Notification,
  count: number,
  firstUser: number,
  sink: Sink,
) {
  const recipient = (i: number) => encodeRecipient(notification, embedRecipient('bench', firstUser + i));
  await putItems([
    ...notificationItems(notification, NINE),
    ...Array.from({ length: count }, (_, i) => recipient(i)),
  ]);
  const started = performance.now();
  const sent = await watch(() =>
    timed(() => sendNow(sendNowStore, sink, notification, { randomHex, now: NINE, minIntervalMs: 0 })),
  );
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
      const now = NINE + passes * INVOCATION_MS;
      await dispatchPass(dispatchStore, sink, {
        randomHex,
        now,
        planner: schedulePlanner,
        misfireGraceMinutes: 60,
        deadline: deadlineIn(INVOCATION_MS),
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
    queuedInRequest: run.recipients.queued,
    passes,
    untilDispatchedMs,
    perRecipient,
  };
}

/** One pass with `count` notifications due in the same minute, each with three recipients, at the deployed concurrency. */
async function busyMinute(bench: Bench, count: number, sink: Sink) {
  const due = Array.from({ length: count }, (_, i) => notificationOf(FIRST_ID + i, { isEnabled: true }));
  const recipients = (n: Notification, i: number) => [
    // A console user of the demo fixture, active, and two embed users.
    encodeRecipient(n, { type: 'USER', userId: 1 }),
    encodeRecipient(n, embedRecipient('bench', 2 * i)),
    encodeRecipient(n, embedRecipient('bench', 2 * i + 1)),
  ];
  await putItems(due.flatMap((n, i) => [...notificationItems(n, NINE - 3_600_000), ...recipients(n, i)]));
  const options = { now: NINE + 10_000, planner: schedulePlanner, misfireGraceMinutes: 60 };
  const concurrency = config().dispatchConcurrency;
  const cpuBefore = process.cpuUsage();
  const pass = await watch(() =>
    timed(() => dispatchPass(dispatchStore, sink, { randomHex, ...options, concurrency })),
  );
  const cpu = process.cpuUsage(cpuBefore);
  const { fired } = pass.result.result;
  if (fired !== count) throw new Error(`The pass fired ${fired} of ${count} notifications`);
  // The pass's own reads: one Query per due-index shard (and its pages), the dashboards it caches.
  const isOwnRead = (c: Call) =>
    (c.operation === 'Query' && c.input.IndexName === 'gsi3') || c.operation === 'GetItem';
  const perFired = (n: number) => round(n / fired, 3);
  const [tableUnits, index] = [perFired(billedWriteUnits(pass.calls)), indexWriteUnits(pass.calls)];
  const { show, gate } = bench.figures.about('dispatch');
  const per = 'per fired notification (3 recipients';
  show('pass wall time', ms(pass.result.ms));
  // What bounds a worker's pace deployed (lib/domain/dispatch-fanout.ts): the SDK, the cron code, the codecs.
  show('CPU of this process per fired notification', ms((cpu.user + cpu.system) / 1000 / fired));
  show('DynamoDB requests per fired notification, all in', perFired(pass.work.requests));
  const ownReads = pass.calls.filter(isOwnRead).length;
  gate(`DynamoDB requests ${per}, the pass’s own reads apart)`, perFired(pass.work.requests - ownReads), 4);
  show(`write units ${per}, table, billed)`, tableUnits, 'WCU');
  show(`write units ${per}, due index, billed)`, perFired(index.due), 'WCU');
  gate(`write units ${per}, table and due index)`, round(tableUnits + perFired(index.due), 3), 16, 'WCU');
  gate('list-index writes per fired notification', perFired(index.lists), 0, 'writes');
}

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
        show('queued by the request', s.queuedInRequest);
        show('passes (60 s each)', s.passes);
        show('until dispatched (passes back to back)', ms(s.untilDispatchedMs));
        const perRecipient = 'DynamoDB requests per recipient, request and passes (their index reads apart)';
        gate(perRecipient, round(s.perRecipient, 3), 0.1, 'requests');
        show('jobs written', (await readdir(folder)).length - jobsBefore);
      }
    }),
  );
}
