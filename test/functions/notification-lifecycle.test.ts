import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgePass } from '#lib/domain/deletion/purge';
import { purgeStore } from '#lib/store/deletion/purge-store';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { PURGE_GRACE_MS } from '#lib/store/notifications/notification-guard';
import { ADMIN_KEY, MEMBER_KEY } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import {
  dailyAt,
  HIGHEST_FIXTURE_ID,
  lifecycleClient,
  lifecycleFixture,
  SECOND_ADMIN_KEY,
} from './lifecycle-helpers.ts';

let api: LocalApi;
let client: ReturnType<typeof lifecycleClient>;

beforeAll(async () => {
  api = await startLocalApi(lifecycleFixture);
  client = lifecycleClient(api);
});
afterAll(() => api.close());

const partitionItems = async (deploymentId: number, id: number) => {
  const { Items = [] } = await documentClient().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.notificationPartition(deploymentId, id) },
      ConsistentRead: true,
    }),
  );
  return Items;
};

describe('POST /v1/deployments/{deploymentId}/notifications', () => {
  it('answers 201 with the NotificationDto, its Location, and the defaults', async () => {
    const response = await client.create({ dashboardId: 70, scheduleType: 'WEEKLY', hour: 8, dayOfWeek: 1 });
    expect(response.status).toBe(201);
    const id = response.body.id;
    expect(response.headers.get('location')).toBe(`/v1/deployments/7/notifications/${id}`);
    expect(response.body).toEqual({
      id,
      dashboardId: 70,
      deploymentId: 7,
      cronExpression: '0 8 * * 1',
      timezone: 'UTC',
      isEnabled: true,
      humanReadableSchedule: 'At 08:00, only on Monday',
      notificationEnabled: true,
      notificationFormat: 'png',
      filters: null,
      timeGrains: null,
      memberSwitchers: null,
      notificationAiSummary: false,
      // The next Monday 08:00 UTC after the answer.
      nextRunAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T08:00:00Z$/),
      status: 'active',
      statusReason: null,
      pausedUntil: null,
      // The caller (the admin key's user) owns what it creates.
      owner: { type: 'USER', userId: 1, email: 'ada@example.com' },
    });
    expect(new Date(response.body.nextRunAt).getUTCDay()).toBe(1);
    const read = await client.get(id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(response.body);
  });

  it('chooses positive integer ids above every fixture id, a new one each time', async () => {
    const first = await client.create(dailyAt(6));
    const second = await client.create(dailyAt(7));
    expect(first.body.id).toBeGreaterThan(HIGHEST_FIXTURE_ID);
    expect(second.body.id).toBeGreaterThan(first.body.id);
    expect((await client.get(700)).body.cronExpression).toBe('0 9 * * *');
  });

  it('takes the dashboard by public id, and the given values over the defaults', async () => {
    const response = await client.create({
      dashboardPublicId: 'ops-kpis',
      scheduleType: 'CUSTOM',
      customCron: '30 7 * * 1-5',
      timezone: 'Europe/Berlin',
      isEnabled: false,
      notificationEnabled: false,
      notificationFormat: 'pdf',
      filters: [{ member: 'Orders.status', operator: 'equals', value: 'paid' }],
      timeGrains: [{ member: 'Orders.createdAt', grain: 'week' }],
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      dashboardId: 71,
      cronExpression: '30 7 * * 1-5',
      timezone: 'Europe/Berlin',
      isEnabled: false,
      notificationEnabled: false,
      notificationFormat: 'pdf',
      filters: [{ member: 'Orders.status', operator: 'equals', value: 'paid' }],
      timeGrains: [{ member: 'Orders.createdAt', grain: 'week' }],
    });
  });

  it('starts without recipients', async () => {
    const { body } = await client.create(dailyAt(5));
    const recipients = await client.recipients(body.id);
    expect(recipients.body.items).toEqual([]);
  });

  it.each([
    [{ scheduleType: 'DAILY', hour: 9 }, 'dashboardId'],
    [
      { dashboardId: 70, dashboardPublicId: 'sales-overview', scheduleType: 'DAILY', hour: 9 },
      'dashboardPublicId',
    ],
    [{ dashboardId: 70, hour: 9 }, 'scheduleType'],
    [{ dashboardId: 70, scheduleType: 'DAILY' }, 'hour'],
    [{ dashboardId: 70, scheduleType: 'WEEKLY', hour: 9 }, 'dayOfWeek'],
    [{ dashboardId: 70, scheduleType: 'MONTHLY', hour: 9, dayOfMonth: 32 }, 'dayOfMonth'],
    [{ dashboardId: 70, scheduleType: 'CUSTOM', customCron: '*/5 * * * *' }, 'customCron'],
    [{ dashboardId: 70, scheduleType: 'DAILY', hour: 9, timeZone: 'UTC' }, 'timeZone'],
    [{ dashboardId: 0, scheduleType: 'DAILY', hour: 9 }, 'dashboardId'],
    [{ dashboardPublicId: 'x'.repeat(129), scheduleType: 'DAILY', hour: 9 }, 'dashboardPublicId'],
    [{ dashboardPublicId: 'sales\ud800', scheduleType: 'DAILY', hour: 9 }, 'dashboardPublicId'],
  ])('refuses %j with 400 naming %s, and creates nothing', async (body, field) => {
    const before = (await client.list('first=200')).body.items.length;
    const response = await client.create(body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect(response.body.errors.map((problem: { path: string }) => problem.path)).toContain(field);
    expect((await client.list('first=200')).body.items.length).toBe(before);
  });

  it.each([
    [{ dashboardId: 80, scheduleType: 'DAILY', hour: 9 }, 'a dashboard of another deployment by id'],
    [
      { dashboardPublicId: 'staging-sales', scheduleType: 'DAILY', hour: 9 },
      'another deployment by public id',
    ],
    [{ dashboardId: 99, scheduleType: 'DAILY', hour: 9 }, 'an unknown dashboard'],
  ])('answers 404 for %j (%s)', async (body, _what) => {
    const response = await client.create(body);
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('not_found');
  });

  it('answers 404 for a dashboard in an unknown deployment', async () => {
    const response = await client.create(dailyAt(9), { deploymentId: 99 });
    expect(response.status).toBe(404);
  });
});

describe('Idempotency-Key on create', () => {
  it('answers a repeat of the same key and body with the same notification and creates nothing', async () => {
    const body = { dashboardId: 71, scheduleType: 'HOURLY', minute: 17 };
    const first = await client.create(body, { key: 'retry-1' });
    const before = (await client.list('first=200')).body.items.length;
    const again = await client.create(
      { minute: 17, scheduleType: 'HOURLY', dashboardId: 71 },
      { key: 'retry-1' },
    );
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect((await client.list('first=200')).body.items.length).toBe(before);
  });

  it('refuses the same key with another body: 422 idempotency_key_mismatch', async () => {
    await client.create(dailyAt(10), { key: 'retry-2' });
    const response = await client.create(dailyAt(11), { key: 'retry-2' });
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('idempotency_key_mismatch');
  });

  it('scopes keys to the caller and to the deployment', async () => {
    const mine = await client.create(dailyAt(12), { key: 'shared-key' });
    const theirs = await client.create(dailyAt(12), { key: 'shared-key', token: SECOND_ADMIN_KEY });
    const elsewhere = await client.create(dailyAt(12, 80), { key: 'shared-key', deploymentId: 8 });
    expect([mine.status, theirs.status, elsewhere.status]).toEqual([201, 201, 201]);
    expect(new Set([mine.body.id, theirs.body.id, elsewhere.body.id]).size).toBe(3);
  });

  it('creates with a key that differs only in case as another key', async () => {
    const a = await client.create(dailyAt(13), { key: 'Case-Key' });
    const b = await client.create(dailyAt(13), { key: 'case-key' });
    expect(a.body.id).not.toBe(b.body.id);
  });

  it.each([['has space'], ['x'.repeat(256)], ['tab\there'], ['ünïcode']])(
    'refuses the key %j with 400 naming the header',
    async (key) => {
      const response = await api.request('POST', client.notifications(), {
        token: ADMIN_KEY,
        body: dailyAt(9),
        headers: { 'idempotency-key': key },
      });
      expect(response.status).toBe(400);
      expect(response.body.errors[0].path).toBe('idempotency-key');
    },
  );
});

describe('GET /v1/deployments/{deploymentId}/notifications/{id}', () => {
  it('answers the stored notification', async () => {
    const response = await client.get(701);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: 701,
      dashboardId: 71,
      deploymentId: 7,
      cronExpression: '5 * * * *',
    });
  });

  it.each([
    [7, 999, 'an unknown notification'],
    [9, 700, 'an unknown deployment'],
    [8, 700, 'a notification of another deployment'],
  ])('answers 404 for deployment %i, notification %i (%s)', async (deploymentId, id) => {
    const response = await client.get(id, deploymentId);
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('not_found');
  });

  it('refuses a query parameter with 400 naming it', async () => {
    const response = await api.request('GET', `${client.notifications()}/700?expand=recipients`, {
      token: ADMIN_KEY,
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ path: 'expand', message: 'is not a known field' }]);
  });
});

describe('DELETE /v1/deployments/{deploymentId}/notifications/{id}', () => {
  it('answers 204, takes the recipients with it, and then reads as 404', async () => {
    const { body } = await client.create(dailyAt(14));
    await client.subscribe(body.id, [
      { userId: 1 },
      { embedTenantName: 'acme', externalId: 'gone@acme.com' },
    ]);
    // The notification, its schedule entry and its two recipient rows.
    expect((await partitionItems(7, body.id)).length).toBe(4);

    const response = await client.remove(body.id);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect((await client.get(body.id)).status).toBe(404);
    // The purge empties the partition in the background: a pass as of after its grace.
    await purgePass(purgeStore, { now: Date.now() + PURGE_GRACE_MS + 1_000 });
    expect(await partitionItems(7, body.id)).toEqual([]);
    const listed = await client.list('first=200');
    expect(listed.body.items.map((item: { id: number }) => item.id)).not.toContain(body.id);
    const byRecipient = await client.list('recipientUserId=1&first=200');
    expect(byRecipient.body.items.map((item: { id: number }) => item.id)).not.toContain(body.id);
    expect((await client.recipients(body.id)).status).toBe(404);
  });

  it('answers 404 for an unknown notification, for a repeat and for another deployment', async () => {
    const { body } = await client.create(dailyAt(15));
    expect((await client.remove(body.id, 8)).status).toBe(404);
    expect((await client.remove(body.id)).status).toBe(204);
    expect((await client.remove(body.id)).status).toBe(404);
    expect((await client.remove(99_999)).status).toBe(404);
  });
});

describe('authorization of the new routes', () => {
  const routes = [
    ['GET', '/v1/deployments/7/notifications'],
    ['POST', '/v1/deployments/7/notifications'],
    ['GET', '/v1/deployments/7/notifications/700'],
    ['DELETE', '/v1/deployments/7/notifications/700'],
    ['GET', '/v1/deployments/7/notifications/700/recipients'],
    ['DELETE', '/v1/deployments/7/notifications/700/recipients'],
  ] as const;

  it.each(routes)(
    '%s %s: 401 without a credential, 403 for a member, before any lookup',
    async (method, path) => {
      const anonymous = await api.request(method, path);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
      const member = await api.request(method, path.replace('/7/', '/999/'), {
        token: MEMBER_KEY,
        ...(method === 'GET' ? {} : { body: { recipients: 'not checked' } }),
      });
      expect(member.status).toBe(403);
      expect(member.body.code).toBe('forbidden');
    },
  );

  it.each(routes)('%s %s: 400 for a path id that is not a positive integer', async (method, path) => {
    const response = await api.request(method, path.replace('/7/', '/seven/'), {
      token: ADMIN_KEY,
      ...(method === 'GET' ? {} : { body: {} }),
    });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((problem: { path: string }) => problem.path)).toContain('deploymentId');
  });
});
