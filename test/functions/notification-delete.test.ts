import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '#lib/clock';
import { config } from '#lib/config';
import { type PurgeStore, purgePass } from '#lib/domain/deletion/purge';
import { dispatchPass } from '#lib/domain/dispatch/dispatch-pass';
import { schedulePlanner } from '#lib/domain/schedules/schedule-planning';
import { parseFixture } from '#lib/fixtures/fixture';
import { planFixtureLoad, writeFixtureLoad } from '#lib/fixtures/load-fixture';
import { outboxSink } from '#lib/jobs/outbox-sink';
import { type DynamoMeter, meterDynamoDb } from '#lib/local/dynamodb-meter';
import { purgeStore } from '#lib/store/deletion/purge-store';
import { dispatchStore } from '#lib/store/dispatch/dispatch';
import { batchWriteAll } from '#lib/store/dynamo/batch';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem } from '#lib/store/dynamo/items';
import { PURGE_GRACE_MS } from '#lib/store/notifications/notification-guard';
import { crash, type DynamoFaults, injectDynamoDbFaults } from '#test/support/dynamodb-faults';
import { ADMIN_KEY, consoleUsers } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';

/**
 * Delete that always finishes: one transaction in the request whatever the notification holds, the
 * rest emptied by the background purge (resumable, and waiting out the grace in which a request
 * that raced the delete may still write), and no orphan from a request that raced it.
 */

const EMBED_RECIPIENTS = 250;

const fixture = {
  users: consoleUsers,
  deployments: [{ id: 7, name: 'Production' }],
  dashboards: [
    {
      id: 70,
      deploymentId: 7,
      publicId: 'sales',
      title: 'Sales',
      published: true,
      sharedWithTenants: ['acme'],
    },
  ],
  embedTenants: [{ name: 'acme', issuer: 'https://acme.example.com' }],
};

let api: LocalApi;
let meter: DynamoMeter;
let faults: DynamoFaults;

beforeAll(async () => {
  api = await startLocalApi(fixture);
  meter = meterDynamoDb(documentClient());
  faults = injectDynamoDbFaults(documentClient());
});
afterEach(() => faults.clear());
afterAll(() => api.close());

const base = '/v1/deployments/7/notifications';
const admin = (method: string, path: string, body?: unknown) =>
  api.request(method, path, { token: ADMIN_KEY, ...(body !== undefined && { body }) });

async function createNotification(): Promise<number> {
  const response = await admin('POST', base, { dashboardId: 70, scheduleType: 'DAILY', hour: 9 });
  expect(response.status).toBe(201);
  return response.body.id;
}

const embedRecipients = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => ({
    embedTenantName: 'acme',
    externalId: `${prefix}-${i}@acme.example`,
  }));

async function partitionItems(id: number): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.notificationPartition(7, id) },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** Items written straight into the partition, as a year of runs would leave them. */
async function fill(id: number, count: number): Promise<void> {
  const pk = keys.notificationPartition(7, id);
  await batchWriteAll(
    Array.from({ length: count }, (_, i) => ({
      PutRequest: {
        Item: {
          pk,
          sk: `DELIVERY#20260101T000000000Z-s#USER#${i}`,
          entity: 'DELIVERY',
          status: 'queued',
          recipient: { type: 'USER', userId: i, email: `user${i}@example.com`, username: `user${i}` },
        },
      },
    })),
    { concurrency: 8 },
  );
}

/** A pass as of after the grace: every writer that could have raced the delete is done. */
const purgeAfterGrace = (store: PurgeStore = purgeStore) =>
  purgePass(store, { now: Date.now() + PURGE_GRACE_MS + 1_000 });

const tombstoneOf = (id: number) => getItem(keys.purge(7, id));

async function jobsOf(id: number): Promise<unknown[]> {
  const dir = config().outboxDir;
  const files = await readdir(dir).catch(() => [] as string[]);
  const jobs = await Promise.all(
    files
      .filter((file) => file.endsWith('.json'))
      .map(async (file) => JSON.parse(await readFile(join(dir, file), 'utf8'))),
  );
  return jobs.filter((job) => job.notificationId === id);
}

describe('DELETE of a notification that holds a lot', () => {
  it('answers 204 after the same requests for 3,000 items as for none; the purge then empties the partition', async () => {
    const small = await createNotification();
    const large = await createNotification();
    await fill(large, 3_000);

    meter.reset();
    expect((await admin('DELETE', `${base}/${small}`)).status).toBe(204);
    const forNone = meter.totalRequests();
    meter.reset();
    expect((await admin('DELETE', `${base}/${large}`)).status).toBe(204);
    expect(meter.totalRequests()).toBe(forNone);
    expect(meter.byOperation.TransactWriteItems?.requests).toBe(1);
    expect(meter.writeRequests()).toBe(1);

    // Gone for every route at once, though its items are still there.
    for (const [method, path] of [
      ['GET', `${base}/${large}`],
      ['GET', `${base}/${large}/recipients`],
      ['GET', `${base}/${large}/runs`],
      ['POST', `${base}/${large}/send`],
      ['DELETE', `${base}/${large}`],
    ] as const) {
      expect((await admin(method, path)).status, `${method} ${path}`).toBe(404);
    }
    expect((await admin('POST', `${base}/${large}/recipients`, { recipients: [{ userId: 1 }] })).status).toBe(
      404,
    );
    expect(
      (await admin('GET', `${base}?first=200`)).body.items.map((n: { id: number }) => n.id),
    ).not.toContain(large);
    expect((await partitionItems(large)).length).toBe(3_000);

    const summary = await purgeAfterGrace();
    expect(summary).toMatchObject({ finished: 2, failed: 0 });
    expect(summary.deleted).toBeGreaterThanOrEqual(3_000);
    expect(await partitionItems(large)).toEqual([]);
    expect(await tombstoneOf(large)).toBeUndefined();
    expect(await tombstoneOf(small)).toBeUndefined();
  });

  it('never fires once deleted: its due entry went with it', async () => {
    const id = await createNotification();
    expect((await admin('DELETE', `${base}/${id}`)).status).toBe(204);
    const nextNine = new Date();
    nextNine.setUTCDate(nextNine.getUTCDate() + 1);
    nextNine.setUTCHours(9, 0, 30, 0);
    const summary = await dispatchPass(dispatchStore, outboxSink(config().outboxDir), {
      randomHex,
      now: nextNine.getTime(),
      misfireGraceMinutes: 60,
      planner: schedulePlanner,
    });
    expect(summary.runs.filter((run) => run.notificationId === id)).toEqual([]);
    await purgeAfterGrace();
  });
});

describe('the background purge', () => {
  it('resumes after a crash mid-way: the next pass goes on from what is left', async () => {
    const id = await createNotification();
    await fill(id, 2_500);
    expect((await admin('DELETE', `${base}/${id}`)).status).toBe(204);

    // The second BatchWrite of the pass dies: the pass fails, the tombstone stays, part is deleted.
    faults.add({ operations: ['BatchWriteItem'], when: (call) => call === 2, fault: crash() });
    const crashed = await purgeAfterGrace();
    faults.clear();
    expect(crashed.failed).toBe(1);
    expect(await tombstoneOf(id)).toBeDefined();
    const left = (await partitionItems(id)).length;
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(2_500);

    expect(await purgeAfterGrace()).toMatchObject({ finished: 1, failed: 0 });
    expect(await partitionItems(id)).toEqual([]);
    expect(await tombstoneOf(id)).toBeUndefined();
  });

  it('does a bounded step at a time and stops when its time is up, leaving the rest to the next pass', async () => {
    const id = await createNotification();
    await fill(id, 1_500);
    expect((await admin('DELETE', `${base}/${id}`)).status).toBe(204);
    let steps = 0;
    const oneStep: PurgeStore = {
      ...purgeStore,
      deleteSome: (ref, limit) => {
        steps += 1;
        return purgeStore.deleteSome(ref, limit);
      },
    };
    // Time for exactly one step: the reserve is 5 s, so 6 s left once, then 1 s.
    let calls = 0;
    const short = await purgePass(oneStep, {
      now: Date.now() + PURGE_GRACE_MS + 1_000,
      itemsPerStep: 1_000,
      deadline: { remainingMs: () => (calls++ === 0 ? 6_000 : 1_000) },
    });
    expect(steps).toBe(1);
    expect(short).toMatchObject({ deleted: 1_000, unfinished: 1, finished: 0 });
    expect((await partitionItems(id)).length).toBe(500);
    expect(await purgeAfterGrace()).toMatchObject({ deleted: 500, finished: 1 });
  });

  it('keeps its tombstone through the grace, and sweeps again after it what a late writer left', async () => {
    const id = await createNotification();
    expect((await admin('DELETE', `${base}/${id}`)).status).toBe(204);
    expect(await purgePass(purgeStore, { now: Date.now() })).toMatchObject({ waiting: 1, finished: 0 });
    expect(await tombstoneOf(id)).toBeDefined();
    // A request that read the notification before the delete writes after it.
    await fill(id, 30);
    expect(await purgeAfterGrace()).toMatchObject({ deleted: 30, finished: 1 });
    expect(await partitionItems(id)).toEqual([]);
  });
});

describe('the purge and a notification loaded again under the deleted id', () => {
  it('leaves the new notification whole and firing: its schedule, its recipients and its later runs', async () => {
    const id = await createNotification();
    expect(
      (await admin('POST', `${base}/${id}/recipients`, { recipients: [{ userId: 1 }, { userId: 2 }] }))
        .status,
    ).toBe(200);
    await fill(id, 30);
    const again = parseFixture({
      users: consoleUsers,
      notifications: [
        { id, deploymentId: 7, dashboardId: 70, scheduleType: 'DAILY', hour: 9, recipients: [{ userId: 1 }] },
      ],
    });
    // A load that checked the id before the delete and writes after it: it races the delete.
    const load = await planFixtureLoad(again);
    expect((await admin('DELETE', `${base}/${id}`)).status).toBe(204);
    await writeFixtureLoad(load);
    const sent = await admin('POST', `${base}/${id}/send`);
    expect(sent.status).toBe(202);

    const summary = await purgeAfterGrace();
    expect(summary.failed).toBe(0);

    const notification = await admin('GET', `${base}/${id}`);
    expect(notification.body).toMatchObject({ isEnabled: true, nextRunAt: expect.any(String) });
    const recipients = (await admin('GET', `${base}/${id}/recipients`)).body.items;
    expect(recipients.map((recipient: { userId: number }) => recipient.userId)).toContain(1);
    const runs = (await admin('GET', `${base}/${id}/runs`)).body.items;
    expect(runs.map((run: { runId: string }) => run.runId)).toEqual([sent.body.runId]);
    const nextNine = Date.parse(notification.body.nextRunAt) + 30_000;
    const fired = await dispatchPass(dispatchStore, outboxSink(config().outboxDir), {
      randomHex,
      now: nextNine,
      misfireGraceMinutes: 60,
      planner: schedulePlanner,
    });
    expect(fired.runs.filter((run) => run.notificationId === id)).toHaveLength(1);
    // The purge was given up, its tombstone removed: the id is free for a later load.
    expect(summary.recreated).toBe(1);
    expect(await tombstoneOf(id)).toBeUndefined();
  });
});

describe('requests racing a delete leave nothing behind', () => {
  /** Runs the DELETE (to its 204) before the `call`-th call of `operation` the racing request makes goes on. */
  function deleteDuring(operation: string, call: number, id: number, answered: number[]): void {
    faults.add({
      operations: [operation],
      when: (n) => n === call,
      fault: {
        kind: 'hook',
        run: async () => {
          answered.push((await admin('DELETE', `${base}/${id}`)).status);
        },
      },
    });
  }

  it('an add of recipients cut by a delete answers 404, and the purge removes what it wrote', async () => {
    const id = await createNotification();
    const deleted: number[] = [];
    // 250 new embed users: five transactions of 50; the delete lands before the second.
    deleteDuring('TransactWriteItems', 2, id, deleted);
    const response = await admin('POST', `${base}/${id}/recipients`, {
      recipients: embedRecipients(EMBED_RECIPIENTS, `add-${id}`),
    });
    expect(deleted).toEqual([204]);
    expect(response.status).toBe(404);
    await purgeAfterGrace();
    expect(await partitionItems(id)).toEqual([]);
  });

  it('an add that completed before the delete keeps its answer; its rows go with the notification', async () => {
    const id = await createNotification();
    const response = await admin('POST', `${base}/${id}/recipients`, {
      recipients: [{ userId: 1 }, { userId: 2 }],
    });
    expect(response.status).toBe(200);
    expect(response.body.createdRecipients).toHaveLength(2);
    expect((await admin('DELETE', `${base}/${id}`)).status).toBe(204);
    await purgeAfterGrace();
    expect(await partitionItems(id)).toEqual([]);
  });

  it('a removal cut by a delete answers 404', async () => {
    const id = await createNotification();
    await admin('POST', `${base}/${id}/recipients`, { recipients: [{ userId: 1 }, { userId: 2 }] });
    const deleted: number[] = [];
    // The removal's last write: its transaction checks that the notification still exists.
    deleteDuring('TransactWriteItems', 1, id, deleted);
    const response = await admin('DELETE', `${base}/${id}/recipients`, {
      recipients: [{ type: 'USER', id: 1 }],
    });
    expect(deleted).toEqual([204]);
    expect(response.status).toBe(404);
    await purgeAfterGrace();
    expect(await partitionItems(id)).toEqual([]);
  });

  it('a send-now cut by a delete answers 404, sends no job after it, and the purge removes its run and deliveries', async () => {
    const id = await createNotification();
    const added = await admin('POST', `${base}/${id}/recipients`, {
      recipients: embedRecipients(EMBED_RECIPIENTS, `send-${id}`),
    });
    expect(added.status).toBe(200);
    const deleted: number[] = [];
    // The first page's deliveries are being written when the delete lands.
    deleteDuring('BatchWriteItem', 1, id, deleted);
    const response = await admin('POST', `${base}/${id}/send`);
    expect(deleted).toEqual([204]);
    expect(response.status).toBe(404);
    expect(await jobsOf(id)).toEqual([]);
    expect((await partitionItems(id)).some((item) => item.entity === 'DELIVERY')).toBe(true);
    await purgeAfterGrace();
    expect(await partitionItems(id)).toEqual([]);
  });

  it('a scheduled run cut by a delete sends no job after it, and the purge removes its run and deliveries', async () => {
    const id = await createNotification();
    expect(
      (
        await admin('POST', `${base}/${id}/recipients`, {
          recipients: embedRecipients(EMBED_RECIPIENTS, `fire-${id}`),
        })
      ).status,
    ).toBe(200);
    const deleted: number[] = [];
    deleteDuring('BatchWriteItem', 1, id, deleted);
    const nine = new Date();
    nine.setUTCDate(nine.getUTCDate() + 1);
    nine.setUTCHours(9, 0, 10, 0);
    const summary = await dispatchPass(dispatchStore, outboxSink(config().outboxDir), {
      randomHex,
      now: nine.getTime(),
      misfireGraceMinutes: 60,
      planner: schedulePlanner,
    });
    expect(deleted).toEqual([204]);
    expect(summary.failed).toBe(0);
    expect(await jobsOf(id)).toEqual([]);
    await purgeAfterGrace();
    expect(await partitionItems(id)).toEqual([]);
  });

  it('a send-now that completed before the delete answers 202; its run and deliveries go with the notification', async () => {
    const id = await createNotification();
    await admin('POST', `${base}/${id}/recipients`, { recipients: embedRecipients(3, `done-${id}`) });
    const response = await admin('POST', `${base}/${id}/send`);
    expect(response.status).toBe(202);
    expect(await jobsOf(id)).toHaveLength(3);
    expect((await admin('DELETE', `${base}/${id}`)).status).toBe(204);
    // Its run and deliveries are still stored until the purge, but no route shows them.
    expect((await admin('GET', `${base}/${id}/runs`)).status).toBe(404);
    expect((await admin('GET', `${base}/${id}/runs/${response.body.runId}/deliveries`)).status).toBe(404);
    await purgeAfterGrace();
    expect(await partitionItems(id)).toEqual([]);
  });
});
