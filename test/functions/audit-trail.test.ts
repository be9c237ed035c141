import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { injectDynamoDbFaults, throttling } from '#test/support/dynamodb-faults';
import { ADMIN_KEY, consoleUsers } from '#test/support/fixtures';
import { largestLists } from '#test/support/largest-lists';
import { walkList } from '#test/support/list-walk';
import { type LocalApi, startLocalApi } from '#test/support/local-api';

/**
 * The audit trail through HTTP on the local engine: one event per changing request, written with its
 * change, none for a request that changes nothing; the two lists, and what stays after a delete.
 */

const DAVE_KEY = 'sk-test-dave';

let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi({
    users: [
      ...consoleUsers,
      { id: 4, email: 'dave@example.com', username: 'dave', role: 'admin', apiKeys: [DAVE_KEY] },
    ],
    deployments: [
      { id: 7, name: 'Production' },
      { id: 8, name: 'Staging' },
    ],
    embedTenants: [{ name: 'acme', issuer: 'https://acme.example.com' }],
    dashboards: [
      { id: 70, deploymentId: 7, publicId: 'sales', title: 'Sales', published: true },
      { id: 80, deploymentId: 8, publicId: 'staging', title: 'Staging', published: true },
    ],
  });
});
afterAll(() => api.close());

const base = (deploymentId = 7) => `/v1/deployments/${deploymentId}/notifications`;
const create = async (body: object = {}, token = ADMIN_KEY, deploymentId = 7) => {
  const response = await api.request('POST', base(deploymentId), {
    token,
    body: { dashboardId: deploymentId * 10, scheduleType: 'DAILY', hour: 9, ...body },
  });
  expect(response.status).toBe(201);
  return response.body.id as number;
};
const put = (id: number, body: object, token = ADMIN_KEY) =>
  api.request('PUT', `${base()}/${id}`, { token, body });
const eventsOf = async (id: number, query = 'first=200') => {
  const response = await api.request('GET', `${base()}/${id}/events?${query}`, { token: ADMIN_KEY });
  expect(response.status).toBe(200);
  return response.body.items as Record<string, unknown>[];
};
const adminActor = { type: 'USER', userId: 1, via: 'api_key' };

describe('an event per change', () => {
  it('records the create with every field it set (before null), by the calling user and request', async () => {
    const id = await create({ timezone: 'Europe/Berlin' }, DAVE_KEY);
    const [created, ...rest] = await eventsOf(id);
    expect(rest).toEqual([]);
    expect(created).toMatchObject({
      deploymentId: 7,
      notificationId: id,
      action: 'created',
      actor: { type: 'USER', userId: 4, via: 'api_key' },
      requestId: expect.any(String),
    });
    expect(created?.changes).toMatchObject({
      dashboardId: { before: null, after: 70 },
      scheduleType: { before: null, after: 'DAILY' },
      hour: { before: null, after: 9 },
      timezone: { before: null, after: 'Europe/Berlin' },
      owner: { before: null, after: { type: 'USER', userId: 4, email: 'dave@example.com' } },
    });
  });

  it('records an update with the fields it changed, and none for an update that changes nothing', async () => {
    const id = await create();
    expect((await put(id, { hour: 10, notificationFormat: 'png' })).status).toBe(200);
    expect((await put(id, { hour: 10 })).status).toBe(200);
    expect((await put(id, {})).status).toBe(200);
    const events = await eventsOf(id);
    expect(events.map((event) => event.action)).toEqual(['updated', 'created']);
    expect(events[0]).toMatchObject({ actor: adminActor, changes: { hour: { before: 9, after: 10 } } });
  });

  it('records a transfer of the owner alone as owner_changed', async () => {
    const id = await create();
    expect((await put(id, { ownerUserId: 4 })).status).toBe(200);
    const [changed] = await eventsOf(id);
    expect(changed).toMatchObject({
      action: 'owner_changed',
      changes: {
        owner: {
          before: { type: 'USER', userId: 1 },
          after: { type: 'USER', userId: 4, email: 'dave@example.com' },
        },
      },
    });
  });

  it('records pause and resume, and nothing for a resume of what is not held', async () => {
    const id = await create();
    expect((await api.request('POST', `${base()}/${id}/resume`, { token: ADMIN_KEY })).status).toBe(200);
    expect((await api.request('POST', `${base()}/${id}/pause`, { token: ADMIN_KEY })).status).toBe(200);
    expect((await api.request('POST', `${base()}/${id}/resume`, { token: ADMIN_KEY })).status).toBe(200);
    const events = await eventsOf(id);
    expect(events.map(({ action, actor, changes }) => ({ action, actor, changes }))).toEqual([
      { action: 'resumed', actor: adminActor, changes: null },
      { action: 'paused', actor: adminActor, changes: null },
      expect.objectContaining({ action: 'created' }),
    ]);
  });
});

describe('sends', () => {
  it('records a send-now and a test send with their runs', async () => {
    const id = await create();
    const sent = await api.request('POST', `${base()}/${id}/send`, { token: ADMIN_KEY });
    expect(sent.status).toBe(202);
    const [event] = await eventsOf(id);
    expect(event).toMatchObject({ action: 'sent', actor: adminActor, changes: { runId: sent.body.runId } });
  });

  it('records a test send as test_sent', async () => {
    const id = await create();
    const tested = await api.request('POST', `${base()}/${id}/send`, {
      token: ADMIN_KEY,
      body: { recipients: [{ userId: 1 }] },
    });
    expect(tested.status).toBe(202);
    const [event] = await eventsOf(id);
    expect(event).toMatchObject({ action: 'test_sent', changes: { runId: tested.body.runId } });
  });
});

describe('concurrent updates', () => {
  it('leaves 20 events of 20 concurrent updates whose before/after chain is unbroken', async () => {
    const id = await create({ notificationFormat: 'png' });
    const formats = ['pdf', 'png'] as const;
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        put(id, { customCron: `${i} 9 * * *`, notificationFormat: formats[i % 2] }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200));
    const updates = (await eventsOf(id)).filter((event) => event.action === 'updated');
    expect(updates).toHaveLength(20);
    // Follow the chain from the created value: each event's `before` is the `after` of the one before it.
    type Changes = Record<string, { before: unknown; after: unknown }>;
    let cron: unknown = null;
    const remaining = [...updates];
    while (remaining.length > 0) {
      const next = remaining.findIndex((event) => (event.changes as Changes).customCron?.before === cron);
      expect(next, `no event continues the chain from ${String(cron)}`).toBeGreaterThanOrEqual(0);
      const [event] = remaining.splice(next, 1);
      cron = (event?.changes as Changes | undefined)?.customCron?.after;
    }
    const stored = await api.request('GET', `${base()}/${id}`, { token: ADMIN_KEY });
    expect(stored.body.customCron ?? cron).toBe(cron);
  });
});

describe('the lists', () => {
  it('walks the deployment list with first=1 through every event exactly once, newest first', async () => {
    const id = await create({}, ADMIN_KEY, 8);
    await api.request('PUT', `${base(8)}/${id}`, { token: ADMIN_KEY, body: { hour: 11 } });
    const other = await create({}, ADMIN_KEY, 8);
    await api.request('POST', `${base(8)}/${other}/pause`, { token: ADMIN_KEY });
    await api.request('DELETE', `${base(8)}/${other}`, { token: ADMIN_KEY });
    const walk = await walkList((after) =>
      api.request(
        'GET',
        `/v1/deployments/8/events?first=1${after ? `&after=${encodeURIComponent(after)}` : ''}`,
        { token: ADMIN_KEY },
      ),
    );
    const ids = walk.items.map((event) => event.eventId as string);
    expect(new Set(ids).size).toBe(ids.length);
    expect(walk.items.map((event) => [event.notificationId, event.action])).toEqual([
      [other, 'deleted'],
      [other, 'paused'],
      [other, 'created'],
      [id, 'updated'],
      [id, 'created'],
    ]);
    expect(walk.pages).toBe(5);
  });

  it('keeps a deleted notification’s events in the deployment list; its own list is 404', async () => {
    const id = await create();
    await put(id, { hour: 12 });
    expect((await api.request('DELETE', `${base()}/${id}`, { token: ADMIN_KEY })).status).toBe(204);
    const own = await api.request('GET', `${base()}/${id}/events`, { token: ADMIN_KEY });
    expect(own.status).toBe(404);
    const filtered = await api.request('GET', `/v1/deployments/7/events?notificationId=${id}`, {
      token: ADMIN_KEY,
    });
    expect(filtered.status).toBe(200);
    expect(filtered.body.items.map((event: { action: string }) => event.action)).toEqual([
      'deleted',
      'updated',
      'created',
    ]);
  });

  it('refuses a cursor of another list and an unknown query parameter, naming them', async () => {
    const id = await create();
    const page = await api.request('GET', `${base()}/${id}/events?first=1`, { token: ADMIN_KEY });
    const foreign = await api.request(
      'GET',
      `/v1/deployments/7/events?after=${encodeURIComponent(page.body.pageInfo.endCursor)}`,
      { token: ADMIN_KEY },
    );
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors[0].path).toBe('after');
    const unknown = await api.request('GET', '/v1/deployments/7/events?action=created', { token: ADMIN_KEY });
    expect(unknown.status).toBe(400);
  });
});

describe('atomic with its change', () => {
  let faults: ReturnType<typeof injectDynamoDbFaults> | undefined;
  afterEach(() => {
    faults?.detach();
    faults = undefined;
  });

  it('leaves neither change nor event when the write fails', async () => {
    const id = await create();
    faults = injectDynamoDbFaults(documentClient());
    faults.add({ operations: ['TransactWriteItems'], fault: throttling() });
    const failed = await put(id, { hour: 15 });
    expect(failed.status).toBe(503);
    faults.detach();
    faults = undefined;
    const stored = await api.request('GET', `${base()}/${id}`, { token: ADMIN_KEY });
    expect(stored.body.cronExpression).toBe('0 9 * * *');
    expect((await eventsOf(id)).map((event) => event.action)).toEqual(['created']);
  });
});

describe('recipients', () => {
  it('records an add of 1,000 once, counting them all and listing the first 100, and a repeat that changes nothing not at all', async () => {
    const id = await create();
    const path = `${base()}/${id}/recipients`;
    const subscribers = Array.from({ length: 1000 }, (_, k) => ({
      embedTenantName: 'acme',
      externalId: `added-${k}@acme.example`,
    }));
    const added = await api.request('POST', path, { token: ADMIN_KEY, body: { recipients: subscribers } });
    expect(added.status).toBe(200);
    const again = await api.request('POST', path, { token: ADMIN_KEY, body: { recipients: subscribers } });
    expect(again.body.unchangedRecipients).toHaveLength(1000);
    const events = await eventsOf(id);
    expect(events.map((event) => event.action)).toEqual(['recipients_added', 'created']);
    expect(events[0]).toMatchObject({
      actor: { type: 'USER', userId: 1, via: 'api_key' },
      changes: { count: 1000 },
    });
    const listed =
      (events[0]?.changes as { recipients: { externalId: string }[] } | undefined)?.recipients ?? [];
    expect(listed.map((item) => item.externalId)).toEqual(
      added.body.createdRecipients.slice(0, 100).map((item: { externalId: string }) => item.externalId),
    );
    const { Items = [] } = await documentClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.auditPartition(7, id) },
      }),
    );
    expect(Math.max(...Items.map((item) => Buffer.byteLength(JSON.stringify(item))))).toBeLessThan(
      400 * 1024,
    );
  });

  it('records a removal of 1,000 rows once, counting them all and listing the first 100', async () => {
    const id = await create();
    const path = `${base()}/${id}/recipients`;
    const subscribers = Array.from({ length: 1000 }, (_, k) => ({
      embedTenantName: 'acme',
      externalId: `audit-${k}@acme.example`,
    }));
    const added = await api.request('POST', path, { token: ADMIN_KEY, body: { recipients: subscribers } });
    expect(added.status).toBe(200);
    const embedUserIds = added.body.createdRecipients.map(
      (item: { embedUserId: number }) => item.embedUserId,
    );
    const targets = embedUserIds.map((embedUserId: number) => ({
      type: 'EMBED_USER',
      id: embedUserId,
      embedTenantName: 'acme',
    }));
    const removed = await api.request('DELETE', path, { token: ADMIN_KEY, body: { recipients: targets } });
    expect(removed.status).toBe(204);
    const [event] = await eventsOf(id);
    expect(event).toMatchObject({ action: 'recipients_removed', changes: { count: 1000 } });
    const listed =
      (event?.changes as { recipients: { embedUserId: number }[] } | undefined)?.recipients ?? [];
    expect(listed.map((item) => item.embedUserId)).toEqual(embedUserIds.slice(0, 100));
    // Every row is gone, and its item stays far under DynamoDB's 400 KB.
    expect((await api.request('GET', `${path}?first=1`, { token: ADMIN_KEY })).body.items).toEqual([]);
    const { Items = [] } = await documentClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.auditPartition(7, id) },
      }),
    );
    const largest = Math.max(...Items.map((item) => Buffer.byteLength(JSON.stringify(item))));
    expect(largest).toBeLessThan(400 * 1024);
  });
});

describe('size', () => {
  it('keeps an event of the largest lists before and after far under the 400 KB item limit', async () => {
    const largest = largestLists();
    const id = await create({ filters: largest.filters, memberSwitchers: largest.memberSwitchers });
    const reversed = {
      filters: [...(largest.filters ?? [])].reverse(),
      memberSwitchers: [...(largest.memberSwitchers ?? [])].reverse(),
    };
    expect((await put(id, reversed)).status).toBe(200);
    const { Items = [] } = await documentClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.auditPartition(7, id) },
      }),
    );
    expect(Items).toHaveLength(2);
    for (const item of Items) {
      const bytes = Object.entries(item).reduce(
        (sum, [name, value]) => sum + Buffer.byteLength(name) + Buffer.byteLength(JSON.stringify(value)),
        0,
      );
      expect(bytes).toBeLessThan(400 * 1024);
      // Expires through the table's TTL attribute AUDIT_RETENTION_DAYS (365 by default) after its instant.
      expect(item.expiresAt).toBe(Math.floor(Date.parse(String(item.at)) / 1000) + 365 * 24 * 60 * 60);
    }
    const [updated] = await eventsOf(id);
    expect(updated?.changes).toMatchObject({
      filters: {
        before: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/), bytes: expect.any(Number) },
        after: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/), bytes: expect.any(Number) },
      },
    });
  });
});
