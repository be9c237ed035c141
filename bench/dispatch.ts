import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import {
  DISPATCH_REQUESTS_PER_FIRED,
  DISPATCH_REQUESTS_PER_RECIPIENT,
  DISPATCH_WRITE_UNITS_PER_FIRED,
  SEND_NOW_REQUESTS,
} from './budgets.ts';
import { describe, watch } from './dynamodb.ts';
import { embedRecipient, notificationOf, putItems } from './fixture.ts';
import { type Bench, part, section } from './report.ts';
import { ms, round } from './stats.ts';

/**
 * The dispatcher at scale, through the domain and the stores the worker uses: one pass with many
 * notifications due in the same minute (each with three recipients: a console user and two embed
 * users), at the deployed settings, and send-nows of many recipients finished by passes. The requests
 * and write units per fired notification are deterministic: the smoke run gates them.
 */

/** A console user of the demo fixture, active: every notification of the pass has it as a recipient. */
const CONSOLE_USER = 1;
/** Far from the demo's and the other sections' ids. */
const FIRST_ID = 500_000;
/** Monday 2026-11-23, 09:00 UTC: the minute every notification of the pass is due. */
const NINE = Date.parse('2026-11-23T09:00:00Z');
/** A deployed dispatcher invocation's time limit (cdk/scheduler.ts): a pass stops short of it and the next goes on. */
const INVOCATION_MS = 60_000;

export async function withOutbox<T>(
  work: (sink: ReturnType<typeof outboxSink>, folder: string) => Promise<T>,
): Promise<T> {
  const folder = await mkdtemp(join(tmpdir(), 'bench-outbox-'));
  try {
    return await work(outboxSink(folder), folder);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

async function busyMinute(count: number) {
  const due = Array.from({ length: count }, (_, i) => notificationOf(FIRST_ID + i, { isEnabled: true }));
  await putItems(
    due.flatMap((n, i) => [
      ...notificationItems(n, NINE - 3_600_000),
      encodeRecipient(n, { type: 'USER', userId: CONSOLE_USER }),
      encodeRecipient(n, embedRecipient('bench', 2 * i)),
      encodeRecipient(n, embedRecipient('bench', 2 * i + 1)),
    ]),
  );
  const started = performance.now();
  const {
    result: summary,
    work,
    calls,
  } = await withOutbox((sink) =>
    watch(() =>
      dispatchPass(dispatchStore, sink, {
        now: NINE + 10_000,
        planner: schedulePlanner,
        misfireGraceMinutes: 60,
        concurrency: config().dispatchConcurrency,
      }),
    ),
  );
  const passMs = performance.now() - started;
  const { fired } = summary;
  if (fired !== count) throw new Error(`The pass fired ${fired} of ${count} notifications`);
  // The pass's own reads: one Query per due-index shard (and its pages), the dashboards it caches.
  const ownReads = calls.filter(
    (c) => (c.operation === 'Query' && c.input.IndexName === 'gsi3') || c.operation === 'GetItem',
  ).length;
  const index = indexWriteUnits(calls);
  return {
    notifications: count,
    passMs,
    requestsPerFired: work.requests / fired,
    requestsPerFiredOwn: (work.requests - ownReads) / fired,
    billedWriteUnitsPerFired: billedWriteUnits(calls) / fired,
    dueIndexWriteUnitsPerFired: index.due / fired,
    listIndexWritesPerFired: index.lists / fired,
  };
}

/**
 * A send-now of a notification with `count` recipients, as the handler makes it (the send-now limit
 * aside), then dispatcher passes one after the other until the run is dispatched, each within a
 * deployed invocation's time. Deployed, the next pass starts at the next minute.
 */
async function sendNowOf(notification: Notification, count: number, firstUser: number) {
  await putItems([
    ...notificationItems(notification, NINE),
    ...Array.from({ length: count }, (_, i) =>
      encodeRecipient(notification, embedRecipient('bench', firstUser + i)),
    ),
  ]);
  return withOutbox(async (sink, folder) => {
    const started = performance.now();
    const { result: dto, work: request } = await watch(() =>
      sendNow(sendNowStore, sink, notification, { now: NINE, minIntervalMs: 0 }),
    );
    const requestMs = performance.now() - started;
    const ref = {
      deploymentId: notification.deploymentId,
      notificationId: notification.id,
      runId: dto.runId,
    };
    let passes = 0;
    const { work: background } = await watch(async () => {
      for (
        let status = dto.status;
        status === 'dispatching';
        status = (await currentRun(ref))?.status ?? status
      ) {
        if (++passes > 1_000) throw new Error('The run was not dispatched after 1000 passes');
        const passStarted = performance.now();
        await dispatchPass(dispatchStore, sink, {
          now: NINE + passes * INVOCATION_MS,
          planner: schedulePlanner,
          misfireGraceMinutes: 60,
          remainingTimeMs: () => INVOCATION_MS - (performance.now() - passStarted),
        });
      }
    });
    const queued = (await currentRun(ref))?.recipients.queued;
    if (queued !== count) throw new Error(`The run queued ${queued} of ${count} deliveries`);
    return {
      recipients: count,
      request,
      requestMs,
      queuedInRequest: dto.recipients.queued,
      passes,
      untilDispatchedMs: performance.now() - started,
      // A pass's own reads of the due index (a Query per shard) are its fixed cost, whatever it does.
      requestsPerRecipient: (request.requests + background.requests - passes * DUE_INDEX_SHARDS) / count,
      jobsWritten: (await readdir(folder)).length,
    };
  });
}

export async function dispatchSection(bench: Bench) {
  const [dueNotifications, recipients] = bench.smoke ? [200, [1_000, 2_000]] : [10_000, [10_000, 100_000]];
  section(
    bench,
    `Dispatch: ${dueNotifications} notifications due in one minute; send-now of many recipients`,
  );
  const d = await part(bench, 'dispatch', async () => {
    const pass = await busyMinute(dueNotifications);
    const sendNows = [];
    for (const [i, count] of recipients.entries())
      sendNows.push(
        await sendNowOf(notificationOf(FIRST_ID + dueNotifications + i), count, (i + 1) * 1_000_000),
      );
    return { ...pass, sendNows };
  });
  if (!d) return undefined;
  const { budgets } = bench;
  budgets.show('dispatch: pass wall time', ms(d.passMs));
  budgets.show('dispatch: DynamoDB requests per fired notification, all in', round(d.requestsPerFired, 3));
  const perFired = 'per fired notification (3 recipients';
  budgets.gate(
    `dispatch: DynamoDB requests ${perFired}, the pass’s own reads apart)`,
    round(d.requestsPerFiredOwn, 3),
    DISPATCH_REQUESTS_PER_FIRED,
    'requests',
  );
  budgets.show(
    `dispatch: write units ${perFired}, table, billed)`,
    round(d.billedWriteUnitsPerFired, 3),
    'WCU',
  );
  budgets.show(
    `dispatch: write units ${perFired}, due index, billed)`,
    round(d.dueIndexWriteUnitsPerFired, 3),
    'WCU',
  );
  const units = round(d.billedWriteUnitsPerFired + d.dueIndexWriteUnitsPerFired, 3);
  budgets.gate(
    `dispatch: write units ${perFired}, table and due index)`,
    units,
    DISPATCH_WRITE_UNITS_PER_FIRED,
    'WCU',
  );
  budgets.gate(
    'dispatch: list-index writes per fired notification',
    round(d.listIndexWritesPerFired, 3),
    0,
    'writes',
  );
  for (const s of d.sendNows) {
    const of = `send-now of ${s.recipients} recipients`;
    budgets.gate(
      `${of}: DynamoDB requests in the request`,
      s.request.requests,
      SEND_NOW_REQUESTS,
      'requests',
    );
    budgets.show(`${of}: requests in the request, by operation`, describe(s.request.byOperation));
    budgets.show(`${of}: request time`, ms(s.requestMs));
    budgets.show(`${of}: queued by the request`, s.queuedInRequest);
    budgets.show(`${of}: passes (60 s each)`, s.passes);
    budgets.show(`${of}: until dispatched (passes back to back)`, ms(s.untilDispatchedMs));
    const perRecipient = 'DynamoDB requests per recipient, request and passes (their index reads apart)';
    budgets.gate(
      `${of}: ${perRecipient}`,
      round(s.requestsPerRecipient, 3),
      DISPATCH_REQUESTS_PER_RECIPIENT,
      'requests',
    );
    budgets.show(`${of}: jobs written`, s.jobsWritten);
  }
  return d;
}
