import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomHex } from '#lib/clock';
import { config } from '#lib/config';
import { dispatchPass, sendNow } from '#lib/domain/dispatch';
import type { Notification } from '#lib/domain/notification';
import { pageWindow } from '#lib/domain/paging';
import type { StoredRecipient } from '#lib/domain/recipients-resolution';
import { toRunDto } from '#lib/domain/runs';
import { schedulePlanner } from '#lib/domain/schedule-planning';
import { outboxSink } from '#lib/jobs/outbox-sink';
import { batchWriteAll } from '#lib/store/batch';
import { documentClient } from '#lib/store/client';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { DUE_INDEX_SHARDS } from '#lib/store/keys';
import { notificationItems } from '#lib/store/notification-items';
import { runListRepository } from '#lib/store/run-lists';
import { dispatchStore } from '#lib/store/runs';
import { sendNowStore } from '#lib/store/send-now';
import { billedWriteUnits, indexWriteUnits } from './billing.ts';
import type { DynamoWork } from './per-request.ts';
import { metered } from './per-request.ts';
import { recordDynamoDb } from './recorder.ts';

/**
 * The dispatcher at scale, against the local engine: one pass with many notifications due in the
 * same minute (each with three recipients: a console user and two embed users), at the deployed
 * settings (concurrency 32), and one run of a notification with many recipients. The requests and
 * write units per fired notification are deterministic: the smoke run gates them.
 */

export interface DispatchFigures {
  notifications: number;
  passMs: number;
  fired: number;
  pass: DynamoWork;
  /** All of the pass's requests per fired notification, its own reads (index shards, dashboards) included. */
  requestsPerFired: number;
  /** Requests per fired notification, the pass's own reads apart: what grows with what fires. */
  requestsPerFiredOwn: number;
  /** Write units DynamoDB would bill for the table's items (see billing.ts), per fired notification. */
  billedWriteUnitsPerFired: number;
  /** Write units billed in the due index per fired notification. */
  dueIndexWriteUnitsPerFired: number;
  /** Writes into the list indexes (gsi1, gsi2) per fired notification. */
  listIndexWritesPerFired: number;
  sendNows: SendNowFigures[];
}

/** One send-now of a notification with many recipients: the request, then the passes that finish it. */
export interface SendNowFigures {
  recipients: number;
  /** The request alone: what it costs does not depend on the number of recipients. */
  request: DynamoWork;
  requestMs: number;
  /** Deliveries the request recorded itself (its first page); the passes record the rest. */
  queuedInRequest: number;
  /** Passes of a 60 s dispatcher invocation it took, one after the other, until the run was dispatched. */
  passes: number;
  /** From the request until the run is dispatched, the waits between passes left out. */
  untilDispatchedMs: number;
  /** The request and the passes together, per recipient. */
  requestsPerRecipient: number;
  jobsWritten: number;
}

/** A console user of the demo fixture, active: every notification of the pass has it as a recipient. */
const CONSOLE_USER = 1;
/** Far from the demo's and the other scenarios' ids. */
const FIRST_ID = 500_000;
/** Monday 2026-11-23, 09:00 UTC: the minute every notification of the pass is due. */
const NINE = Date.parse('2026-11-23T09:00:00Z');

function dailyNine(id: number): Notification {
  return {
    id,
    deploymentId: 7,
    dashboardId: 70,
    scheduleType: 'DAILY',
    minute: 0,
    hour: 9,
    timezone: 'UTC',
    isEnabled: true,
    notificationEnabled: true,
    notificationFormat: 'png',
    filters: null,
    timeGrains: null,
  } as Notification;
}

const embedRecipient = (i: number): StoredRecipient => ({
  type: 'EMBED_USER',
  embedTenantName: 'acme',
  normalizedExternalId: `bench-${i}@example.com`,
  externalId: `bench-${i}@example.com`,
  embedUserId: 1_000_000 + i,
  email: `bench-${i}@example.com`,
  properties: {},
});

export async function measureDispatch(
  notifications: number,
  recipients: readonly number[],
): Promise<DispatchFigures> {
  const outbox = await mkdtemp(join(tmpdir(), 'bench-outbox-'));
  try {
    const due = Array.from({ length: notifications }, (_, i) => dailyNine(FIRST_ID + i));
    await batchWriteAll(
      due.flatMap((notification, i) => [
        ...notificationItems(notification, NINE - 3_600_000).map((item) => ({ PutRequest: { Item: item } })),
        { PutRequest: { Item: encodeRecipient(notification, { type: 'USER', userId: CONSOLE_USER }) } },
        { PutRequest: { Item: encodeRecipient(notification, embedRecipient(2 * i)) } },
        { PutRequest: { Item: encodeRecipient(notification, embedRecipient(2 * i + 1)) } },
      ]),
      { concurrency: 16 },
    );
    const recorder = recordDynamoDb(documentClient());
    let passMs = 0;
    let fired = 0;
    let billed = 0;
    let dueIndexUnits = 0;
    let listIndexWrites = 0;
    let passOwnRequests = 0;
    let pass: DynamoWork;
    try {
      const measured = await metered(() =>
        recorder.record(async () => {
          const t0 = performance.now();
          const summary = await dispatchPass(dispatchStore, outboxSink(outbox), {
            randomHex,
            now: NINE + 10_000,
            planner: schedulePlanner,
            misfireGraceMinutes: 60,
            concurrency: config().dispatchConcurrency,
          });
          passMs = performance.now() - t0;
          fired = summary.fired;
        }),
      );
      pass = measured.work;
      billed = billedWriteUnits(measured.result.calls.filter((call) => call.operation !== 'UpdateItem'));
      // Updates are billed on the item's size; runs and notifications are well under 1 KB each.
      billed += measured.result.calls.filter((call) => call.operation === 'UpdateItem').length;
      const indexUnits = indexWriteUnits(measured.result.calls);
      dueIndexUnits = indexUnits.due;
      listIndexWrites = indexUnits.lists;
      // The pass's own reads: one Query per due-index shard (and its pages), the dashboards it caches.
      passOwnRequests = measured.result.calls.filter(
        (call) =>
          (call.operation === 'Query' && call.input.IndexName === 'gsi3') || call.operation === 'GetItem',
      ).length;
    } finally {
      recorder.detach();
    }
    if (fired !== notifications) throw new Error(`The pass fired ${fired} of ${notifications} notifications`);

    const sendNows: SendNowFigures[] = [];
    let nextId = FIRST_ID + notifications;
    for (const count of recipients) {
      sendNows.push(
        await measureSendNow(
          dailyNine(nextId++),
          count,
          FIRST_ID + notifications + sendNows.length * 1_000_000,
        ),
      );
    }
    return {
      notifications,
      passMs,
      fired,
      pass,
      requestsPerFired: pass.requests / fired,
      requestsPerFiredOwn: (pass.requests - passOwnRequests) / fired,
      billedWriteUnitsPerFired: billed / fired,
      dueIndexWriteUnitsPerFired: dueIndexUnits / fired,
      listIndexWritesPerFired: listIndexWrites / fired,
      sendNows,
    };
  } finally {
    await rm(outbox, { recursive: true, force: true });
  }
}

/** A deployed dispatcher invocation's time limit (cdk/scheduler.ts): a pass stops short of it and the next one goes on. */
const INVOCATION_MS = 60_000;

/**
 * A send-now of a notification with `count` recipients, as the handler makes it (the send-now limit
 * aside), then dispatcher passes one after the other until the run is dispatched, each within a
 * deployed invocation's time. Deployed, the next pass starts at the next minute.
 */
async function measureSendNow(
  notification: Notification,
  count: number,
  firstUser: number,
): Promise<SendNowFigures> {
  await batchWriteAll(
    [
      ...notificationItems({ ...notification, isEnabled: false }, NINE).map((item) => ({
        PutRequest: { Item: item },
      })),
      ...Array.from({ length: count }, (_, i) => ({
        PutRequest: { Item: encodeRecipient(notification, embedRecipient(firstUser + i)) },
      })),
    ],
    { concurrency: 16 },
  );
  const outbox = await mkdtemp(join(tmpdir(), 'bench-outbox-run-'));
  try {
    const sink = outboxSink(outbox);
    const started = performance.now();
    const { result: dto, work: request } = await metered(() =>
      sendNow(sendNowStore, sink, notification, { randomHex, now: NINE, minIntervalMs: 0 }),
    );
    const requestMs = performance.now() - started;
    let passes = 0;
    let status = dto.status;
    const { work: background } = await metered(async () => {
      while (status === 'dispatching') {
        passes += 1;
        const passStarted = performance.now();
        const summary = await dispatchPass(dispatchStore, sink, {
          randomHex,
          now: NINE + passes * INVOCATION_MS,
          planner: schedulePlanner,
          misfireGraceMinutes: 60,
          remainingTimeMs: () => INVOCATION_MS - (performance.now() - passStarted),
        });
        status = summary.resumed > 0 ? await runStatus(notification, dto.runId) : status;
        if (passes > 1_000) throw new Error('The run was not dispatched after 1000 passes');
      }
    });
    const untilDispatchedMs = performance.now() - started;
    const run = await runListRepository.runsPage(notification, pageWindow({ first: 1 }, toRunDto));
    const queued = run.items[0]?.recipients.queued;
    if (queued !== count) throw new Error(`The run queued ${queued} of ${count} deliveries`);
    return {
      recipients: count,
      request,
      requestMs,
      queuedInRequest: dto.recipients.queued,
      passes,
      untilDispatchedMs,
      // A pass's own reads of the due index (a Query per shard) are its fixed cost, whatever it does.
      requestsPerRecipient: (request.requests + background.requests - passes * DUE_INDEX_SHARDS) / count,
      jobsWritten: (await readdir(outbox)).length,
    };
  } finally {
    await rm(outbox, { recursive: true, force: true });
  }
}

const runStatus = async (notification: Notification, runId: string) =>
  (await runListRepository.runsPage(notification, pageWindow({ first: 1 }, toRunDto))).items.find(
    (run) => run.runId === runId,
  )?.status ?? 'dispatching';
