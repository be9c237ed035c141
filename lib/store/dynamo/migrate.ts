import {
  DescribeTableCommand,
  type GlobalSecondaryIndexDescription,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { PutCommand, ScanCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Notification } from '#lib/domain/notifications/notification';
import { describeCron } from '#lib/domain/schedules/cron';
import { cronExpressionOf, scheduleSignature } from '#lib/domain/schedules/schedule';
import { upcomingAfter } from '#lib/domain/schedules/schedule-planning';
import { decodeDashboard, encodeDashboardLink } from '#lib/store/codecs/dashboards';
import { decodeKey } from '#lib/store/codecs/keys';
import { decodeNotification, encodeScheduleEntry, scheduleMarksOf } from '#lib/store/codecs/notifications';
import { decodeRecipient, decodeRecipientParent, identityOf } from '#lib/store/codecs/recipients';
import { retentionOf } from '#lib/store/codecs/runs';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { conditionHeld, transact } from '#lib/store/dynamo/conditional';
import * as indexKeys from '#lib/store/dynamo/index-keys';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem, type Item } from '#lib/store/dynamo/items';
import {
  DUE_INDEX,
  dueIndexKeys,
  indexes,
  parseNotificationPartition,
  TIME_TO_LIVE_ATTRIBUTE,
} from '#lib/store/dynamo/keys';
import { allPages, pageOf } from '#lib/store/dynamo/query';
import { globalSecondaryIndexes, tableDefinition } from '#lib/store/dynamo/table-definition';
import { holdEntryItem } from '#lib/store/governance/hold-entries';
import { reserveNotificationIdsThrough } from '#lib/store/notifications/notification-ids';

/**
 * Brings a table written by the version before the lifecycle routes up to date, and can run any
 * number of times: it adds the secondary indexes the table lacks (a local engine; deployed, the CDK
 * stack declares them), gives notification and recipient items the index attributes they lack, writes the
 * dashboards' by-id links, gives each notification its schedule entry (its reading and upcoming
 * instants; it takes over the due-index entry an older version kept on the notification item), gives
 * runs and deliveries written before run history expired their TTL attribute (their run's instant
 * plus RUN_RETENTION_DAYS), moves schedule entries into the due-index shard their notification
 * hashes to, files notifications in their owner's list and held ones in the status lists (the hold
 * entry), and moves the notification id counter past every stored id. Each write
 * is conditional on the attribute being absent, so a second run, or a run beside live traffic,
 * changes nothing that is already right and never overwrites what it does not add.
 */

export interface MigrationReport {
  indexesCreated: string[];
  scanned: number;
  notifications: number;
  recipients: number;
  dashboardLinks: number;
  scheduleEntries: number;
  /** Runs and deliveries written before run history expired, given their TTL attribute. */
  runHistory: number;
  /** Schedule entries moved into the due-index shard their notification now hashes to. */
  dueShardsMoved: number;
  /** Notifications owned by a console user given their entry in the owner's list (gsi4). */
  ownerEntries: number;
  /** Held notifications (paused, suspended) given their hold entry, which the status lists read. */
  holdEntries: number;
  highestNotificationId: number;
}

const WAIT_MS = 200;

async function describeIndexes(): Promise<GlobalSecondaryIndexDescription[] | undefined> {
  const { Table } = await documentClient().send(new DescribeTableCommand({ TableName: tableName() }));
  return Table?.GlobalSecondaryIndexes;
}

async function waitUntilIndexesActive(): Promise<void> {
  for (let attempt = 0; attempt < 3000; attempt++) {
    const indexes = (await describeIndexes()) ?? [];
    if (indexes.every((index) => index.IndexStatus === 'ACTIVE')) return;
    await new Promise((resolve) => setTimeout(resolve, WAIT_MS));
  }
  throw new Error('The secondary indexes did not become active');
}

/** DynamoDB creates one index per UpdateTable call. */
async function addMissingIndexes(): Promise<string[]> {
  const present = new Set(((await describeIndexes()) ?? []).map((index) => index.IndexName));
  const wanted = tableDefinition(tableName()).GlobalSecondaryIndexes ?? [];
  const created: string[] = [];
  for (const index of wanted) {
    const names = globalSecondaryIndexes.find((candidate) => candidate.name === index.IndexName);
    if (!names || present.has(names.name)) continue;
    await documentClient().send(
      new UpdateTableCommand({
        TableName: tableName(),
        AttributeDefinitions: [
          { AttributeName: names.partitionKey, AttributeType: 'S' },
          { AttributeName: names.sortKey, AttributeType: 'S' },
        ],
        GlobalSecondaryIndexUpdates: [{ Create: index }],
      }),
    );
    await waitUntilIndexesActive();
    created.push(names.name);
  }
  return created;
}

/** Sets `values` on the item unless it already has `guard`; false when it had. */
async function addAttributes(item: Item, values: Record<string, unknown>, guard: string): Promise<boolean> {
  const names = Object.keys(values);
  return conditionHeld(() =>
    documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: decodeKey(item),
        UpdateExpression: `SET ${names.map((_, i) => `#n${i} = :v${i}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#guard)',
        ExpressionAttributeNames: {
          ...Object.fromEntries(names.map((name, i) => [`#n${i}`, name])),
          '#guard': guard,
        },
        ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:v${i}`, values[name]])),
      }),
    ),
  );
}

function putIfAbsent(item: Item): Promise<boolean> {
  return conditionHeld(() =>
    documentClient().send(
      new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
    ),
  );
}

/**
 * The notification's schedule entry, unless it has one: its instants after `now`, led by the instant
 * the item's own due-index entry held if that is due already (written by a version that kept the
 * entry on the item; it may mark a schedule change a pass has not acted on yet), so nothing due is
 * lost. Then the item leaves the due index, on the condition that its entry is still the one read.
 */
async function moveScheduleEntry(item: Item, notification: Notification, now: number): Promise<boolean> {
  const { scheduleVersion, changeKey: held } = scheduleMarksOf(item);
  const heldInstant = held === undefined ? undefined : dueIndexKeys.instantOf(held);
  const ahead = upcomingAfter(notification, now);
  const upcoming =
    heldInstant !== undefined && heldInstant <= now && notification.isEnabled
      ? [heldInstant, ...ahead]
      : ahead;
  const created = await putIfAbsent(
    encodeScheduleEntry(notification, {
      humanReadableSchedule: describeCron(cronExpressionOf(notification)),
      upcoming,
      signature: scheduleSignature(notification),
      scheduleVersion,
    }),
  );
  if (held !== undefined) {
    await conditionHeld(() =>
      documentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: decodeKey(item),
          UpdateExpression: 'REMOVE #pk, #sk, #changed',
          ConditionExpression: '#sk = :held',
          ExpressionAttributeNames: {
            '#pk': DUE_INDEX.partitionKey,
            '#sk': DUE_INDEX.sortKey,
            '#changed': 'gsi3changed',
          },
          ExpressionAttributeValues: { ':held': held },
        }),
      ),
    );
  }
  return created;
}

/**
 * A schedule entry waiting in a due-index shard other than the one its notification hashes to (it
 * was written before the shard hash changed) moves to it, on the condition that it is still where and
 * as it was read. Waiting there is harmless (a pass reads every shard, and a fire moves the entry to
 * its shard): this only evens the shards out at once rather than over the entries' next instants.
 */
async function moveToItsShard(item: Item): Promise<boolean> {
  const { gsi3pk: held, gsi3sk: dueKey, deploymentId, id } = item;
  if (typeof held !== 'string' || typeof dueKey !== 'string') return false;
  if (typeof deploymentId !== 'number' || typeof id !== 'number') return false;
  const { gsi3pk: wanted } = dueIndexKeys.notification(deploymentId, id, dueIndexKeys.instantOf(dueKey));
  if (held === wanted) return false;
  return conditionHeld(() =>
    documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: decodeKey(item),
        UpdateExpression: 'SET #pk = :wanted',
        ConditionExpression: '#pk = :held AND #sk = :dueKey',
        ExpressionAttributeNames: { '#pk': DUE_INDEX.partitionKey, '#sk': DUE_INDEX.sortKey },
        ExpressionAttributeValues: { ':wanted': wanted, ':held': held, ':dueKey': dueKey },
      }),
    ),
  );
}

/**
 * A notification a console user owns, written before the owner lists, gets its entry in its owner's
 * list, on the condition that it has none and the owner is still the one read (a transfer since moved
 * it, or will: it writes the entry itself).
 */
async function addOwnerEntry(item: Item, notification: Notification): Promise<boolean> {
  const owner = notification.owner;
  if (owner?.type !== 'USER' || item[indexes.gsi4.partitionKey] !== undefined) return false;
  const entry = indexKeys.ownedNotification(notification.deploymentId, notification.id, owner);
  return conditionHeld(() =>
    documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: decodeKey(item),
        UpdateExpression: 'SET #pk = :pk, #sk = :sk',
        ConditionExpression:
          'attribute_not_exists(#pk) AND #owner.#type = :user AND #owner.#userId = :userId',
        ExpressionAttributeNames: {
          '#pk': indexes.gsi4.partitionKey,
          '#sk': indexes.gsi4.sortKey,
          '#owner': 'owner',
          '#type': 'type',
          '#userId': 'userId',
        },
        ExpressionAttributeValues: {
          ':pk': entry.gsi4pk,
          ':sk': entry.gsi4sk,
          ':user': 'USER',
          ':userId': owner.userId,
        },
      }),
    ),
  );
}

/**
 * A notification held (paused, suspended) by a version before the status lists gets its hold entry,
 * on the condition that the notification is still at the version read (a hold write since wrote or
 * deleted the entry itself) and that it has none.
 */
async function addHoldEntry(item: Item, notification: Notification): Promise<boolean> {
  const entry = holdEntryItem(notification, notification.hold);
  if (!entry) return false;
  const version = typeof item.version === 'number' ? item.version : 0;
  return transact(
    () =>
      documentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: tableName(),
                Key: decodeKey(item),
                ConditionExpression:
                  version === 0
                    ? 'attribute_exists(pk) AND (attribute_not_exists(#version) OR #version = :read)'
                    : 'attribute_exists(pk) AND #version = :read',
                ExpressionAttributeNames: { '#version': 'version' },
                ExpressionAttributeValues: { ':read': version },
              },
            },
            { Put: { TableName: tableName(), Item: entry, ConditionExpression: 'attribute_not_exists(pk)' } },
          ],
        }),
      ),
    {
      written: true,
      cancelled: (cancellation) => (cancellation.failedAt(0) || cancellation.failedAt(1) ? false : undefined),
    },
  );
}

/** The dashboard of each notification whose rows the scan meets, read once per notification. */
function dashboardsOfNotifications() {
  const known = new Map<string, Promise<number | undefined>>();
  return (notification: { deploymentId: number; id: number }) => {
    const key = keys.notification(notification.deploymentId, notification.id);
    let found = known.get(key.pk);
    if (!found) {
      found = getItem(key).then((item) => (item ? decodeRecipientParent(item).dashboardId : undefined));
      known.set(key.pk, found);
    }
    return found;
  };
}

/**
 * A recipient row's index attributes: every one for a row written before the indexes existed, the
 * recipient-on-dashboard entry (gsi4) for a row written before that index. A row whose notification
 * is gone (a delete still sweeping) gets none.
 */
async function addRecipientIndexes(
  item: Item,
  subscribedAt: string,
  dashboardOf: ReturnType<typeof dashboardsOfNotifications>,
): Promise<boolean> {
  const key = decodeKey(item);
  const parsed = parseNotificationPartition(key.pk);
  const dashboardId = parsed && (await dashboardOf(parsed));
  if (!parsed || dashboardId === undefined) return false;
  const notification = { ...parsed, dashboardId };
  const identity = identityOf(decodeRecipient(item));
  if (item.gsi1pk === undefined) {
    const values = indexKeys.recipient(notification, identity, subscribedAt, key.sk);
    return addAttributes(item, { subscribedAt, ...values }, 'gsi1pk');
  }
  if (item.gsi4pk !== undefined) return false;
  return addAttributes(item, indexKeys.recipientOnDashboard(notification, identity), 'gsi4pk');
}

export async function migrateTable(now = new Date()): Promise<MigrationReport> {
  const report: MigrationReport = {
    indexesCreated: await addMissingIndexes(),
    scanned: 0,
    notifications: 0,
    recipients: 0,
    dashboardLinks: 0,
    scheduleEntries: 0,
    runHistory: 0,
    dueShardsMoved: 0,
    ownerEntries: 0,
    holdEntries: 0,
    highestNotificationId: 0,
  };
  // Rows subscribed before the index existed have no subscription instant: the migration's own
  // instant stands in for it, so they list after every later subscription.
  const subscribedAt = now.toISOString();
  const dashboardOf = dashboardsOfNotifications();
  const scan = async (start: Item | undefined) =>
    pageOf(
      await documentClient().send(
        new ScanCommand({ TableName: tableName(), ExclusiveStartKey: start, ConsistentRead: true }),
      ),
    );
  for await (const page of allPages(scan)) {
    for (const item of page.items) {
      report.scanned++;
      if (item.entity === 'NOTIFICATION') {
        const notification = decodeNotification(item);
        report.highestNotificationId = Math.max(report.highestNotificationId, notification.id);
        const values = indexKeys.notification(
          notification.deploymentId,
          notification.id,
          notification.dashboardId,
        );
        if (await addAttributes(item, values, 'gsi1pk')) report.notifications++;
        if (await moveScheduleEntry(item, notification, now.getTime())) report.scheduleEntries++;
        if (await addOwnerEntry(item, notification)) report.ownerEntries++;
        if (await addHoldEntry(item, notification)) report.holdEntries++;
      } else if (item.entity === 'RECIPIENT') {
        if (await addRecipientIndexes(item, subscribedAt, dashboardOf)) report.recipients++;
      } else if ((item.entity === 'RUN' || item.entity === 'DELIVERY') && !(TIME_TO_LIVE_ATTRIBUTE in item)) {
        // The run id is the run's attribute, and the second part of a delivery's sort key.
        const runId = item.entity === 'RUN' ? String(item.runId) : String(item.sk).split('#')[1];
        const retention = retentionOf(runId ?? '');
        if (
          TIME_TO_LIVE_ATTRIBUTE in retention &&
          (await addAttributes(item, retention, TIME_TO_LIVE_ATTRIBUTE))
        )
          report.runHistory++;
      } else if (item.entity === 'SCHEDULE') {
        if (await moveToItsShard(item)) report.dueShardsMoved++;
      } else if (item.entity === 'DASHBOARD') {
        const link = encodeDashboardLink(decodeDashboard(item));
        if (await putIfAbsent(link)) report.dashboardLinks++;
      }
    }
  }
  if (report.highestNotificationId > 0) await reserveNotificationIdsThrough(report.highestNotificationId);
  return report;
}
