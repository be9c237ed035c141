import { describe, expect, it } from 'vitest';
import * as indexKeys from '#lib/store/dynamo/index-keys';
import * as keys from '#lib/store/dynamo/item-keys';
import {
  awaitingOutcomesIndex,
  DUE_INDEX_SHARDS,
  dueIndexKeys,
  dueShard,
  isRecipientSortKey,
  isSortableId,
  parseNotificationPartition,
  part,
  rowSkOfRecipientSortKey,
  sortableId,
} from '#lib/store/dynamo/keys';

/**
 * Every key string of the table, exactly: a table written by one version is read by the next, so a key
 * that changed shape would lose what is stored under the old one. Free-text parts are percent-encoded,
 * so a `#` in a name never reads as a separator.
 */

describe('the items’ own keys', () => {
  it('of deployments, notifications and what lives in a notification’s partition', () => {
    const partition = 'DEPLOYMENT#9#NOTIFICATION#901';
    expect(keys.notificationPartition(9, 901)).toBe(partition);
    expect(keys.deployment(9)).toEqual({ pk: 'DEPLOYMENT#9', sk: 'DEPLOYMENT' });
    expect(keys.notification(9, 901)).toEqual({ pk: partition, sk: 'NOTIFICATION' });
    expect(keys.scheduleEntry(9, 901)).toEqual({ pk: partition, sk: 'NOTIFICATION#SCHEDULE' });
    expect(keys.holdEntry(9, 901)).toEqual({ pk: partition, sk: 'HOLD' });
    expect(keys.userRecipient(9, 901, 7)).toEqual({ pk: partition, sk: 'RECIPIENT#USER#7' });
    expect(keys.embedRecipient(9, 901, 'ac#me', 'mia@acme.com')).toEqual({
      pk: partition,
      sk: 'RECIPIENT#EMBED_USER#ac%23me#mia%40acme.com',
    });
    expect(keys.run(9, 901, '20260102T030405006Z')).toEqual({ pk: partition, sk: 'RUN#20260102T030405006Z' });
    expect(keys.deliveryPrefix('r1')).toBe('DELIVERY#r1#');
    expect(keys.delivery(9, 901, 'r1', 'd1')).toEqual({ pk: partition, sk: 'DELIVERY#r1#d1' });
    expect(keys.sendNowMarker(9, 901)).toEqual({ pk: partition, sk: 'SEND_NOW' });
  });

  it('of users, their links, dashboards, tenants and embed users', () => {
    expect(keys.user(7)).toEqual({ pk: 'USER#7', sk: 'USER' });
    // E-mail addresses compare case-insensitively: the key is the lower-cased address.
    expect(keys.userByEmail('Eve#1@Example.com')).toEqual({
      pk: 'USER_EMAIL#eve%231%40example.com',
      sk: 'USER_EMAIL',
    });
    expect(keys.userBySubject('Sub#1')).toEqual({ pk: 'USER_SUBJECT#Sub%231', sk: 'USER_SUBJECT' });
    expect(keys.apiKey('ab12')).toEqual({ pk: 'API_KEY#ab12', sk: 'API_KEY' });
    expect(keys.dashboard('sales#1')).toEqual({ pk: 'DASHBOARD#sales%231', sk: 'DASHBOARD' });
    expect(keys.dashboardById(9, 90)).toEqual({ pk: 'DEPLOYMENT#9#DASHBOARD#90', sk: 'DASHBOARD_LINK' });
    expect(keys.embedTenant('ac#me')).toEqual({ pk: 'EMBED_TENANT#ac%23me', sk: 'EMBED_TENANT' });
    expect(keys.embedUser('ac#me', 'mia@acme.com')).toEqual({
      pk: 'EMBED_USER#ac%23me#mia%40acme.com',
      sk: 'EMBED_USER',
    });
    expect(keys.selfServiceCount('acme', 'mia')).toEqual({
      pk: 'EMBED_USER#acme#mia',
      sk: 'SELF_SERVICE_COUNT',
    });
    expect(keys.selfServiceLink('acme', 'mia', 901)).toEqual({
      pk: 'EMBED_USER#acme#mia',
      sk: 'SELF_SERVICE#000000000000901',
    });
  });

  it('of idempotency records, purges, counters, suppressions and audit events', () => {
    expect(keys.idempotencyRecord(9, 'USER#1', 'key 1')).toEqual({
      pk: 'DEPLOYMENT#9#IDEMPOTENCY#USER%231#key%201',
      sk: 'IDEMPOTENCY',
    });
    expect(keys.purge(9, 901)).toEqual({ pk: 'PURGE#9#901', sk: 'PURGE' });
    expect(keys.counter('notification')).toEqual({ pk: 'COUNTER#notification', sk: 'COUNTER' });
    expect(keys.suppressionsPartition(9)).toBe('DEPLOYMENT#9#SUPPRESSIONS');
    expect(keys.suppression(9, 'eve#1@example.com')).toEqual({
      pk: 'DEPLOYMENT#9#SUPPRESSIONS',
      sk: 'EMAIL#eve%231%40example.com',
    });
    expect(keys.auditPartition(9, 901)).toBe('DEPLOYMENT#9#AUDIT#NOTIFICATION#901');
    expect(keys.auditEvent(9, 901, 'e1')).toEqual({
      pk: 'DEPLOYMENT#9#AUDIT#NOTIFICATION#901',
      sk: 'EVENT#e1',
    });
  });

  it('percent-encode a free-text part, and only that', () => {
    expect(part('a#b c/é')).toBe('a%23b%20c%2F%C3%A9');
    expect(part('plain-text_1')).toBe('plain-text_1');
  });
});

describe('the list indexes’ keys', () => {
  const onDashboard = { deploymentId: 9, id: 901, dashboardId: 90 };
  const user = { type: 'USER', userId: 7 } as const;
  const embedUser = { type: 'EMBED_USER', embedUserId: 5 } as const;

  it('of a notification: its deployment’s and its dashboard’s lists, newest first by id', () => {
    expect(indexKeys.notification(9, 901, 90)).toEqual({
      gsi1pk: 'DEPLOYMENT#9#NOTIFICATIONS',
      gsi1sk: '000000000000901',
      gsi2pk: 'DEPLOYMENT#9#DASHBOARD#90#NOTIFICATIONS',
      gsi2sk: '000000000000901',
    });
  });

  it('of its owner’s list: a console user’s only', () => {
    expect(indexKeys.ownedNotification(9, 901, { type: 'USER', userId: 7, email: 'e@x.y' })).toEqual({
      gsi4pk: 'DEPLOYMENT#9#OWNER#USER#7#NOTIFICATIONS',
      gsi4sk: '000000000000901',
    });
    expect(
      indexKeys.ownedNotification(9, 901, {
        type: 'EMBED_USER',
        embedTenantName: 'acme',
        externalId: 'm',
        embedUserId: 5,
      }),
    ).toEqual({});
    expect(indexKeys.ownedNotification(9, 901, null)).toEqual({});
  });

  it('of a hold entry, in the lists of its status', () => {
    expect(indexKeys.heldNotification(onDashboard, 'paused')).toEqual({
      gsi1pk: 'DEPLOYMENT#9#STATUS#PAUSED#NOTIFICATIONS',
      gsi1sk: '000000000000901',
      gsi2pk: 'DEPLOYMENT#9#DASHBOARD#90#STATUS#PAUSED#NOTIFICATIONS',
      gsi2sk: '000000000000901',
    });
    expect(indexKeys.notificationsWithStatus(9, 'suspended')).toBe(
      'DEPLOYMENT#9#STATUS#SUSPENDED#NOTIFICATIONS',
    );
  });

  it('of a recipient row: its notification’s list, its recipient’s, and its recipient’s on the dashboard', () => {
    expect(indexKeys.recipient(onDashboard, user, '2026-01-02T03:04:05.006Z', 'RECIPIENT#USER#7')).toEqual({
      gsi1pk: 'DEPLOYMENT#9#NOTIFICATION#901#RECIPIENTS',
      gsi1sk: '2026-01-02T03:04:05.006Z#RECIPIENT#USER#7',
      gsi2pk: 'DEPLOYMENT#9#RECIPIENT#USER#7#NOTIFICATIONS',
      gsi2sk: '000000000000901',
      gsi4pk: 'DEPLOYMENT#9#DASHBOARD#90#RECIPIENT#USER#7#NOTIFICATIONS',
      gsi4sk: '000000000000901',
    });
    expect(indexKeys.recipientOnDashboard(onDashboard, embedUser)).toEqual({
      gsi4pk: 'DEPLOYMENT#9#DASHBOARD#90#RECIPIENT#EMBED_USER#5#NOTIFICATIONS',
      gsi4sk: '000000000000901',
    });
    expect(indexKeys.notificationsOfRecipient(9, embedUser)).toBe(
      'DEPLOYMENT#9#RECIPIENT#EMBED_USER#5#NOTIFICATIONS',
    );
  });

  it('of failed deliveries, tombstones and audit events', () => {
    expect(indexKeys.failedDelivery(9, 901, 'r1', 'd1')).toEqual({
      gsi1pk: 'DEPLOYMENT#9#NOTIFICATION#901#RUN#r1#FAILED',
      gsi1sk: 'd1',
    });
    expect(indexKeys.purge(9, 901, '2026-01-02T03:04:05.006Z')).toEqual({
      gsi1pk: 'PURGES',
      gsi1sk: '2026-01-02T03:04:05.006Z#9#901',
    });
    expect(indexKeys.auditEvent(9, 901, 'e1')).toEqual({
      gsi1pk: 'DEPLOYMENT#9#EVENTS',
      gsi1sk: 'e1#000000000000901',
    });
  });
});

describe('sort keys read back', () => {
  it('ids are zero-padded to 15 digits, so that their string order is their numeric order', () => {
    expect(sortableId(901)).toBe('000000000000901');
    expect(sortableId(999_999_999_999_999)).toBe('999999999999999');
    expect(isSortableId('000000000000901')).toBe(true);
    for (const other of ['00000000000901', '0000000000009010', 'x00000000000901', '000000000000901\n'])
      expect(isSortableId(other)).toBe(false);
  });

  it('a recipient row’s gsi1 sort key is its subscription instant, then its own sort key', () => {
    const sortKey = '2026-01-02T03:04:05.006Z#RECIPIENT#EMBED_USER#acme#mia';
    expect(isRecipientSortKey(sortKey)).toBe(true);
    expect(rowSkOfRecipientSortKey(sortKey)).toBe('RECIPIENT#EMBED_USER#acme#mia');
    for (const other of [
      '2026-01-02T03:04:05Z#RECIPIENT#USER#7',
      '2026-01-02T03:04:05.006Z#RECIPIENT#',
      '2026-01-02T03:04:05.006Z#RUN#1',
      'x2026-01-02T03:04:05.006Z#RECIPIENT#USER#7',
      '2026-01-02 03:04:05.006Z#RECIPIENT#USER#7',
      '2026-01-02T03:04:05.006Z#RECIPIENT#USER#7\n',
    ])
      expect(isRecipientSortKey(other)).toBe(false);
  });

  it('a notification’s partition names its deployment and id, and nothing else does', () => {
    expect(parseNotificationPartition('DEPLOYMENT#9#NOTIFICATION#901')).toEqual({ deploymentId: 9, id: 901 });
    expect(parseNotificationPartition('DEPLOYMENT#19#NOTIFICATION#901')).toEqual({
      deploymentId: 19,
      id: 901,
    });
    for (const other of [
      'DEPLOYMENT#9#NOTIFICATION#901#RECIPIENTS',
      'XDEPLOYMENT#9#NOTIFICATION#901',
      'DEPLOYMENT#9#NOTIFICATION#',
      'DEPLOYMENT#x#NOTIFICATION#901',
    ])
      expect(parseNotificationPartition(other)).toBeUndefined();
  });
});

/** The shard as written out in 64-bit integers: Fibonacci hashing of the 32-bit mixed key, its top 6 bits. */
function referenceShard(deploymentId: number, notificationId: number): number {
  const word = 2n ** 32n;
  const id = BigInt(notificationId);
  const mixed = (BigInt((deploymentId ^ Number(id / word)) >>> 0) * 0x85ebca6bn) % word;
  const key = ((id % word) + mixed) % word;
  return Number(((key * 0x9e3779b9n) % word) >> 26n);
}

describe('the due index', () => {
  it('shards a notification by Fibonacci hashing of its deployment and id', () => {
    const identities: [number, number][] = [
      [9, 901],
      [1, 1],
      [0, 0],
      [123, 2 ** 32 + 5],
      [7, 999_999_999_999_999],
      [2 ** 31, 3],
    ];
    for (const [deploymentId, id] of identities)
      expect(dueShard(deploymentId, id)).toBe(referenceShard(deploymentId, id));
  });

  it('spreads 10,000 consecutive ids evenly: 155 to 158 to each of the 64 shards', () => {
    const counts = new Array<number>(DUE_INDEX_SHARDS).fill(0);
    for (let id = 1; id <= 10_000; id++) {
      const shard = dueShard(9, id);
      counts[shard] = (counts[shard] ?? 0) + 1;
    }
    expect(Math.min(...counts)).toBe(155);
    expect(Math.max(...counts)).toBe(158);
  });

  it('keys a schedule entry and a run by shard, then instant', () => {
    const shard = dueShard(9, 901);
    const instant = Date.parse('2026-01-05T09:00:00.000Z');
    expect(dueIndexKeys.notification(9, 901, instant)).toEqual({
      gsi3pk: `DUE#${shard}`,
      gsi3sk: '2026-01-05T09:00:00.000Z#NOTIFICATION#9#901',
    });
    expect(dueIndexKeys.run(9, 901, 'r1', instant)).toEqual({
      gsi3pk: `DUE#${shard}`,
      gsi3sk: '2026-01-05T09:00:00.000Z#RUN#9#901#r1',
    });
    expect(dueIndexKeys.shard(12)).toBe('DUE#12');
    expect(dueIndexKeys.shardOf('DUE#12')).toBe(12);
    expect(dueIndexKeys.instantOf('2026-01-05T09:00:00.000Z#RUN#9#901#r1')).toBe(instant);
    // Everything due at the instant itself sorts below the bound.
    expect(dueIndexKeys.dueBound(instant)).toBe('2026-01-05T09:00:00.001Z');
  });

  it('keeps runs awaiting outcomes in a partition per shard, and reads the unsharded one still', () => {
    const partitions = awaitingOutcomesIndex.partitions();
    expect(partitions).toHaveLength(65);
    expect(partitions[0]).toBe('AWAITING_OUTCOMES#0');
    expect(partitions[63]).toBe('AWAITING_OUTCOMES#63');
    expect(partitions[64]).toBe('AWAITING_OUTCOMES');
    const since = Date.parse('2026-01-05T09:00:00.000Z');
    expect(awaitingOutcomesIndex.run(9, 901, 'r1', since)).toEqual({
      gsi3pk: `AWAITING_OUTCOMES#${dueShard(9, 901)}`,
      gsi3sk: '2026-01-05T09:00:00.000Z#RUN#9#901#r1',
    });
    expect(awaitingOutcomesIndex.before(since)).toBe('2026-01-05T09:00:00.000Z');
  });
});
