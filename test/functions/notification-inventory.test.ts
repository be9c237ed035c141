import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DynamoMeter, meterDynamoDb } from '#lib/local/dynamodb-meter';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { ADMIN_KEY, consoleUsers } from '#test/support/fixtures';
import { walkList } from '#test/support/list-walk';
import { type LocalApi, startLocalApi } from '#test/support/local-api';

/**
 * The notification list's inventory filters, `ownerUserId` and `status` (paused, suspended), alone and
 * with the dashboard and recipient filters, through HTTP on the local engine: what each lists, how a
 * pause, a resume and a transfer move a notification between lists, and what a page costs.
 */

const DAVE_KEY = 'sk-test-dave';
const ERIN_KEY = 'sk-test-erin';
const [ADA, DAVE, ERIN] = [1, 4, 5];
const base = '/v1/deployments/7/notifications';

let api: LocalApi;
let meter: DynamoMeter;

beforeAll(async () => {
  api = await startLocalApi({
    users: [
      ...consoleUsers,
      { id: DAVE, email: 'dave@example.com', username: 'dave', role: 'admin', apiKeys: [DAVE_KEY] },
      { id: ERIN, email: 'erin@example.com', username: 'erin', role: 'admin', apiKeys: [ERIN_KEY] },
    ],
    deployments: [
      { id: 7, name: 'Production' },
      { id: 8, name: 'Staging' },
      { id: 9, name: 'Load' },
    ],
    dashboards: [
      { id: 70, deploymentId: 7, publicId: 'sales', title: 'Sales', published: true },
      { id: 71, deploymentId: 7, publicId: 'ops', title: 'Ops', published: true },
      { id: 80, deploymentId: 8, publicId: 'stage', title: 'Stage', published: true },
      { id: 90, deploymentId: 9, publicId: 'load', title: 'Load', published: true },
    ],
    notifications: [],
  });
  meter = meterDynamoDb(documentClient());
});
afterAll(async () => {
  meter.detach();
  await api.close();
});

const request = (method: string, path: string, body?: object, token = ADMIN_KEY) =>
  api.request(method, path, { token, ...(body && { body }) });

async function create(dashboardId: number, token: string, deploymentId = 7): Promise<number> {
  const created = await request(
    'POST',
    `/v1/deployments/${deploymentId}/notifications`,
    { dashboardId, scheduleType: 'HOURLY', minute: 7 },
    token,
  );
  expect(created.status).toBe(201);
  return created.body.id;
}
async function pause(id: number, body: object = {}, deploymentId = 7) {
  const paused = await request('POST', `/v1/deployments/${deploymentId}/notifications/${id}/pause`, body);
  expect(paused.body.status, paused.text).toBe('paused');
}
const resume = async (id: number) => expect((await request('POST', `${base}/${id}/resume`)).status).toBe(200);
const subscribe = async (id: number, userId: number) =>
  expect((await request('POST', `${base}/${id}/recipients`, { recipients: [{ userId }] })).status).toBe(200);

/** Every id a walk with `first` pages reaches, in order, checking each page's status and its cost. */
async function walk(query: string, first = 1, deploymentId = 7) {
  const path = `/v1/deployments/${deploymentId}/notifications?first=${first}${query ? `&${query}` : ''}`;
  const walked = await walkList(
    async (after) => {
      const page = await request('GET', `${path}${after ? `&after=${encodeURIComponent(after)}` : ''}`);
      expect(page.status, page.text).toBe(200);
      return page;
    },
    { meter, sparse: true },
  );
  return walked;
}
const idsOf = async (query: string, first = 1, deploymentId = 7) =>
  (await walk(query, first, deploymentId)).items.map((item: { id: number }) => item.id);

async function setActive(userId: number, active: boolean) {
  await documentClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.user(userId),
      UpdateExpression: 'SET active = :active',
      ExpressionAttributeValues: { ':active': active },
    }),
  );
}

describe('GET .../notifications?ownerUserId=&status=', () => {
  /** Five notifications of deployment 7, oldest first: owner, dashboard, subscribed ada, paused. */
  let n: Record<'daveSalesPaused' | 'daveOps' | 'erinSalesPaused' | 'erinOpsPaused' | 'daveSales', number>;

  beforeAll(async () => {
    const daveSalesPaused = await create(70, DAVE_KEY);
    const daveOps = await create(71, DAVE_KEY);
    const erinSalesPaused = await create(70, ERIN_KEY);
    const erinOpsPaused = await create(71, ERIN_KEY);
    const daveSales = await create(70, DAVE_KEY);
    n = { daveSalesPaused, daveOps, erinSalesPaused, erinOpsPaused, daveSales };
    for (const id of [daveSalesPaused, daveOps, erinOpsPaused]) await subscribe(id, ADA);
    for (const id of [daveSalesPaused, erinSalesPaused, erinOpsPaused]) await pause(id, { reason: 'audit' });
    // Another deployment's paused notification of dave's is in none of deployment 7's lists.
    await pause(await create(80, DAVE_KEY, 8), {}, 8);
  });

  it('filters by each alone and combined with dashboard and recipient filters, newest first, every match once', async () => {
    const cases: [string, number[]][] = [
      [`ownerUserId=${DAVE}`, [n.daveSales, n.daveOps, n.daveSalesPaused]],
      [`ownerUserId=${ERIN}`, [n.erinOpsPaused, n.erinSalesPaused]],
      [`ownerUserId=${ADA}`, []],
      ['status=paused', [n.erinOpsPaused, n.erinSalesPaused, n.daveSalesPaused]],
      ['status=suspended', []],
      [`ownerUserId=${DAVE}&status=paused`, [n.daveSalesPaused]],
      [`ownerUserId=${DAVE}&dashboardId=70`, [n.daveSales, n.daveSalesPaused]],
      [`ownerUserId=${ERIN}&dashboardPublicId=ops`, [n.erinOpsPaused]],
      ['status=paused&dashboardId=70', [n.erinSalesPaused, n.daveSalesPaused]],
      [`status=paused&dashboardId=71&ownerUserId=${ERIN}`, [n.erinOpsPaused]],
      [`ownerUserId=${DAVE}&recipientUserId=${ADA}`, [n.daveOps, n.daveSalesPaused]],
      ['status=paused&recipientEmail=ADA@example.com', [n.erinOpsPaused, n.daveSalesPaused]],
      [`status=paused&recipientUserId=${ADA}&dashboardId=70`, [n.daveSalesPaused]],
      [`status=paused&recipientUserId=${ADA}&ownerUserId=${ERIN}`, [n.erinOpsPaused]],
      [`ownerUserId=${DAVE}&recipientUserId=${ADA}&dashboardId=71`, [n.daveOps]],
      [`ownerUserId=${ERIN}&status=paused&recipientUserId=${ADA}&dashboardId=70`, []],
    ];
    for (const [query, expected] of cases) {
      expect(await idsOf(query), query).toEqual(expected);
      expect(await idsOf(query, 200), `${query}, first=200`).toEqual(expected);
    }
  });

  it('moves a notification into status=paused with a pause and out of it with a resume', async () => {
    const id = await create(70, DAVE_KEY);
    expect(await idsOf('status=paused')).not.toContain(id);
    await pause(id);
    expect(await idsOf('status=paused&dashboardId=70')).toContain(id);
    expect(await idsOf(`status=paused&ownerUserId=${DAVE}`)).toContain(id);
    // Pausing again replaces the pause: still listed once.
    await pause(id, { reason: 'again' });
    expect((await idsOf('status=paused')).filter((listed) => listed === id)).toHaveLength(1);
    await resume(id);
    expect(await idsOf('status=paused')).not.toContain(id);
    expect(await idsOf('status=paused&dashboardId=70')).not.toContain(id);
    expect(await idsOf(`ownerUserId=${DAVE}`)).toContain(id);
  });

  it('moves a notification between owners with a transfer, paused or not', async () => {
    const id = await create(71, DAVE_KEY);
    await pause(id);
    const transferred = await request('PUT', `${base}/${id}`, { ownerUserId: ERIN });
    expect(transferred.body.owner).toMatchObject({ userId: ERIN });
    expect(await idsOf(`ownerUserId=${DAVE}`)).not.toContain(id);
    expect(await idsOf(`ownerUserId=${ERIN}`)).toContain(id);
    expect(await idsOf(`ownerUserId=${ERIN}&status=paused`)).toContain(id);
    expect(await idsOf(`ownerUserId=${DAVE}&status=paused`)).not.toContain(id);
    await request('PUT', `${base}/${id}`, { ownerUserId: DAVE });
    expect(await idsOf(`ownerUserId=${DAVE}&dashboardId=71`)).toContain(id);
    expect(await idsOf(`ownerUserId=${ERIN}`)).not.toContain(id);
  });

  it('lists a notification under the status its answer shows: not paused once orphaned or past its until', async () => {
    const id = await create(70, ERIN_KEY);
    await pause(id);
    await setActive(ERIN, false);
    try {
      const listed = await idsOf(`ownerUserId=${ERIN}`);
      expect(listed).toContain(id);
      expect(await idsOf('status=paused')).not.toContain(id);
    } finally {
      await setActive(ERIN, true);
    }
    expect(await idsOf('status=paused')).toContain(id);
    // A pause whose until has come is over by itself, with no write: out of the list as it ends.
    const ending = await create(70, ERIN_KEY);
    const until = Date.now() + 5000;
    await pause(ending, { until: new Date(until).toISOString() });
    expect(await idsOf('status=paused')).toContain(ending);
    await new Promise((resolve) => setTimeout(resolve, until - Date.now() + 100));
    expect(await idsOf('status=paused')).not.toContain(ending);
  });

  it('is gone from every list once deleted', async () => {
    const id = await create(70, DAVE_KEY);
    await pause(id);
    expect((await request('DELETE', `${base}/${id}`)).status).toBe(204);
    for (const query of ['status=paused', `ownerUserId=${DAVE}`, `ownerUserId=${DAVE}&status=paused`])
      expect(await idsOf(query), query).not.toContain(id);
  });

  it('answers 400 naming the field for a status it does not filter by or a bad ownerUserId', async () => {
    for (const [query, field] of [
      ['status=active', 'status'],
      ['status=orphaned', 'status'],
      ['status=PAUSED', 'status'],
      ['ownerUserId=0', 'ownerUserId'],
      ['ownerUserId=dave', 'ownerUserId'],
    ]) {
      const response = await request('GET', `${base}?${query}`);
      expect(response.status, query).toBe(400);
      expect(
        response.body.errors.map((error: { path: string }) => error.path),
        query,
      ).toContain(field);
    }
  });
});

describe('the cost of a filtered page', () => {
  /** PRINCIPAL_CACHE_SECONDS=0 in tests: every request also reads the API key's link and its user. */
  const AUTH_LOOKUPS = 2;
  /** The pager's bound (its Query and two slices of the join), and a read past it by the last slice. */
  const PAGE_REQUESTS = 6;

  it('is bounded where the index key leaves a filter to check: pages may end short, a walk reaches every match once', async () => {
    // Deployment 9: dave's oldest notification, then 40 of erin's; ada receives all 41.
    const oldest = await create(90, DAVE_KEY, 9);
    const later: number[] = [];
    for (let i = 0; i < 40; i++) later.push(await create(90, ERIN_KEY, 9));
    for (const id of [oldest, ...later])
      expect(
        (
          await request('POST', `/v1/deployments/9/notifications/${id}/recipients`, {
            recipients: [{ userId: ADA }],
          })
        ).status,
      ).toBe(200);
    await pause(oldest, {}, 9);
    for (const [query, expected] of [
      [`recipientUserId=${ADA}&ownerUserId=${DAVE}`, [oldest]],
      [`ownerUserId=${DAVE}&dashboardId=90`, [oldest]],
      [`recipientUserId=${ADA}&status=paused`, [oldest]],
      [`ownerUserId=${ERIN}&dashboardId=90`, [...later].reverse()],
    ] as const) {
      const walked = await walk(query, 1, 9);
      expect(
        walked.items.map((item: { id: number }) => item.id),
        query,
      ).toEqual(expected);
      expect(walked.mostRequests - AUTH_LOOKUPS, query).toBeLessThanOrEqual(PAGE_REQUESTS);
    }
    // A match behind 40 rows that fail the owner filter: the first page ends at its bound, short.
    const first = await request(
      'GET',
      `/v1/deployments/9/notifications?first=1&recipientUserId=${ADA}&ownerUserId=${DAVE}`,
    );
    expect(first.body).toMatchObject({
      items: [],
      pageInfo: { hasNextPage: true, endCursor: expect.any(String) },
    });
  });
});
