import { readdir, readFile } from 'node:fs/promises';
import { type InvokeCommandInput, TooManyRequestsException } from '@aws-sdk/client-lambda';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { config } from '#lib/config';
import { planWorkers, workerFiresPerSecond } from '#lib/domain/dispatch/dispatch-fanout';
import type { DeliveryJob } from '#lib/domain/runs/runs';
import { parseFixture } from '#lib/fixtures/fixture';
import { ensureTable, loadFixture } from '#lib/fixtures/load-fixture';
import { lambda } from '#lib/jobs/dispatch-workers';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { batchWriteAll } from '#lib/store/dynamo/batch';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { DUE_INDEX_SHARDS, dueIndexKeys } from '#lib/store/dynamo/keys';
import { notificationItems } from '#lib/store/notifications/notification-items';
import { countRunsAwaitingSince } from '#lib/store/runs/run-status';
import { crash, injectDynamoDbFaults } from '#test/support/dynamodb-faults';
import { consoleUsers, dailyUtc } from '#test/support/fixtures';
import { handler as worker } from '../../functions/dispatch.ts';
import { handler as coordinator } from '../../functions/dispatch-coordinator.ts';

/**
 * A minute through the deployed fan-out, end to end: due entries in DynamoDB Local, the coordinator
 * counting the shards and starting workers, the workers firing. Lambda has no local engine, so the
 * coordinator's Invoke requests are recorded at the SDK's boundary (a middleware on its client, which
 * answers as Lambda does to an asynchronous invocation, or refuses one as a throttled Lambda would),
 * and the worker's handler is run with exactly the payloads recorded.
 */

const WORKER_FUNCTION = 'notification-dispatch-test';
// A worker's share at these settings: 2 fires at once × 1 s / 0.04 s a fire = 50 entries, so a
// hundred and sixty due need several workers.
const settings = vi.hoisted(() => {
  const ours = {
    DISPATCH_WORKER_FUNCTION: 'notification-dispatch-test',
    DISPATCH_CONCURRENCY: '2',
    DISPATCH_WORKER_SECONDS: '1',
  };
  const before = Object.fromEntries(Object.keys(ours).map((name) => [name, process.env[name]]));
  Object.assign(process.env, ours);
  return { before };
});
// A worker that runs the next file keeps its environment: these settings are this file's alone.
afterAll(() => {
  for (const [name, value] of Object.entries(settings.before)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});
const NOTIFICATIONS = 160;
const DEPLOYMENT = 7;
const FIRST_ID = 9000;
/** An active console user of the fixture: every notification's one recipient. */
const CONSOLE_USER = 1;
const MINUTE = 60_000;
/** Five minutes ago, on the minute: every notification's instant, due and well within the grace. */
const INSTANT = Math.floor(Date.now() / MINUTE) * MINUTE - 5 * MINUTE;

const invocation = { getRemainingTimeInMillis: () => 60_000 };

/** The Invoke requests the coordinator sent; `refuse` picks those Lambda throttles. */
const invokes: InvokeCommandInput[] = [];
let refuse: (call: number) => boolean = () => false;
lambda.middlewareStack.add(
  () => async (args) => {
    const input = args.input as InvokeCommandInput;
    invokes.push(input);
    if (refuse(invokes.length))
      throw new TooManyRequestsException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 429 } });
    // An asynchronous invocation is queued and answered 202 with no payload.
    return { output: { $metadata: { httpStatusCode: 202 }, StatusCode: 202 } } as never;
  },
  { step: 'initialize', name: 'recordInvoke' },
);

const payloadOf = (input: InvokeCommandInput) =>
  JSON.parse(Buffer.from(input.Payload as Uint8Array).toString()) as {
    slices: { shard: number }[];
    fireBy: number;
  };
const shardOf = (id: number) => Number(dueIndexKeys.notification(DEPLOYMENT, id, 0).gsi3pk.slice(4));

/** A worker's event for these shards, as the coordinator sends it. */
const eventOf = (shards: number[]) => ({
  slices: shards.map((shard) => ({ shard })),
  fireBy: Date.now() + MINUTE,
});

const ids = Array.from({ length: NOTIFICATIONS }, (_, i) => FIRST_ID + i);

beforeAll(async () => {
  await ensureTable();
  await loadFixture(
    parseFixture({
      users: consoleUsers,
      deployments: [{ id: DEPLOYMENT, name: 'Production' }],
      dashboards: [{ id: 70, deploymentId: DEPLOYMENT, publicId: 'sales', title: 'Sales', published: true }],
    }),
  );
  const at = new Date(INSTANT);
  await batchWriteAll(
    ids.flatMap((id) => {
      const notification = dailyUtc(id, at.getUTCHours(), at.getUTCMinutes());
      return [
        // Saved ten minutes before its instant: the entry's first instant is the one due.
        ...notificationItems(notification, INSTANT - 10 * MINUTE),
        encodeRecipient(notification, { type: 'USER', userId: CONSOLE_USER }),
      ].map((item) => ({ PutRequest: { Item: item } }));
    }),
    { concurrency: 8 },
  );
});

const started = (from: number) =>
  invokes.slice(from).map((input) => {
    expect(input).toMatchObject({ FunctionName: WORKER_FUNCTION, InvocationType: 'Event' });
    return payloadOf(input).slices.map(({ shard }) => shard);
  });

describe('a minute through the coordinator and its workers', () => {
  it('splits the shards as the model says, sees a refused start and a failed worker, and fires every notification exactly once', async () => {
    const dueByShard = Array.from({ length: DUE_INDEX_SHARDS }, () => 0);
    for (const id of ids) dueByShard[shardOf(id)] = (dueByShard[shardOf(id)] ?? 0) + 1;
    const plan = planWorkers(dueByShard, {
      workerFiresPerSecond: workerFiresPerSecond(config().dispatchConcurrency),
      workerSeconds: config().dispatchWorkerSeconds,
    });
    expect(plan.workers.length).toBeGreaterThanOrEqual(3);

    // Lambda refuses the second start: the coordinator still asks for every other worker, then fails.
    refuse = (call) => call === 2;
    await expect(coordinator({}, invocation)).rejects.toThrow(
      `1 of ${plan.workers.length} dispatcher workers were not started`,
    );
    refuse = () => false;
    const first = started(0);
    expect(first).toEqual(plan.workers);
    const [running, refused, failing, ...rest] = first as [number[], number[], number[], ...number[][]];

    // One worker cannot read the due index: it fails (deployed: its Errors, and Lambda drops the event).
    const faults = injectDynamoDbFaults(documentClient());
    faults.add({ operations: ['Query'], fault: crash() });
    await expect(worker(eventOf(failing), invocation)).rejects.toThrow('Injected crash');
    faults.detach();
    let fired = 0;
    for (const shards of [running, ...rest]) fired += (await worker(eventOf(shards), invocation)).fired;
    const left = (shards: number[]) => shards.reduce((sum, shard) => sum + (dueByShard[shard] ?? 0), 0);
    expect(fired).toBe(NOTIFICATIONS - left(refused) - left(failing));

    // The next minute's coordinator counts only what the refused and the failed worker left.
    const next = await coordinator({}, invocation);
    expect(next.due).toBe(left(refused) + left(failing));
    const second = started(first.length);
    expect(second.flat().sort((a, b) => a - b)).toEqual(
      [...refused, ...failing].filter((shard) => (dueByShard[shard] ?? 0) > 0).sort((a, b) => a - b),
    );
    for (const shards of second) fired += (await worker(eventOf(shards), invocation)).fired;
    expect(fired).toBe(NOTIFICATIONS);

    // Nothing is left due, and each notification has one run of its instant and one job.
    expect(await coordinator({}, invocation)).toEqual({ due: 0, workers: [] });
    expect(invokes).toHaveLength(first.length + second.length);
    const { Items: runs = [] } = await documentClient().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'begins_with(sk, :run)',
        ExpressionAttributeValues: { ':run': 'RUN#' },
      }),
    );
    expect(runs.map((run) => run.notificationId).sort()).toEqual(ids);
    expect(new Set(runs.map((run) => run.scheduledFor))).toEqual(new Set([new Date(INSTANT).toISOString()]));
    const files = await readdir(config().outboxDir);
    const jobs = await Promise.all(
      files.map(
        async (file) => JSON.parse(await readFile(`${config().outboxDir}/${file}`, 'utf8')) as DeliveryJob,
      ),
    );
    expect(jobs.map((job) => job.notificationId).sort()).toEqual(ids);
  }, 120_000);

  it('writes each notification’s index entries into partitions of its due shard alone, which its worker paces', async () => {
    const { Items: indexed = [] } = await documentClient().send(
      new ScanCommand({ TableName: tableName(), FilterExpression: 'attribute_exists(gsi3pk)' }),
    );
    const shardsByPartition = new Map<string, Set<number>>();
    for (const { gsi3pk, gsi3sk } of indexed) {
      const id = Number(/#(?:NOTIFICATION|RUN)#\d+#(\d+)/.exec(gsi3sk)?.[1]);
      if (!ids.includes(id)) continue;
      shardsByPartition.set(gsi3pk, (shardsByPartition.get(gsi3pk) ?? new Set()).add(shardOf(id)));
    }
    // The schedule entries, moved on to tomorrow, and the runs awaiting their outcomes.
    expect([...shardsByPartition.keys()].some((partition) => partition.startsWith('AWAITING_OUTCOMES'))).toBe(
      true,
    );
    for (const shards of shardsByPartition.values()) expect(shards.size).toBe(1);
    // Counted across those partitions: every run awaits its outcomes.
    expect(await countRunsAwaitingSince(Date.now() + MINUTE)).toBe(NOTIFICATIONS);
  });
});
