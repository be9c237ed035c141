import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StoredRecipient } from '#lib/domain/recipients/recipients-resolution';
import { decodeCounter } from '#lib/store/codecs/counters';
import {
  decodeDashboard,
  decodeDashboardLink,
  encodeDashboard,
  encodeDashboardLink,
} from '#lib/store/codecs/dashboards';
import { decodeDeployment, encodeDeployment } from '#lib/store/codecs/deployments';
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
import { sampleNotification, sampleRun } from '#test/support/store-samples';

// Lines are read here: the logger, built on import, must write them.
vi.hoisted(() => {
  process.env.LOG_LEVEL = 'info';
});

/**
 * Each entity's encode/decode pair against a real table: what encode writes, DynamoDB stores and
 * decode reads back is the value written; the attribute names are pinned, since a table written by
 * an earlier version must keep reading. What a decode makes of an item of the wrong shape needs no
 * table (test/store/codec-shapes.test.ts); here, what a request answers when it reads one.
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

const notification = sampleNotification;

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
    const run = sampleRun;
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
