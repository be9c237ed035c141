import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { noHold } from '#lib/domain/governance/governance';
import type { Notification } from '#lib/domain/notifications/notification';
import type { StoredRecipient } from '#lib/domain/recipients/recipients-resolution';
import { decodeCounter } from '#lib/store/codecs/counters';
import {
  decodeDashboard,
  decodeDashboardLink,
  encodeDashboard,
  encodeDashboardLink,
} from '#lib/store/codecs/dashboards';
import { decodeDeployment, encodeDeployment } from '#lib/store/codecs/deployments';
import { decodeDueEntry, decodeSendNowMarker } from '#lib/store/codecs/dispatch';
import { decodeEmbedUser, encodeEmbedUser } from '#lib/store/codecs/embed-users';
import {
  decodeIdempotencyRecord,
  encodeIdempotencyClaim,
  encodeIdempotencyResult,
} from '#lib/store/codecs/idempotency';
import {
  decodeNotification,
  decodeScheduledNotification,
  encodeNotification,
  encodeScheduleEntry,
} from '#lib/store/codecs/notifications';
import { decodeRecipient, encodeRecipient } from '#lib/store/codecs/recipients';
import { decodeDelivery, decodeRun, encodeDelivery, encodeRun } from '#lib/store/codecs/runs';
import { checkItem, MalformedItemError } from '#lib/store/codecs/stored-item';
import {
  decodeConsoleUser,
  decodeEmbedTenant,
  decodeUserLink,
  encodeApiKeyLink,
  encodeConsoleUser,
  encodeEmailLink,
  encodeEmbedTenant,
  encodeSubjectLink,
} from '#lib/store/codecs/users';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem, type Item } from '#lib/store/dynamo/items';
import { nextNotificationId, reserveNotificationIdsThrough } from '#lib/store/notifications/notification-ids';
import { ADMIN_KEY, consoleUsers } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { captureLogs, type LogCapture } from '#test/support/log-capture';

// Lines are read here: the logger, built on import, must write them.
vi.hoisted(() => {
  process.env.LOG_LEVEL = 'info';
});

/**
 * Each entity's encode/decode pair against a real table: what encode writes, DynamoDB stores and
 * decode reads back is the value written; the attribute names are pinned, since a table written by
 * an earlier version must keep reading; a stored item of the wrong shape is an error naming it.
 */

let api: LocalApi;
let logs: LogCapture | undefined;

beforeAll(async () => {
  api = await startLocalApi({
    users: consoleUsers,
    dashboards: [{ id: 40, deploymentId: 4, publicId: 'broken', title: 'Broken' }],
  });
});
afterAll(() => api.close());
afterEach(() => logs?.end());

const put = (item: Item) => documentClient().send(new PutCommand({ TableName: tableName(), Item: item }));

/** Writes the item and reads it back as stored. */
async function stored(item: Item): Promise<Item> {
  await put(item);
  const read = await getItem({ pk: item.pk as string, sk: item.sk as string });
  expect(read).toBeDefined();
  return read as Item;
}

const attributeNames = (item: Item) => Object.keys(item).sort();

const notification: Notification = {
  id: 901,
  deploymentId: 9,
  dashboardId: 90,
  scheduleType: 'WEEKLY',
  minute: 15,
  hour: 8,
  dayOfWeek: 1,
  timezone: 'Europe/Berlin',
  isEnabled: true,
  notificationEnabled: false,
  notificationFormat: 'pdf',
  // Numbers DynamoDB could not hold, an empty key: kept exactly through the JSON text.
  filters: [
    { member: 'Orders.total', operator: 'greater_than', value: 1e300 },
    { member: 'A.b', value: [{ '': [] }] },
  ],
  timeGrains: null,
  memberSwitchers: [{ member: 'Orders.status', selected: 'city' }],
  notificationAiSummary: true,
  owner: null,
  hold: noHold(),
};

describe('round trips: decode(stored(encode(value))) is the value', () => {
  it('console user, and the e-mail, subject and API key links to it', async () => {
    const user = { id: 71, email: 'Eve@Example.com', username: 'eve', role: 'admin', active: false } as const;
    const item = await stored(encodeConsoleUser(user));
    expect(decodeConsoleUser(item)).toEqual(user);
    expect(attributeNames(item)).toEqual(['active', 'email', 'entity', 'id', 'pk', 'role', 'sk', 'username']);
    for (const link of [
      encodeEmailLink(user.email, user.id),
      encodeSubjectLink('sub-eve', user.id),
      encodeApiKeyLink('ab'.repeat(32), user.id),
    ]) {
      const read = await stored(link);
      expect(decodeUserLink(read)).toBe(71);
      expect(attributeNames(read)).toEqual(['entity', 'pk', 'sk', 'userId']);
    }
    expect(encodeEmailLink(user.email, 71)).toMatchObject(keys.userByEmail('eve@example.com'));
  });

  it('embed tenant, with inline keys and with a JWKS URI', async () => {
    const inline = {
      name: 'acme#1',
      issuer: 'https://acme.example',
      jwks: { keys: [{ kty: 'EC', kid: 'k1' }] },
    };
    const remote = {
      name: 'globex',
      issuer: 'https://globex.example',
      jwksUri: 'https://globex.example/jwks',
    };
    expect(decodeEmbedTenant(await stored(encodeEmbedTenant(inline)))).toEqual(inline);
    const item = await stored(encodeEmbedTenant(remote));
    expect(decodeEmbedTenant(item)).toEqual(remote);
    expect(attributeNames(item)).toEqual(['entity', 'issuer', 'jwksUri', 'name', 'pk', 'sk']);
  });

  it('deployment', async () => {
    const deployment = { id: 9, name: 'Production' };
    const item = await stored(encodeDeployment(deployment));
    expect(decodeDeployment(item)).toEqual(deployment);
    expect(attributeNames(item)).toEqual(['entity', 'id', 'name', 'pk', 'sk']);
  });

  it('dashboard and its by-id link', async () => {
    const dashboard = {
      id: 90,
      deploymentId: 9,
      publicId: 'sales-overview',
      title: 'Sales',
      published: true,
      allowEmbed: false,
      sharedWithAllEmbedUsers: false,
      sharedWithTenants: ['acme', 'globex'],
    };
    const item = await stored(encodeDashboard(dashboard));
    expect(decodeDashboard(item)).toEqual(dashboard);
    expect(attributeNames(item)).toEqual([
      'allowEmbed',
      'deploymentId',
      'entity',
      'id',
      'pk',
      'publicId',
      'published',
      'sharedWithAllEmbedUsers',
      'sharedWithTenants',
      'sk',
      'title',
    ]);
    const empty = await stored(encodeDashboard({ ...dashboard, publicId: 'empty', sharedWithTenants: [] }));
    expect(decodeDashboard(empty).sharedWithTenants).toEqual([]);
    const link = await stored(encodeDashboardLink(dashboard));
    expect(decodeDashboardLink(link, 9)).toEqual({ id: 90, deploymentId: 9, publicId: 'sales-overview' });
    expect(attributeNames(link)).toEqual(['dashboardId', 'entity', 'pk', 'publicId', 'sk']);
  });

  it('a dashboard item without flags, title or tenants reads as private, untitled and shared with none', async () => {
    const item = await stored({
      ...keys.dashboard('bare'),
      entity: 'DASHBOARD',
      id: 91,
      deploymentId: 9,
      publicId: 'bare',
    });
    expect(decodeDashboard(item)).toEqual({
      id: 91,
      deploymentId: 9,
      publicId: 'bare',
      title: '',
      published: false,
      allowEmbed: false,
      sharedWithAllEmbedUsers: false,
      sharedWithTenants: [],
    });
  });

  it('embed user', async () => {
    const user = {
      embedUserId: 5,
      embedTenantName: 'acme',
      externalId: 'Mia@Acme.com',
      email: 'mia@acme.com',
    };
    const item = await stored(encodeEmbedUser(user));
    expect(decodeEmbedUser(item)).toEqual(user);
    expect(item).toMatchObject(keys.embedUser('acme', 'mia@acme.com'));
    expect(attributeNames(item)).toEqual([
      'email',
      'embedTenantName',
      'embedUserId',
      'entity',
      'externalId',
      'pk',
      'sk',
    ]);
  });

  it.each([
    { type: 'USER', userId: 4, email: 'dave@example.com' } as const,
    { type: 'EMBED_USER', embedTenantName: 'acme', externalId: 'Wile@Acme.example', embedUserId: 9 } as const,
  ])('notification with its owner ($type) and a hold', async (owner) => {
    const held = {
      ...notification,
      owner,
      hold: {
        pause: { until: Date.parse('2027-03-28T01:00:00Z'), reason: 'Quarter closing' },
        suspended: true,
      },
    };
    expect(decodeNotification(await stored(encodeNotification(held)))).toEqual(held);
  });

  it('notification, with its version, its JSON text lists, its schedule reading and its list-index entries', async () => {
    const item = await stored(encodeNotification(notification, 3, '2026-01-02T03:04:05.006Z'));
    expect(decodeNotification(item)).toEqual(notification);
    const schedule = {
      humanReadableSchedule: 'At 09:00, only on Monday',
      upcoming: [Date.parse('2026-01-05T09:00:00Z'), Date.parse('2026-01-12T09:00:00Z')],
    };
    const entry = await stored(
      encodeScheduleEntry(notification, { ...schedule, signature: '0 9 * * 1|UTC|true', scheduleVersion: 0 }),
    );
    expect(decodeScheduledNotification(item, entry)).toEqual({ notification, schedule });
    expect(attributeNames(item)).toEqual([
      'createdAt',
      'dashboardId',
      'dayOfWeek',
      'deploymentId',
      'entity',
      'filtersJson',
      'gsi1pk',
      'gsi1sk',
      'gsi2pk',
      'gsi2sk',
      'hold',
      'hour',
      'id',
      'isEnabled',
      'memberSwitchersJson',
      'minute',
      'notificationAiSummary',
      'notificationEnabled',
      'notificationFormat',
      'pk',
      'scheduleType',
      'sk',
      'timezone',
      'version',
    ]);
    // The dispatcher's state is in the entry: the item carries no due-index attributes.
    expect(attributeNames(entry)).toEqual([
      'deploymentId',
      'entity',
      'gsi3pk',
      'gsi3sk',
      'humanReadableSchedule',
      'id',
      'pk',
      'scheduleVersion',
      'signature',
      'sk',
      'upcoming',
    ]);
  });

  it('a notification written before the summary switch and member switchers reads them as off and none', () => {
    const {
      notificationAiSummary: _,
      memberSwitchersJson: __,
      ...older
    } = encodeNotification({
      ...notification,
      id: 903,
    });
    expect(decodeNotification(older)).toEqual({
      ...notification,
      id: 903,
      notificationAiSummary: false,
      memberSwitchers: null,
    });
  });

  it('a notification written before the JSON text attributes reads its lists from the old attributes', async () => {
    const { filtersJson: _, ...current } = encodeNotification({ ...notification, id: 902 });
    const filters = [{ member: 'A.b', operator: 'equals', value: 'x' }];
    const item = await stored({ ...current, filters, timeGrains: null });
    expect(decodeNotification(item)).toMatchObject({ id: 902, filters, timeGrains: null });
  });

  it('recipient rows of console and embed users, properties exact', async () => {
    const ref = { deploymentId: 9, id: 901, dashboardId: 90 };
    const recipients: StoredRecipient[] = [
      { type: 'USER', userId: 71, subscribedAt: '2026-01-02T03:04:05.006Z' },
      {
        type: 'EMBED_USER',
        embedTenantName: 'acme',
        normalizedExternalId: 'mia@acme.com',
        externalId: 'Mia@Acme.com',
        embedUserId: 5,
        email: 'mia@acme.com',
        properties: { securityContext: { region: ['EU'], n: 1e300 }, groups: [] },
        subscribedAt: '2026-01-02T03:04:05.007Z',
      },
    ];
    for (const recipient of recipients) {
      const item = await stored(encodeRecipient(ref, recipient));
      // A new row draws its subscription's nonce; a row written again keeps the one it has.
      const decoded = decodeRecipient(item);
      expect(decoded).toEqual({ ...recipient, subscriptionNonce: expect.stringMatching(/^[\w-]{16}$/) });
      expect(decodeRecipient(await stored(encodeRecipient(ref, decoded)))).toEqual(decoded);
      expect(decodeRecipient(encodeRecipient(ref, recipient)).subscriptionNonce).not.toBe(
        decoded.subscriptionNonce,
      );
    }
    const embedRow = await getItem(keys.embedRecipient(9, 901, 'acme', 'mia@acme.com'));
    expect(attributeNames(embedRow as Item)).toEqual([
      'email',
      'embedTenantName',
      'embedUserId',
      'entity',
      'externalId',
      'groupsJson',
      'gsi1pk',
      'gsi1sk',
      'gsi2pk',
      'gsi2sk',
      'gsi4pk',
      'gsi4sk',
      'normalizedExternalId',
      'pk',
      'securityContextJson',
      'sk',
      'subscribedAt',
      'subscriptionNonce',
      'type',
    ]);
  });

  it('idempotency record, claimed and done', async () => {
    const key = keys.idempotencyRecord(9, 'USER#1', 'key-1');
    const claim = {
      fingerprint: 'f'.repeat(64),
      owner: 'owner-1',
      leaseUntil: 1_700_000_060_000,
      expiresAt: 1_700_086_400,
    };
    const item = await stored(encodeIdempotencyClaim(key, claim));
    expect(decodeIdempotencyRecord(item)).toEqual({
      state: 'pending',
      fingerprint: claim.fingerprint,
      owner: 'owner-1',
      leaseUntil: claim.leaseUntil,
    });
    expect(attributeNames(item)).toEqual([
      'entity',
      'expiresAt',
      'fingerprint',
      'leaseUntil',
      'owner',
      'pk',
      'sk',
      'state',
    ]);
    const { leaseUntil: _, ...pending } = item;
    const done = await stored({
      ...pending,
      state: 'done',
      ...encodeIdempotencyResult({ kind: 'notification', notification }),
    });
    expect(decodeIdempotencyRecord(done)).toEqual({
      state: 'done',
      fingerprint: claim.fingerprint,
      owner: 'owner-1',
      done: { kind: 'notification', notification },
    });
    const run = { deploymentId: 9, id: 901, runId: '20260102T030405006Z-mab12cd34' };
    const doneRun = await stored({
      ...pending,
      state: 'done',
      ...encodeIdempotencyResult({ kind: 'run', run }),
    });
    expect(decodeIdempotencyRecord(doneRun).done).toEqual({ kind: 'run', run });
  });

  it('run, with and without its lease, and a delivery', async () => {
    const run = {
      runId: '20260102T030405006Z',
      deploymentId: 9,
      notificationId: 901,
      trigger: 'schedule',
      scheduledFor: '2026-01-02T03:04:05.006Z',
      createdAt: '2026-01-02T03:04:06.000Z',
      status: 'dispatching',
      skipReason: null,
      recipients: { queued: 2, skipped: 1, delivered: 0, failed: 0 },
      completedAt: null,
    } as const;
    const leased = await stored(encodeRun(run, { owner: 'o', until: 1_767_323_106_000 }));
    expect(decodeRun(leased)).toEqual(run);
    // Stored under the word runs in progress always had, which the dispatcher's conditions test for.
    expect(leased.status).toBe('pending');
    expect(attributeNames(leased)).toEqual([
      'completedAt',
      'createdAt',
      'deploymentId',
      'entity',
      'expiresAt',
      'gsi3pk',
      'gsi3sk',
      'leaseOwner',
      'leaseUntil',
      'notificationId',
      'pk',
      'recipients',
      'runId',
      'scheduledFor',
      'sk',
      'skipReason',
      'status',
      'trigger',
    ]);
    const done = {
      ...run,
      runId: 'manual-1',
      trigger: 'manual',
      status: 'skipped',
      skipReason: 'delivery_disabled',
    } as const;
    expect(decodeRun(await stored(encodeRun(done)))).toEqual(done);
    const delivery = {
      recipientKey: 'RECIPIENT#USER#71',
      deliveryId: '0123456789abcdef0123456789abcdef',
      recipient: { type: 'USER', userId: 71, email: 'eve@example.com', username: 'eve' },
      status: 'skipped',
      reason: 'user_deactivated',
      jobId: null,
      attempts: 0,
      error: null,
      updatedAt: '2026-01-02T03:04:06.000Z',
    } as const;
    const item = await stored(encodeDelivery(run, delivery));
    expect(decodeDelivery(item)).toEqual(delivery);
    expect(attributeNames(item)).toEqual([
      'attempts',
      'entity',
      'error',
      'expiresAt',
      'jobId',
      'pk',
      'reason',
      'recipient',
      'recipientKey',
      'sk',
      'status',
      'updatedAt',
    ]);
  });

  it('counter: the value the sequence stands at, 0 before its first id', async () => {
    const key = keys.counter('notification');
    expect(decodeCounter(await getItem(key), key)).toBe(0);
    await reserveNotificationIdsThrough(41);
    expect(decodeCounter(await getItem(key), key)).toBe(41);
    expect(await nextNotificationId()).toBe(42);
  });
});

/** The error decode throws for `item`, checked to be a MalformedItemError. */
function decodeError(decode: (item: Item) => unknown, item: Item): MalformedItemError {
  try {
    decode(item);
  } catch (error) {
    expect(error).toBeInstanceOf(MalformedItemError);
    return error as MalformedItemError;
  }
  throw new Error('decoded a malformed item');
}

describe('a stored shape', () => {
  it('is built on the first item checked against it, once, and checks every item after', () => {
    const builds: number[] = [];
    const counted = () => {
      builds.push(1);
      return z.looseObject({ id: z.int() });
    };
    expect(builds).toHaveLength(0);
    expect(checkItem('thing', counted, { id: 1 }).id).toBe(1);
    expect(checkItem('thing', counted, { id: 2 }).id).toBe(2);
    expect(() => checkItem('thing', counted, { pk: 'THING#3', sk: 'THING', id: 'x' })).toThrow(
      MalformedItemError,
    );
    expect(builds).toHaveLength(1);
  });
});

describe('a malformed stored item is an error naming the entity, its key and the field', () => {
  const cases: [string, (item: Item) => unknown, Item, string][] = [
    [
      'console user',
      decodeConsoleUser,
      { ...keys.user(7), id: '7', email: 'x@y.z', username: 'x', role: 'admin' },
      'Stored console user item USER#7 / USER is malformed: id is not of type number',
    ],
    [
      'user link',
      decodeUserLink,
      { ...keys.userByEmail('x@y.z'), entity: 'USER_EMAIL' },
      'Stored user link item USER_EMAIL#… / USER_EMAIL is malformed: userId is missing (type number)',
    ],
    [
      'embed tenant',
      decodeEmbedTenant,
      { ...keys.embedTenant('acme'), name: 'acme', issuer: 'i', jwks: { keys: 'none' } },
      'Stored embed tenant item EMBED_TENANT#… / EMBED_TENANT is malformed: jwks.keys is not of type array',
    ],
    [
      'dashboard',
      decodeDashboard,
      { ...keys.dashboard('d'), id: 1, deploymentId: 1, publicId: 'd', sharedWithTenants: 'acme' },
      'Stored dashboard item DASHBOARD#… / DASHBOARD is malformed: sharedWithTenants is not of type array',
    ],
    [
      'dashboard link',
      (item) => decodeDashboardLink(item, 1),
      { ...keys.dashboardById(1, 2), dashboardId: 2 },
      'Stored dashboard link item DEPLOYMENT#1#DASHBOARD#2 / DASHBOARD_LINK is malformed: publicId is missing (type string)',
    ],
    [
      'deployment',
      decodeDeployment,
      { ...keys.deployment(1), id: 1 },
      'Stored deployment item DEPLOYMENT#1 / DEPLOYMENT is malformed: name is missing (type string)',
    ],
    [
      'embed user',
      decodeEmbedUser,
      {
        ...keys.embedUser('acme', 'mia@acme.com'),
        embedUserId: 1.5,
        embedTenantName: 'acme',
        externalId: 'm',
        email: 'm',
      },
      'Stored embed user item EMBED_USER#…#… / EMBED_USER is malformed: embedUserId is not of type int',
    ],
    [
      'notification',
      decodeNotification,
      { ...encodeNotification(notification), notificationFormat: 'gif' },
      'Stored notification item DEPLOYMENT#9#NOTIFICATION#901 / NOTIFICATION is malformed: notificationFormat is not an allowed value',
    ],
    [
      'notification JSON text',
      decodeNotification,
      { ...encodeNotification(notification), filtersJson: '[{' },
      'Stored notification item DEPLOYMENT#9#NOTIFICATION#901 / NOTIFICATION is malformed: filtersJson is not JSON text',
    ],
    [
      'notification list',
      decodeNotification,
      { ...encodeNotification(notification), timeGrainsJson: '{}' },
      'Stored notification item DEPLOYMENT#9#NOTIFICATION#901 / NOTIFICATION is malformed: timeGrainsJson is not a list',
    ],
    [
      'notification list element',
      decodeNotification,
      { ...encodeNotification(notification), filtersJson: '[{"operator":"equals"}]' },
      'Stored notification item DEPLOYMENT#9#NOTIFICATION#901 / NOTIFICATION is malformed: filtersJson holds an element of another shape',
    ],
    [
      'done idempotency record',
      decodeIdempotencyRecord,
      {
        ...keys.idempotencyRecord(9, 'USER#1', 'k'),
        state: 'done',
        fingerprint: 'f',
        owner: 'o',
        notificationJson: '{"id":901}',
      },
      'Stored notification item ? / ? is malformed: deploymentId is missing (type number)',
    ],
    [
      'delivery',
      decodeDelivery,
      {
        ...keys.delivery(9, 901, 'r1', 'd1'),
        recipientKey: 'USER#7',
        recipient: { type: 'USER', userId: 7 },
        status: 'queued',
      },
      'Stored delivery item DEPLOYMENT#9#NOTIFICATION#901 / DELIVERY#…#… is malformed: recipient.email is missing (type string)',
    ],
    [
      'due-index entry',
      (item) => decodeDueEntry(item, 3),
      { ...keys.scheduleEntry(9, 901), entity: 'SCHEDULE', deploymentId: 9, id: 901 },
      'Stored due entry item DEPLOYMENT#9#NOTIFICATION#901 / NOTIFICATION#SCHEDULE is malformed: gsi3sk is missing (type string)',
    ],
    [
      'send-now marker',
      decodeSendNowMarker,
      { ...keys.sendNowMarker(9, 901), entity: 'SEND_NOW', lastAt: '2026' },
      'Stored send-now marker item DEPLOYMENT#9#NOTIFICATION#901 / SEND_NOW is malformed: lastAt is not of type number',
    ],
    [
      'recipient row',
      decodeRecipient,
      { ...keys.userRecipient(9, 901, 7), type: 'USER' },
      'Stored recipient row item DEPLOYMENT#9#NOTIFICATION#901 / RECIPIENT#USER#7 is malformed: userId is missing (type number)',
    ],
    [
      'recipient row of an unknown kind',
      decodeRecipient,
      { ...keys.userRecipient(9, 901, 7), type: 'SLACK' },
      'Stored recipient row item DEPLOYMENT#9#NOTIFICATION#901 / RECIPIENT#USER#7 is malformed: type is not an allowed value',
    ],
    [
      'idempotency record',
      decodeIdempotencyRecord,
      { ...keys.idempotencyRecord(9, 'USER#1', 'k'), state: 'done', fingerprint: 'f', owner: 'o' },
      'Stored idempotency record item DEPLOYMENT#9#IDEMPOTENCY#…#… / IDEMPOTENCY is malformed: notificationJson is missing',
    ],
    [
      'run',
      decodeRun,
      {
        ...keys.run(9, 901, 'r1'),
        runId: 'r1',
        deploymentId: 9,
        notificationId: 901,
        trigger: 'schedule',
        scheduledFor: 'x',
        createdAt: 'x',
        status: 'done',
        skipReason: null,
        recipients: { queued: 0, skipped: 0 },
      },
      'Stored run item DEPLOYMENT#9#NOTIFICATION#901 / RUN#… is malformed: status is not an allowed value',
    ],
    [
      'counter',
      (item) => decodeCounter(item, keys.counter('notification')),
      { value: -1 },
      'Stored counter item COUNTER#… / COUNTER is malformed: value fails its check (too_small)',
    ],
  ];

  it.each(cases)('%s', (_, decode, item, message) => {
    expect(decodeError(decode, item).message).toBe(message);
  });

  it('never repeats a free-text key part or a stored value: they can be personal data', () => {
    const item = {
      ...keys.embedUser('acme', 'mia@acme.com'),
      embedUserId: 1,
      embedTenantName: 'acme',
      email: 'mia@acme.com',
    };
    const error = decodeError(decodeEmbedUser, item);
    expect(error.message).toContain('externalId');
    expect(error.message).not.toMatch(/mia|acme/);
  });
});

describe('a malformed item read by a request', () => {
  it('answers 500 with nothing of it, and logs the error naming the entity, key and field', async () => {
    await put({
      ...keys.dashboard('broken'),
      entity: 'DASHBOARD',
      id: 40,
      deploymentId: 4,
      publicId: 'broken',
      published: 'yes',
    });
    logs = captureLogs();
    const response = await api.request('PATCH', '/v1/embed/dashboard/broken', {
      token: ADMIN_KEY,
      body: { allowEmbed: true },
    });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({
      message: 'Internal server error',
      code: 'internal',
      requestId: expect.any(String),
    });
    const line = logs
      .lines()
      .find((candidate) => candidate.requestId === response.body.requestId && 'status' in candidate);
    expect(line).toMatchObject({ level: 'ERROR', status: 500 });
    expect(line?.error).toMatchObject({
      name: 'MalformedItemError',
      message: 'Stored dashboard item DASHBOARD#… / DASHBOARD is malformed: published is not of type boolean',
    });
  });
});
