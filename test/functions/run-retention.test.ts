import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { config } from '#lib/config';
import { manualRunId, type Run, scheduledRunId } from '#lib/domain/runs/runs';
import { type DynamoMeter, meterDynamoDb } from '#lib/local/dynamodb-meter';
import { encodeDelivery, encodeRun } from '#lib/store/codecs/runs';
import { batchWriteAll } from '#lib/store/dynamo/batch';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { migrateTable } from '#lib/store/dynamo/migrate';
import { ADMIN_KEY, consoleUsers } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';

/**
 * Runs and deliveries expire RUN_RETENTION_DAYS after their instant: DynamoDB's TTL removes them
 * (lazily), and the lists show only the runs kept, at the cost of a notification with none expired.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

const fixture = {
  users: consoleUsers,
  deployments: [{ id: 7, name: 'Production' }],
  dashboards: [{ id: 70, deploymentId: 7, publicId: 'sales', title: 'Sales', published: true }],
  notifications: [
    {
      id: 700,
      deploymentId: 7,
      dashboardId: 70,
      scheduleType: 'DAILY',
      hour: 9,
      recipients: [{ userId: 1 }],
    },
    { id: 701, deploymentId: 7, dashboardId: 70, scheduleType: 'DAILY', hour: 9 },
    { id: 702, deploymentId: 7, dashboardId: 70, scheduleType: 'DAILY', hour: 9 },
    { id: 703, deploymentId: 7, dashboardId: 70, scheduleType: 'DAILY', hour: 9 },
  ],
};

let api: LocalApi;
let meter: DynamoMeter;

beforeAll(async () => {
  api = await startLocalApi(fixture);
  meter = meterDynamoDb(documentClient());
});
afterAll(() => api.close());

const base = '/v1/deployments/7/notifications';
const get = (path: string) => api.request('GET', `${base}${path}`, { token: ADMIN_KEY });
const item = async (key: { pk: string; sk: string }) =>
  (await documentClient().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true })))
    .Item;

const runAt = (notificationId: number, instant: number, runId = scheduledRunId(instant)): Run => ({
  runId,
  deploymentId: 7,
  notificationId,
  trigger: 'schedule',
  scheduledFor: new Date(instant).toISOString(),
  createdAt: new Date(instant + 1_000).toISOString(),
  status: 'dispatched',
  skipReason: null,
  recipients: { queued: 1, skipped: 0, delivered: 0, failed: 0 },
  completedAt: null,
});

const deliveryOf = (run: Run) =>
  encodeDelivery(run, {
    recipientKey: 'RECIPIENT#USER#1',
    deliveryId: '9da9a3a0822aacb39c1f7ed387746e3b',
    recipient: { type: 'USER', userId: 1, email: 'ada@example.com', username: 'ada' },
    status: 'queued',
    reason: null,
    jobId: `job-${run.runId}`,
    attempts: 1,
    error: null,
    updatedAt: run.createdAt,
  });

describe('retention of runs and deliveries', () => {
  it('gives a run and each of its deliveries the TTL attribute: its instant plus RUN_RETENTION_DAYS', async () => {
    const sent = await api.request('POST', `${base}/700/send`, { token: ADMIN_KEY });
    expect(sent.status).toBe(202);
    const { runId, createdAt, scheduledFor } = sent.body;
    expect(scheduledFor).toBe(createdAt);
    const expected = Math.ceil((Date.parse(createdAt) + config().runRetentionDays * DAY_MS) / 1000);
    expect(config().runRetentionDays).toBe(90);
    expect((await item(keys.run(7, 700, runId)))?.expiresAt).toBe(expected);
    const { Items = [] } = await documentClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: {
          ':pk': keys.notificationPartition(7, 700),
          ':prefix': keys.deliveryPrefix(runId),
        },
        ConsistentRead: true,
      }),
    );
    expect(Items).toHaveLength(1);
    expect(Items[0]?.expiresAt).toBe(expected);
  });

  it('lists only the runs kept, though TTL has not removed the expired ones yet; their deliveries are 404', async () => {
    const now = Date.now();
    const kept = runAt(701, now - 89 * DAY_MS);
    const expired = [runAt(701, now - 91 * DAY_MS), runAt(701, now - 200 * DAY_MS)];
    await batchWriteAll(
      [kept, ...expired].flatMap((run) => [
        { PutRequest: { Item: encodeRun(run) } },
        { PutRequest: { Item: deliveryOf(run) } },
      ]),
    );
    const listed = await get('/701/runs');
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((run: { runId: string }) => run.runId)).toEqual([kept.runId]);
    expect(listed.body.pageInfo.hasNextPage).toBe(false);
    expect((await get(`/701/runs/${kept.runId}/deliveries`)).body.items).toHaveLength(1);
    for (const run of expired) expect((await get(`/701/runs/${run.runId}/deliveries`)).status).toBe(404);
  });

  it('reads a page of runs at the same cost whatever expired history lies below the kept runs', async () => {
    const now = Date.now();
    await batchWriteAll([{ PutRequest: { Item: encodeRun(runAt(702, now - DAY_MS)) } }]);
    meter.reset();
    await get('/702/runs');
    const alone = structuredClone(meter.byOperation);
    await batchWriteAll(
      Array.from({ length: 300 }, (_, i) => ({
        PutRequest: { Item: encodeRun(runAt(702, now - (91 + i) * DAY_MS)) },
      })),
    );
    meter.reset();
    const listed = await get('/702/runs');
    expect(listed.body.items).toHaveLength(1);
    expect(meter.byOperation).toEqual(alone);
  });

  it('goes on from a cursor whose run has aged past retention with the next run kept (none: all that follows is older)', async () => {
    const now = Date.now();
    const runs = [1, 88, 89.5].map((daysAgo) => runAt(703, now - daysAgo * DAY_MS));
    await batchWriteAll(runs.map((run) => ({ PutRequest: { Item: encodeRun(run) } })));
    const first = await get('/703/runs?first=2');
    expect(first.body.items.map((run: Run) => run.runId)).toEqual([runs[0]?.runId, runs[1]?.runId]);
    expect(first.body.pageInfo.hasNextPage).toBe(true);
    const { endCursor } = first.body.pageInfo;

    // The clock the lists read moves on: the run the cursor stands at is past its retention now, and so
    // is every run after it (older still).
    vi.useFakeTimers({ toFake: ['Date'], now: now + 3 * DAY_MS });
    try {
      const rest = await get(`/703/runs?first=2&after=${endCursor}`);
      expect(rest.status).toBe(200);
      expect(rest.body.items).toEqual([]);
      expect(rest.body.pageInfo).toMatchObject({
        hasNextPage: false,
        hasPreviousPage: true,
        endCursor: null,
      });
    } finally {
      vi.useRealTimers();
    }
  });

  it('migrate gives runs and deliveries written before retention their TTL attribute', async () => {
    const instant = Date.parse('2026-06-01T08:00:00.000Z');
    const run = runAt(702, instant, manualRunId(instant, 'a1b2c3d4'));
    const { expiresAt: _run, ...oldRun } = encodeRun(run);
    const { expiresAt: _delivery, ...oldDelivery } = deliveryOf(run);
    await batchWriteAll([{ PutRequest: { Item: oldRun } }, { PutRequest: { Item: oldDelivery } }]);
    const report = await migrateTable();
    expect(report.runHistory).toBeGreaterThanOrEqual(2);
    const expected = Math.ceil((instant + 90 * DAY_MS) / 1000);
    expect((await item(keys.run(7, 702, run.runId)))?.expiresAt).toBe(expected);
    expect((await item({ pk: oldDelivery.pk as string, sk: oldDelivery.sk as string }))?.expiresAt).toBe(
      expected,
    );
    expect((await migrateTable()).runHistory).toBe(0);
  });
});
