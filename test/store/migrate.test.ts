import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeCron } from '#lib/domain/schedules/cron';
import { fixtureItems, parseFixture } from '#lib/fixtures/fixture';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { batchWriteAll } from '#lib/store/dynamo/batch';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem, type Item } from '#lib/store/dynamo/items';
import { DUE_INDEX_SHARDS, dueIndexKeys, dueShard } from '#lib/store/dynamo/keys';
import { migrateTable } from '#lib/store/dynamo/migrate';
import { tableDefinition } from '#lib/store/dynamo/table-definition';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { lifecycleClient, lifecycleFixture } from '../functions/lifecycle-helpers.ts';

/**
 * What the versions before wrote: no indexes, no index attributes, no links, no schedule entries
 * (those are left out of the fixture's items).
 */
const NEW_ATTRIBUTES = [
  'gsi1pk',
  'gsi1sk',
  'gsi2pk',
  'gsi2sk',
  'gsi4pk',
  'gsi4sk',
  'subscribedAt',
  'createdAt',
];
/** The due-index entry the version before kept on notification 700 itself: a schedule change a pass had not acted on. */
const HELD_DUE_AT = '2026-11-20T10:00:00.000Z';
const asPreviousVersion = (item: Item): Item =>
  Object.fromEntries(Object.entries(item).filter(([name]) => !NEW_ATTRIBUTES.includes(name)));

let api: LocalApi;
let client: ReturnType<typeof lifecycleClient>;

beforeAll(async () => {
  const {
    GlobalSecondaryIndexes: _none,
    AttributeDefinitions = [],
    ...previous
  } = tableDefinition(tableName());
  await documentClient().send(
    new CreateTableCommand({
      ...previous,
      AttributeDefinitions: AttributeDefinitions.filter((definition) =>
        ['pk', 'sk'].includes(definition.AttributeName as string),
      ),
    }),
  );
  const fixture = parseFixture(lifecycleFixture);
  const items = fixtureItems(fixture)
    .filter((item) => item.entity !== 'DASHBOARD_LINK' && item.entity !== 'SCHEDULE')
    .map(asPreviousVersion)
    .map((item) =>
      item.sk === 'NOTIFICATION' && item.id === 700
        ? {
            ...item,
            gsi3pk: 'DUE#3',
            gsi3sk: `${HELD_DUE_AT}#NOTIFICATION#7#700`,
            gsi3changed: `${HELD_DUE_AT}#NOTIFICATION#7#700`,
          }
        : item,
    );
  const notification = { deploymentId: 7, id: 700, dashboardId: 70 };
  const rows = [1, 4].map((userId) =>
    asPreviousVersion(encodeRecipient(notification, { type: 'USER', userId })),
  );
  // A row of the version before the recipient-on-a-dashboard index: every index attribute but gsi4's.
  const {
    gsi4pk: _pk,
    gsi4sk: _sk,
    ...beforeGsi4
  } = encodeRecipient({ deploymentId: 7, id: 701, dashboardId: 71 }, { type: 'USER', userId: 4 });
  await batchWriteAll([...items, ...rows, beforeGsi4].map((item) => ({ PutRequest: { Item: item } })));
});
afterAll(() => api?.close());

describe('npm run migrate', () => {
  // Creating four indexes one after another on DynamoDB Local takes tens of seconds on a busy machine.
  it('adds the indexes and index attributes, after which every list works', async () => {
    const report = await migrateTable();
    expect(report).toMatchObject({
      indexesCreated: ['gsi1', 'gsi2', 'gsi3', 'gsi4'],
      notifications: 3,
      recipients: 3,
      dashboardLinks: 3,
      scheduleEntries: 3,
      highestNotificationId: 800,
    });
    const { Table } = await documentClient().send(new DescribeTableCommand({ TableName: tableName() }));
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort()).toEqual([
      'gsi1',
      'gsi2',
      'gsi3',
      'gsi4',
    ]);

    api = await startLocalApi({});
    client = lifecycleClient(api);
    expect((await client.list()).body.items.map((item: { id: number }) => item.id)).toEqual([701, 700]);
    expect((await client.list('dashboardId=70')).body.items.map((item: { id: number }) => item.id)).toEqual([
      700,
    ]);
    expect(
      (await client.list('recipientUserId=4')).body.items.map((item: { id: number }) => item.id),
    ).toEqual([701, 700]);
    expect(
      (await client.list('recipientUserId=4&dashboardId=71')).body.items.map(
        (item: { id: number }) => item.id,
      ),
    ).toEqual([701]);
    const recipients = (await client.recipients(700)).body.items.map(
      (item: { userId: number }) => item.userId,
    );
    expect(recipients.sort()).toEqual([1, 4]);
    // Each notification has its stored reading and its upcoming instants; the one whose due entry the
    // item held keeps that instant first (a pass fires it), and the item itself left the due index.
    for (const item of (await client.list()).body.items) {
      expect(item.humanReadableSchedule).toBe(describeCron(item.cronExpression));
      if (item.isEnabled) expect(Date.parse(item.nextRunAt)).toBeGreaterThan(Date.now());
    }
    const held = await getItem(keys.scheduleEntry(7, 700));
    expect((held?.upcoming as number[] | undefined)?.[0]).toBe(Date.parse(HELD_DUE_AT));
    expect(held?.gsi3sk).toBe(`${HELD_DUE_AT}#NOTIFICATION#7#700`);
    const item = await getItem(keys.notification(7, 700));
    expect([item?.gsi3pk, item?.gsi3sk, item?.gsi3changed]).toEqual([undefined, undefined, undefined]);
    const created = await client.create({ dashboardId: 71, scheduleType: 'HOURLY' });
    expect(created.status).toBe(201);
    expect(created.body.id).toBeGreaterThan(800);
  }, 120_000);

  it('changes nothing when run again', async () => {
    const again = await migrateTable();
    expect(again).toMatchObject({
      indexesCreated: [],
      notifications: 0,
      recipients: 0,
      dashboardLinks: 0,
      scheduleEntries: 0,
    });
    expect((await client.list()).body.items).toHaveLength(3);
  });
});

describe('npm run migrate, after the due-index shard hash changed', () => {
  it('moves a schedule entry waiting in another shard into its own, once', async () => {
    const key = keys.scheduleEntry(7, 700);
    const { gsi3pk: own } = dueIndexKeys.notification(7, 700, 0);
    const elsewhere = dueIndexKeys.shard((dueShard(7, 700) + 1) % DUE_INDEX_SHARDS);
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET gsi3pk = :elsewhere',
        ExpressionAttributeValues: { ':elsewhere': elsewhere },
      }),
    );
    const before = await getItem(key);
    expect((await migrateTable()).dueShardsMoved).toBe(1);
    const after = await getItem(key);
    expect(after?.gsi3pk).toBe(own);
    // Only the shard changed: the instant it is due at and its instants are as they were.
    expect({ ...after, gsi3pk: elsewhere }).toEqual(before);
    expect((await migrateTable()).dueShardsMoved).toBe(0);
  });
});

describe('npm run migrate, after the owner and status lists', () => {
  it('files an owned and paused notification written before them in both lists, once', async () => {
    // Notification 700 as a version before the lists left it: owned by ada and paused, with no
    // entry in her list (gsi4) and no hold entry.
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.notification(7, 700),
        UpdateExpression: 'SET #owner = :owner, #hold = :hold REMOVE gsi4pk, gsi4sk',
        ExpressionAttributeNames: { '#owner': 'owner', '#hold': 'hold' },
        ExpressionAttributeValues: {
          ':owner': { type: 'USER', userId: 1, email: 'ada@example.com' },
          ':hold': { pause: { until: null, reason: 'before the lists' }, suspended: false },
        },
      }),
    );
    const ids = async (query: string) =>
      (await client.list(query)).body.items.map((item: { id: number }) => item.id);
    expect(await ids('ownerUserId=1')).not.toContain(700);
    expect(await ids('status=paused')).toEqual([]);

    expect(await migrateTable()).toMatchObject({ ownerEntries: 1, holdEntries: 1 });
    expect(await ids('ownerUserId=1')).toContain(700);
    expect(await ids('status=paused&ownerUserId=1&dashboardId=70')).toEqual([700]);
    expect((await client.list('status=paused')).body.items[0]).toMatchObject({
      id: 700,
      status: 'paused',
      statusReason: 'before the lists',
    });
    expect(await migrateTable()).toMatchObject({ ownerEntries: 0, holdEntries: 0 });
  });
});
