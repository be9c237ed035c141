import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DynamoMeter, meterDynamoDb } from '#lib/local/dynamodb-meter';
import { documentClient } from '#lib/store/dynamo/client';
import { ADMIN_KEY } from '#test/support/fixtures';
import { walkList } from '#test/support/list-walk';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { dailyAt, lifecycleClient, lifecycleFixture } from './lifecycle-helpers.ts';

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

const ids = (items: { id: number }[]) => items.map((item) => item.id);

const MINUTE = 60_000;
const isoSeconds = (instant: number) => `${new Date(instant).toISOString().slice(0, 19)}Z`;

/** The first whole minute after `after` at which the zone's wall clock reads hour:minute (none of these zones skips it). */
function nextWallClock(zone: string, hour: number, minute: number, after: number): number {
  const format = new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  const wanted = `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
  for (
    let at = Math.floor(after / MINUTE) * MINUTE + MINUTE;
    at < after + 3 * 24 * 60 * MINUTE;
    at += MINUTE
  ) {
    if (format.format(at) === wanted) return at;
  }
  throw new Error(`no ${wanted} in ${zone}`);
}

/** PRINCIPAL_CACHE_SECONDS=0 in tests: every request also reads the API key's link and its user. */
const AUTH_LOOKUPS = 2;
const pageRequests = () => meter.totalRequests() - AUTH_LOOKUPS;

/** Creates `count` notifications on dashboard `dashboardId` of deployment 8 or 7; their ids, oldest first. */
async function createMany(count: number, deploymentId = 7, dashboardId = 70): Promise<number[]> {
  const created: number[] = [];
  for (let i = 0; i < count; i++) {
    const response = await client.create(dailyAt(i % 24, dashboardId), { deploymentId });
    expect(response.status).toBe(201);
    created.push(response.body.id);
  }
  return created;
}

describe('GET /v1/deployments/{deploymentId}/notifications', () => {
  it('lists newest first, with the page info of the platform', async () => {
    const created = await createMany(3, 8, 80);
    const response = await client.list('first=2', 8);
    expect(response.status).toBe(200);
    expect(ids(response.body.items)).toEqual([created[2], created[1]]);
    expect(response.body.pageInfo).toEqual({
      startCursor: expect.any(String),
      endCursor: expect.any(String),
      hasNextPage: true,
      hasPreviousPage: false,
    });
    const next = await client.list(`first=2&after=${response.body.pageInfo.endCursor}`, 8);
    expect(ids(next.body.items)).toEqual([created[0], 800]);
    expect(next.body.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect(next.body.items[1]).toMatchObject({ id: 800, deploymentId: 8, dashboardId: 80 });
  });

  it('answers an empty page with null cursors for an unknown deployment', async () => {
    const response = await client.list('', 99);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      items: [],
      pageInfo: { startCursor: null, endCursor: null, hasNextPage: false, hasPreviousPage: false },
    });
  });

  it('walks every notification that exists throughout exactly once, whatever changes between pages', async () => {
    const created = await createMany(10, 7, 71);
    const deletedAhead = created[2] as number;
    const deletedBehind = created[9] as number;
    const addedDuring: number[] = [];
    const { items: seen } = await walkList(
      async (after) => client.list(`dashboardId=71&first=3${after ? `&after=${after}` : ''}`),
      {
        between: async (page) => {
          if (page === 0) {
            expect((await client.remove(deletedAhead)).status).toBe(204);
            expect((await client.remove(deletedBehind)).status).toBe(204);
          }
          addedDuring.push(...(await createMany(1, 7, 71)));
        },
      },
    );
    const seenIds = ids(seen);
    expect(new Set(seenIds).size).toBe(seenIds.length);
    const throughout = [...created.filter((id) => id !== deletedAhead && id !== deletedBehind), 701];
    for (const id of throughout) expect(seenIds.filter((seenId) => seenId === id)).toHaveLength(1);
    expect(seenIds).not.toContain(deletedAhead);
    for (const id of addedDuring) expect(seenIds).not.toContain(id);
    expect(seenIds).toEqual([...seenIds].sort((a, b) => b - a));
  });

  it('reads one page with one Query whatever the list holds: O(page) requests and read units', async () => {
    await createMany(30, 7, 70);
    await client.list('first=5');
    meter.reset();
    const small = await client.list('first=5');
    const smallUnits = meter.byOperation.Query?.readCapacityUnits ?? 0;
    expect(small.body.items).toHaveLength(5);
    // The page's Query, and one BatchGetItem of the page's schedule entries (their upcoming instants).
    expect(pageRequests()).toBe(2);
    expect(meter.byOperation.Query?.requests).toBe(1);
    expect(meter.byOperation.BatchGetItem?.requests).toBe(1);
    meter.reset();
    const large = await client.list('first=30');
    expect(large.body.items).toHaveLength(30);
    expect(pageRequests()).toBe(2);
    const largeUnits = meter.byOperation.Query?.readCapacityUnits ?? 0;
    // Six items (five and the look-ahead) of < 1 KB: one 4 KB read unit, eventually consistent.
    expect(smallUnits).toBeLessThanOrEqual(1);
    expect(largeUnits).toBeGreaterThan(smallUnits);
    expect(largeUnits).toBeLessThanOrEqual(4);
  });

  it('filters by dashboard, by id or by public id, within the deployment', async () => {
    const [onOps] = await createMany(1, 7, 71);
    const byId = await client.list('dashboardId=71&first=200');
    const byPublicId = await client.list('dashboardPublicId=ops-kpis&first=200');
    expect(ids(byId.body.items)).toContain(onOps);
    expect(ids(byId.body.items)).toContain(701);
    expect(byId.body.items.every((item: { dashboardId: number }) => item.dashboardId === 71)).toBe(true);
    expect(ids(byPublicId.body.items)).toEqual(ids(byId.body.items));
    expect((await client.list('dashboardPublicId=staging-sales')).body.items).toEqual([]);
    expect((await client.list('dashboardId=80')).body.items).toEqual([]);
  });

  it('filters by recipient: user id, e-mail (any case), embed user; combined with a dashboard', async () => {
    const [a, b, c] = await createMany(3, 7, 70);
    const [d] = await createMany(1, 7, 71);
    for (const id of [a, c, d] as number[]) {
      expect((await client.subscribe(id, [{ userId: 4 }])).status).toBe(200);
    }
    expect(
      (await client.subscribe(b as number, [{ embedTenantName: 'acme', externalId: 'Zed@Acme.com' }])).status,
    ).toBe(200);
    expect(ids((await client.list('recipientUserId=4')).body.items)).toEqual([d, c, a]);
    expect(ids((await client.list('recipientEmail=dora%40example.COM')).body.items)).toEqual([d, c, a]);
    expect(ids((await client.list('recipientUserId=4&dashboardId=70')).body.items)).toEqual([c, a]);
    expect(ids((await client.list('recipientUserId=4&dashboardPublicId=ops-kpis')).body.items)).toEqual([d]);
    expect(
      ids((await client.list('recipientEmbedTenantName=acme&recipientExternalId=zed%40acme.com')).body.items),
    ).toEqual([b]);
    expect((await client.list('recipientUserId=4', 8)).body.items).toEqual([]);
    expect((await client.list('recipientEmail=nobody%40example.com')).body.items).toEqual([]);

    const first = await client.list('recipientUserId=4&first=2');
    expect(ids(first.body.items)).toEqual([d, c]);
    const rest = await client.list(`recipientUserId=4&first=2&after=${first.body.pageInfo.endCursor}`);
    expect(ids(rest.body.items)).toEqual([a]);
    expect(rest.body.pageInfo.hasNextPage).toBe(false);

    meter.reset();
    await client.list('recipientUserId=4&first=2');
    // One Query on the recipient's index partition, one BatchGetItem for the page's notifications and
    // one for their schedule entries.
    expect(meter.byOperation).toMatchObject({ Query: { requests: 1 }, BatchGetItem: { requests: 2 } });
    expect(pageRequests()).toBe(3);
  });

  it("shows each item's next firing instant after the answer, as GET does", async () => {
    const zones = ['Europe/Berlin', 'America/New_York', 'Asia/Kathmandu', 'UTC'];
    const created: { id: number; zone: string; hour: number; minute: number }[] = [];
    for (const [i, zone] of zones.entries()) {
      const [hour, minute] = [(7 + 5 * i) % 24, 15 * i];
      const response = await client.create(
        { dashboardId: 80, scheduleType: 'DAILY', hour, minute, timezone: zone },
        { deploymentId: 8 },
      );
      expect(response.status).toBe(201);
      created.push({ id: response.body.id, zone, hour, minute });
    }
    const before = Date.now();
    const listed = await client.list('first=200', 8);
    const after = Date.now();
    for (const { id, zone, hour, minute } of created) {
      const item = listed.body.items.find((candidate: { id: number }) => candidate.id === id);
      // Computed here minute by minute with Intl, not by the service's code: the first minute after
      // the request whose wall clock in the zone reads hour:minute.
      const expected = [nextWallClock(zone, hour, minute, before), nextWallClock(zone, hour, minute, after)];
      expect(expected.map(isoSeconds), `${zone}`).toContain(item.nextRunAt);
      expect((await client.get(id, 8)).body.nextRunAt).toBe(item.nextRunAt);
    }
  });

  it.each([
    ['first=0', 'first'],
    ['first=201', 'first'],
    ['first=ten', 'first'],
    ['dashboardId=70&dashboardPublicId=sales-overview', 'dashboardPublicId'],
    ['recipientUserId=1&recipientEmail=ada%40example.com', 'recipientEmail'],
    ['recipientEmbedTenantName=acme', 'recipientExternalId'],
    ['recipientExternalId=x', 'recipientEmbedTenantName'],
    ['dashboardId=seventy', 'dashboardId'],
    ['sort=asc', 'sort'],
    [
      `recipientEmbedTenantName=acme&recipientExternalId=${encodeURIComponent('é'.repeat(300))}`,
      'recipientExternalId',
    ],
    [`recipientEmail=${'a'.repeat(1001)}`, 'recipientEmail'],
    [`dashboardPublicId=${'p'.repeat(129)}`, 'dashboardPublicId'],
  ])('refuses ?%s with 400 naming %s', async (query, field) => {
    const response = await client.list(query);
    expect(response.status).toBe(400);
    expect(response.body.errors.map((problem: { path: string }) => problem.path)).toContain(field);
  });

  it('refuses a cursor it did not issue for this list with 400 naming after', async () => {
    const page = await client.list('first=1');
    const cursor = page.body.pageInfo.endCursor as string;
    const ofDashboard = (await client.list('dashboardId=70&first=1')).body.pageInfo.endCursor;
    const ofOtherDeployment = (await client.list('first=1', 8)).body.pageInfo.endCursor;
    const ofRecipients = (await client.recipients(700, 'first=1')).body.pageInfo.endCursor;
    const forged = Buffer.from(JSON.stringify(['DEPLOYMENT#7#NOTIFICATIONS', 'not-a-position'])).toString(
      'base64url',
    );
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const [after, query] of [
      [ofDashboard, 'first=1'],
      [ofOtherDeployment, 'first=1'],
      [cursor, 'dashboardId=70&first=1'],
      [cursor, 'recipientUserId=4&first=1'],
      [forged, 'first=1'],
      [tampered, 'first=1'],
      ['!!not base64!!', 'first=1'],
      ['x'.repeat(1001), 'first=1'],
    ] as const) {
      const response = await client.list(`${query}&after=${encodeURIComponent(after ?? 'null')}`);
      expect(response.status, `${after} on ${query}`).toBe(400);
      expect(response.body.errors.map((problem: { path: string }) => problem.path)).toEqual(['after']);
    }
    expect(ofRecipients).toBeNull();
  });
});

describe('cursors whose own item is gone', () => {
  it('go on with the next item: of every notification list, and of the recipients', async () => {
    const [oldest, middle, newest] = (await createMany(3, 7, 71)) as [number, number, number];
    for (const id of [oldest, middle, newest]) {
      await client.subscribe(id, [{ userId: 1 }]);
      // Subscribed after the user: the newest recipient, the first page's.
      await client.subscribe(id, [{ embedTenantName: 'acme', externalId: 'gone@acme.example' }]);
    }
    const lists = ['', 'dashboardId=71', 'recipientUserId=1', 'recipientUserId=1&dashboardId=71'];
    const cursors = await Promise.all(
      lists.map(async (filter) => {
        const page = await client.list(`first=2&${filter}`);
        expect(ids(page.body.items), filter).toEqual([newest, middle]);
        return page.body.pageInfo.endCursor as string;
      }),
    );
    const recipientsPage = await client.recipients(oldest, 'first=1');
    const embed = recipientsPage.body.items[0];
    expect(embed).toMatchObject({ type: 'EMBED_USER', externalId: 'gone@acme.example' });

    expect((await client.remove(middle)).status).toBe(204);
    await client.unsubscribe(oldest, [
      { type: 'EMBED_USER', id: embed.embedUserId, embedTenantName: 'acme' },
    ]);

    for (const [i, filter] of lists.entries()) {
      const rest = await client.list(`first=2&${filter}&after=${cursors[i]}`);
      expect(rest.status, filter).toBe(200);
      expect(ids(rest.body.items)[0], filter).toBe(oldest);
    }
    const rest = await client.recipients(oldest, `after=${recipientsPage.body.pageInfo.endCursor}`);
    expect(rest.status).toBe(200);
    expect(rest.body.items).toEqual([{ type: 'USER', userId: 1, email: 'ada@example.com', username: 'ada' }]);
  });
});

describe('GET .../notifications/{id}/recipients', () => {
  it('lists the output items, newest subscription first, page by page', async () => {
    const [id] = (await createMany(1)) as [number];
    await client.subscribe(id, [{ userId: 1 }]);
    await client.subscribe(id, [{ embedTenantName: 'acme', externalId: 'Pat@Acme.com' }]);
    await client.subscribe(id, [{ email: 'dora@example.com' }]);
    const first = await client.recipients(id, 'first=2');
    expect(first.status).toBe(200);
    expect(first.body.items).toEqual([
      { type: 'USER', userId: 4, email: 'Dora@Example.com', username: 'dora' },
      {
        type: 'EMBED_USER',
        embedTenantName: 'acme',
        externalId: 'Pat@Acme.com',
        embedUserId: expect.any(Number),
        email: 'Pat@Acme.com',
      },
    ]);
    expect(first.body.pageInfo.hasNextPage).toBe(true);
    const rest = await client.recipients(id, `first=2&after=${first.body.pageInfo.endCursor}`);
    expect(rest.body.items).toEqual([{ type: 'USER', userId: 1, email: 'ada@example.com', username: 'ada' }]);
    expect(rest.body.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });

  it('keeps a recipient in its place when it is subscribed again', async () => {
    const [id] = (await createMany(1)) as [number];
    await client.subscribe(id, [{ userId: 1 }]);
    await client.subscribe(id, [{ userId: 4 }]);
    await client.subscribe(id, [{ userId: 1 }, { userId: 4 }]);
    const userIds = (await client.recipients(id)).body.items.map((item: { userId: number }) => item.userId);
    expect(userIds).toEqual([4, 1]);
  });

  it('reads a page with one GetItem, one Query and one BatchGetItem', async () => {
    const [id] = (await createMany(1)) as [number];
    await client.subscribe(
      id,
      Array.from({ length: 40 }, (_, k) => ({ embedTenantName: 'acme', externalId: `bulk-${k}@acme.com` })),
    );
    await client.subscribe(id, [{ userId: 1 }, { userId: 4 }]);
    await client.recipients(id, 'first=5');
    meter.reset();
    const page = await client.recipients(id, 'first=5');
    expect(page.body.items).toHaveLength(5);
    expect(meter.byOperation).toMatchObject({
      GetItem: { requests: AUTH_LOOKUPS + 1 },
      Query: { requests: 1 },
      BatchGetItem: { requests: 1 },
    });
    expect(pageRequests()).toBe(3);
    expect(meter.byOperation.Query?.readCapacityUnits).toBeLessThanOrEqual(1);
  });

  it('answers 404 for an unknown notification and one of another deployment', async () => {
    expect((await client.recipients(999_999)).status).toBe(404);
    const other = await api.request('GET', '/v1/deployments/8/notifications/700/recipients', {
      token: 'sk-test-admin',
    });
    expect(other.status).toBe(404);
  });

  it('refuses a foreign cursor and an unknown parameter with 400', async () => {
    const [a, b] = (await createMany(2)) as [number, number];
    await client.subscribe(a, [{ userId: 1 }, { userId: 4 }]);
    await client.subscribe(b, [{ userId: 1 }, { userId: 4 }]);
    const cursor = (await client.recipients(a, 'first=1')).body.pageInfo.endCursor;
    const foreign = await client.recipients(b, `first=1&after=${cursor}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors).toEqual([{ path: 'after', message: 'is not a cursor of this list' }]);
    const unknown = await client.recipients(b, 'recipientUserId=1');
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].path).toBe('recipientUserId');
  });
});

describe('DELETE .../notifications/{id}/recipients', () => {
  const userIdsOf = async (id: number) =>
    (await client.recipients(id, 'first=200')).body.items.map(
      (item: { userId?: number; embedUserId?: number }) =>
        item.userId === undefined ? `embed:${item.embedUserId}` : `user:${item.userId}`,
    );

  it('removes console and embed recipients, ignores who is not subscribed, and answers 204', async () => {
    const [id] = (await createMany(1)) as [number];
    const added = await client.subscribe(id, [
      { userId: 1 },
      { userId: 4 },
      { embedTenantName: 'acme', externalId: 'kim@acme.com' },
      { embedTenantName: 'acme', externalId: 'lee@acme.com' },
    ]);
    const [kim, lee] = added.body.createdRecipients
      .slice(2)
      .map((item: { embedUserId: number }) => item.embedUserId);
    const response = await client.unsubscribe(id, [
      { type: 'USER', id: 1 },
      { type: 'EMBED_USER', id: kim, embedTenantName: 'acme' },
      { type: 'USER', id: 2 },
      { type: 'EMBED_USER', id: lee, embedTenantName: 'other-tenant' },
      { type: 'SLACK', id: 'C0123' },
    ]);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    // Subscribed by one request, the two keep an order of their own: compare as a set.
    expect((await userIdsOf(id)).sort()).toEqual([`embed:${lee}`, 'user:4']);
    expect(ids((await client.list('recipientUserId=1&first=200')).body.items)).not.toContain(id);

    const again = await client.unsubscribe(id, [{ type: 'USER', id: 1 }]);
    expect(again.status).toBe(204);
    expect((await userIdsOf(id)).sort()).toEqual([`embed:${lee}`, 'user:4']);
    // One event, of the removal that removed something, naming the two it removed; none for the repeat.
    const events = await api.request('GET', `/v1/deployments/7/notifications/${id}/events?first=1`, {
      token: ADMIN_KEY,
    });
    expect(events.body.items[0]).toMatchObject({
      action: 'recipients_removed',
      changes: {
        count: 2,
        recipients: [
          { type: 'USER', userId: 1 },
          { type: 'EMBED_USER', embedUserId: kim, embedTenantName: 'acme' },
        ],
      },
    });
  });

  it.each([
    [[], 'recipients'],
    [Array.from({ length: 1001 }, (_, k) => ({ type: 'USER', id: k + 1 })), 'recipients'],
    [
      [
        { type: 'USER', id: 1 },
        { type: 'USER', id: 1 },
      ],
      'recipients.1',
    ],
    [[{ type: 'EMBED_USER', id: 5 }], 'recipients.0.embedTenantName'],
    [[{ type: 'USER', id: 0 }], 'recipients.0.id'],
    [[{ type: 'TEAM', id: 1 }], 'recipients.0.type'],
    [[{ type: 'USER', id: 1, email: 'x@example.com' }], 'recipients.0.email'],
  ])('refuses %j with 400 naming %s, and removes nothing', async (recipients, field) => {
    const [id] = (await createMany(1)) as [number];
    await client.subscribe(id, [{ userId: 1 }]);
    const response = await client.unsubscribe(id, recipients);
    expect(response.status).toBe(400);
    expect(response.body.errors.map((problem: { path: string }) => problem.path)).toContain(field);
    expect(await userIdsOf(id)).toEqual(['user:1']);
  });

  it('takes 1000 recipients in one request', async () => {
    const [id] = (await createMany(1)) as [number];
    await client.subscribe(id, [{ userId: 1 }]);
    const recipients = Array.from({ length: 1000 }, (_, k) => ({ type: 'USER', id: k + 1 }));
    expect((await client.unsubscribe(id, recipients)).status).toBe(204);
    expect(await userIdsOf(id)).toEqual([]);
  });

  it('answers 404 for an unknown notification', async () => {
    expect((await client.unsubscribe(999_999, [{ type: 'USER', id: 1 }])).status).toBe(404);
  });
});
