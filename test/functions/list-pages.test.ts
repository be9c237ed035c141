import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredRecipient } from '#lib/domain/recipients/recipients-resolution';
import { KEY_PART_MAX_BYTES } from '#lib/limits';
import { type DynamoMeter, meterDynamoDb } from '#lib/local/dynamodb-meter';
import { encodeNotification } from '#lib/store/codecs/notifications';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { documentClient } from '#lib/store/dynamo/client';
import type { Item } from '#lib/store/dynamo/items';
import { dailyNotification } from '#test/support/domain-fixtures';
import { largestLists } from '#test/support/largest-lists';
import { type ListWalk, walkList } from '#test/support/list-walk';
import type { ApiResponse } from '#test/support/local-api';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { embedRecipient, putItems } from '#test/support/stored-items';
import { lifecycleClient, lifecycleFixture } from './lifecycle-helpers.ts';

/**
 * Every list reaches every item however large the items are, in pages of at most `first` items and
 * 1 MiB of JSON, each page for a bounded number of DynamoDB requests whatever is stored.
 */

let api: LocalApi;
let client: ReturnType<typeof lifecycleClient>;
let meter: DynamoMeter;

beforeAll(async () => {
  api = await startLocalApi(lifecycleFixture);
  client = lifecycleClient(api);
  meter = meterDynamoDb(documentClient());
});
afterAll(async () => {
  meter.detach();
  await api.close();
});

const MiB = 1024 * 1024;
/** PRINCIPAL_CACHE_SECONDS=0 in tests: every request also reads the API key's link and its user. */
const AUTH_LOOKUPS = 2;
/** The most DynamoDB requests any page takes: the pager's four, and a lookup before it (the 404, a public id). */
const MAX_PAGE_REQUESTS = 6;

/** Every page of a list; its requests without the caller's lookups. */
async function walk(fetchPage: (after?: string) => Promise<ApiResponse>): Promise<ListWalk> {
  const walked = await walkList(fetchPage, { meter });
  return { ...walked, mostRequests: walked.mostRequests - AUTH_LOOKUPS };
}

/** Embed recipient rows with `propertyBytes` of properties each, written as add-recipients stores them. */
async function seedRecipients(notification: number, count: number, propertyBytes: number): Promise<void> {
  const properties = { securityContext: { blob: 'x'.repeat(propertyBytes - 24) } };
  const parent = { deploymentId: 7, id: notification, dashboardId: 70 };
  await putItems(
    Array.from({ length: count }, (_, i) =>
      encodeRecipient(parent, embedRecipient('r', i, properties, 10_000)),
    ),
  );
}

const recipientKeys = (walked: ListWalk) => new Set(walked.items.map((item) => item.embedUserId));

describe('pages of recipients with large properties', () => {
  it('reach all 1,000 recipients of 4.8 KB properties with first=200, every page within 1 MiB', async () => {
    const { body } = await client.create({ dashboardId: 70, scheduleType: 'DAILY', hour: 1 });
    await seedRecipients(body.id, 1000, 4800);
    const walked = await walk((after) =>
      client.recipients(body.id, `first=200${after ? `&after=${after}` : ''}`),
    );
    expect(walked.items).toHaveLength(1000);
    expect(recipientKeys(walked).size).toBe(1000);
    expect(walked.largestPageBytes).toBeLessThanOrEqual(MiB);
    expect(walked.mostRequests).toBeLessThanOrEqual(MAX_PAGE_REQUESTS);
  });

  it('reach all 100 recipients of 32 KB properties with first=100', async () => {
    const { body } = await client.create({ dashboardId: 70, scheduleType: 'DAILY', hour: 2 });
    await seedRecipients(body.id, 100, 32_000);
    const walked = await walk((after) =>
      client.recipients(body.id, `first=100${after ? `&after=${after}` : ''}`),
    );
    expect(recipientKeys(walked).size).toBe(100);
    expect(walked.items).toHaveLength(100);
    expect(walked.mostRequests).toBeLessThanOrEqual(MAX_PAGE_REQUESTS);
  });
});

describe('cursors of the longest keys', () => {
  it('walk recipients whose tenant and externalId take the most bytes a key allows, one at a time', async () => {
    const { body } = await client.create({ dashboardId: 70, scheduleType: 'DAILY', hour: 3 });
    const tenant = 't'.repeat(KEY_PART_MAX_BYTES);
    const rows = [0, 1, 2].map((i): StoredRecipient => {
      const externalId = `${i}`.padEnd(KEY_PART_MAX_BYTES, 'e');
      return {
        type: 'EMBED_USER',
        embedTenantName: tenant,
        normalizedExternalId: externalId,
        externalId,
        embedUserId: 50_000 + i,
        email: `e${i}@acme.com`,
        properties: {},
      };
    });
    await putItems(
      rows.map((row) => encodeRecipient({ deploymentId: 7, id: body.id, dashboardId: 70 }, row)),
    );
    const walked = await walk((after) =>
      client.recipients(body.id, `first=1${after ? `&after=${after}` : ''}`),
    );
    expect(recipientKeys(walked)).toEqual(new Set([50_000, 50_001, 50_002]));
  });
});

describe('pages of notifications with the largest filters', () => {
  const created: number[] = [];

  beforeAll(async () => {
    const lists = largestLists();
    for (let i = 0; i < 12; i++) {
      const response = await client.create(
        { dashboardId: 80, scheduleType: 'DAILY', hour: i, ...lists },
        { deploymentId: 8 },
      );
      expect(response.status).toBe(201);
      expect(Buffer.byteLength(response.text)).toBeGreaterThan(320_000);
      created.push(response.body.id);
    }
    await putItems(
      created.map((id) =>
        encodeRecipient({ deploymentId: 8, id, dashboardId: 80 }, { type: 'USER', userId: 4 }),
      ),
    );
  });

  const listOf8 = (query: string) => (after?: string) =>
    client.list(`${query}${after ? `&after=${after}` : ''}`, 8);

  it.each([
    ['the deployment', 'first=200', 13],
    ['a dashboard', 'dashboardId=80&first=200', 13],
    ['a recipient', 'recipientUserId=4&first=200', 12],
    ['a recipient by e-mail', 'recipientEmail=dora%40example.com&first=100', 12],
    ['a recipient on a dashboard', 'recipientUserId=4&dashboardId=80&first=200', 12],
    ['a recipient, five at a time', 'recipientUserId=4&first=5', 12],
  ])('are all reached through %s (%s), every page within 1 MiB', async (_, query, count) => {
    const walked = await walk(listOf8(query));
    const ids = walked.items.map((item) => item.id);
    expect(new Set(ids).size).toBe(count);
    expect(ids).toHaveLength(count);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    for (const id of created) expect(ids).toContain(id);
    expect(walked.largestPageBytes).toBeLessThanOrEqual(MiB);
    expect(walked.pages).toBeGreaterThan(count / 4);
    expect(walked.mostRequests).toBeLessThanOrEqual(MAX_PAGE_REQUESTS);
  });
});

describe('notifications of a recipient on one dashboard', () => {
  /** `count` notifications of deployment 7 on `dashboardId`, each with user `userId` subscribed. */
  async function seedSubscribed(firstId: number, count: number, dashboardId: number, userId: number) {
    const items: Item[] = [];
    for (let id = firstId; id < firstId + count; id++) {
      const notification = dailyNotification({ id, dashboardId, isEnabled: false });
      items.push(encodeNotification(notification));
      items.push(encodeRecipient({ deploymentId: 7, id, dashboardId }, { type: 'USER', userId }));
    }
    await putItems(items);
  }

  async function pageCost(query: string) {
    await client.list(query);
    meter.reset();
    const response = await client.list(query);
    return {
      ids: response.body.items.map((item: { id: number }) => item.id),
      hasNextPage: response.body.pageInfo.hasNextPage,
      requests: meter.totalRequests() - AUTH_LOOKUPS,
      readUnits: Object.values(meter.byOperation).reduce((sum, op) => sum + op.readCapacityUnits, 0),
    };
  }

  it('costs the same requests and read units per page with 3,000 other notifications as with 100', async () => {
    // User 1 receives 100 notifications on dashboard 70, user 5 receives 3,000; each also one on
    // dashboard 71, older than all the others, so a reader that skips rows would read them all.
    await seedSubscribed(10_000, 1, 71, 1);
    await seedSubscribed(10_001, 100, 70, 1);
    await seedSubscribed(20_000, 1, 71, 5);
    await seedSubscribed(20_001, 3000, 70, 5);
    const few = await pageCost('recipientUserId=1&dashboardId=71&first=1');
    const many = await pageCost('recipientUserId=5&dashboardId=71&first=1');
    expect(few.ids).toEqual([10_000]);
    expect(many.ids).toEqual([20_000]);
    expect(many.hasNextPage).toBe(false);
    // One Query of the recipient's rows on the dashboard, one BatchGetItem of their notifications, one
    // of their schedule entries.
    expect(many.requests).toBe(3);
    expect(many).toMatchObject({ requests: few.requests, readUnits: few.readUnits });
  });
});
