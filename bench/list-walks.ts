import type { Notification } from '#lib/domain/notifications/notification';
import { PAGE_BODY_MAX_BYTES } from '#lib/domain/paging';
import { meterDynamoDb } from '#lib/local/dynamodb-meter';
import { encodeNotification } from '#lib/store/codecs/notifications';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { documentClient } from '#lib/store/dynamo/client';
import { holdEntryItem } from '#lib/store/governance/hold-entries';
import { largestLists } from '#test/support/largest-lists';
import { walkList } from '#test/support/list-walk';
import { embedRecipient, putItems } from '#test/support/stored-items';
import { watch } from './dynamodb.ts';
import { notificationOf } from './fixture.ts';
import { type Bench, section } from './report.ts';
import type { Stack } from './stack.ts';

/**
 * Every list walked to its end over the largest items the limits allow, and the notifications of a
 * recipient on one dashboard with few and very many others: all figures deterministic.
 */

/** A deployment of its own, far from the fixture's and the other sections' items. */
const DEPLOYMENT = 40;
const [DASHBOARD, OTHER_DASHBOARD] = [400, 401];
const base = `/v1/deployments/${DEPLOYMENT}/notifications`;
const notificationOn = (id: number, dashboardId: number, lists: Partial<Notification> = {}) =>
  encodeNotification(notificationOf(id, { deploymentId: DEPLOYMENT, dashboardId, ...lists }));
const rowOf = (id: number, dashboardId: number, recipient: Parameters<typeof encodeRecipient>[1]) =>
  encodeRecipient({ deploymentId: DEPLOYMENT, id, dashboardId }, recipient);
const user = (userId: number) => ({ type: 'USER', userId }) as const;

async function walks(bench: Bench, stack: Stack) {
  const [small, large, largest] = bench.smoke ? [300, 40, 5] : [1000, 100, 12];
  const blob = (bytes: number) => ({ securityContext: { blob: 'x'.repeat(bytes - 24) } });
  const rows = (id: number, count: number, bytes: number) =>
    Array.from({ length: count }, (_, i) =>
      rowOf(id, DASHBOARD, embedRecipient('walk', i, blob(bytes), 2e6)),
    );
  const ids = Array.from({ length: largest }, (_, i) => 100 + i);
  await putItems([
    ...[1, 2].map((id) => notificationOn(id, DASHBOARD)),
    ...rows(1, small, 4800),
    ...rows(2, large, 32_000),
    ...ids.flatMap((id) => [notificationOn(id, DASHBOARD, largestLists()), rowOf(id, DASHBOARD, user(1))]),
  ]);
  const meter = meterDynamoDb(documentClient());
  const walk = async (list: string, stored: number, query: string) => {
    const page = (after?: string) =>
      stack.call('GET', `${base}${query}${after ? `&after=${encodeURIComponent(after)}` : ''}`, 200);
    const { items, pages, largestPageBytes, mostRequests } = await walkList(page, { meter });
    const reached = new Set(items.map((item) => JSON.stringify(item))).size;
    const { show, gate } = bench.figures.about(`list walk, ${list}`);
    show('stored', stored);
    show('reached', reached);
    show('pages', pages);
    gate('items not reached', stored - reached, 0, 'items');
    gate('largest page', largestPageBytes, PAGE_BODY_MAX_BYTES, 'bytes');
    // The pager's four (Queries and joins), the notification's 404 lookup, one lookup of a filter.
    gate('requests per page', mostRequests, 6, 'requests');
  };
  try {
    await walk('recipients, 4.8 KB properties, first=200', small, '/1/recipients?first=200');
    await walk('recipients, 32 KB properties, first=100', large, '/2/recipients?first=100');
    // With the two notifications of the recipient lists above, on the same dashboard.
    await walk('notifications, largest filters: the deployment', largest + 2, '?first=200');
    await walk('… a dashboard', largest + 2, `?dashboardId=${DASHBOARD}&first=200`);
    await walk('… a recipient', largest, '?recipientUserId=1&first=200');
    await walk(
      '… a recipient on a dashboard',
      largest,
      `?recipientUserId=1&dashboardId=${DASHBOARD}&first=200`,
    );
  } finally {
    meter.detach();
  }
}

/**
 * A console user subscribed to `stored` notifications on one dashboard and to one older notification
 * on another: a reader that skipped the rows of other dashboards would read every one of them first.
 */
async function subscribed(stack: Stack, stored: number, firstId: number, userId: number) {
  await putItems([notificationOn(firstId, OTHER_DASHBOARD), rowOf(firstId, OTHER_DASHBOARD, user(userId))]);
  for (let from = 1; from <= stored; from += 10_000) {
    const ids = Array.from({ length: Math.min(10_000, stored - from + 1) }, (_, i) => firstId + from + i);
    await putItems(ids.flatMap((id) => [notificationOn(id, DASHBOARD), rowOf(id, DASHBOARD, user(userId))]));
  }
  const path = `${base}?recipientUserId=${userId}&dashboardId=${OTHER_DASHBOARD}&first=1`;
  await stack.call('GET', path, 200);
  const { result, work } = await watch(() => stack.call('GET', path, 200));
  if (result.body.items.length !== 1 || result.body.items[0]?.id !== firstId)
    throw new Error(`recipient on a dashboard at ${stored}: ${result.text.slice(0, 200)}`);
  return { stored, requests: work.requests, readUnits: work.readUnits };
}

async function recipientOnDashboard({ figures, smoke }: Bench, stack: Stack) {
  const few = await subscribed(stack, 100, 1_000_000, 2);
  const lots = await subscribed(stack, smoke ? 2_000 : 100_000, 2_000_000, 3);
  for (const { stored, requests, readUnits } of [few, lots]) {
    figures.show(`recipient of ${stored + 1} notifications: DynamoDB requests`, requests);
    figures.show(`recipient of ${stored + 1} notifications: read units`, readUnits);
  }
  const { gate } = figures.about('recipient on a dashboard');
  const against = `per page at ${lots.stored} against ${few.stored}`;
  gate(`requests ${against}`, lots.requests - few.requests, 0, 'requests');
  gate(`read units ${against}`, lots.readUnits - few.readUnits, 0, 'RCU');
}

/** The owner of the inventory sections' notifications: ada, an active console user of the demo fixture. */
const OWNER = { type: 'USER', userId: 1, email: 'ada@example.com' } as const;
const INVENTORY_RECIPIENT = 3;

/**
 * Deployment `deploymentId`: one old notification on OTHER_DASHBOARD, paused, and `stored` newer ones
 * on DASHBOARD, none held; ada owns and user 3 receives all of them. Every filter that an index key
 * does not select is checked on rows that mostly fail it, so a page that read on until it found its
 * match would read them all.
 */
async function inventory(deploymentId: number, stored: number) {
  const firstId = deploymentId * 1_000_000;
  const on = (id: number, dashboardId: number, fields: Partial<Notification> = {}) => {
    const notification = notificationOf(id, { deploymentId, dashboardId, owner: OWNER, ...fields });
    const row = encodeRecipient({ deploymentId, id, dashboardId }, user(INVENTORY_RECIPIENT));
    const holdEntry = holdEntryItem(notification, notification.hold);
    return [encodeNotification(notification), row, ...(holdEntry ? [holdEntry] : [])];
  };
  const paused = { hold: { pause: { until: null, reason: 'bench' }, suspended: false } };
  await putItems(on(firstId, OTHER_DASHBOARD, paused));
  for (let from = 1; from <= stored; from += 10_000) {
    const ids = Array.from({ length: Math.min(10_000, stored - from + 1) }, (_, i) => firstId + from + i);
    await putItems(ids.flatMap((id) => on(id, DASHBOARD)));
  }
}

/** Every combination of the owner and status filters, alone and with the dashboard and recipient filters. */
const inventoryQueries = (() => {
  const owners = ['', `ownerUserId=${OWNER.userId}`];
  const statuses = ['', 'status=paused', 'status=suspended'];
  const others = [
    '',
    `dashboardId=${OTHER_DASHBOARD}`,
    `recipientUserId=${INVENTORY_RECIPIENT}`,
    `recipientUserId=${INVENTORY_RECIPIENT}&dashboardId=${OTHER_DASHBOARD}`,
  ];
  return owners.flatMap((owner) =>
    statuses.flatMap((status) =>
      owner || status ? others.map((other) => [owner, status, other].filter(Boolean).join('&')) : [],
    ),
  );
})();

/** The most DynamoDB requests a page of a list filtered beyond its key takes: the pager's bound and its last slice. */
const FILTERED_PAGE_REQUESTS = 5;

async function inventoryPages({ figures, smoke }: Bench, stack: Stack) {
  const sizes = [
    { deploymentId: 41, stored: 100 },
    { deploymentId: 42, stored: smoke ? 2_000 : 100_000 },
  ] as const;
  for (const { deploymentId, stored } of sizes) await inventory(deploymentId, stored);
  const page = async (deploymentId: number, query: string) => {
    const path = `/v1/deployments/${deploymentId}/notifications?first=1&${query}`;
    await stack.call('GET', path, 200);
    const { work } = await watch(() => stack.call('GET', path, 200));
    return work;
  };
  for (const query of inventoryQueries) {
    const atFew = await page(sizes[0].deploymentId, query);
    const atLots = await page(sizes[1].deploymentId, query);
    const { show, gate } = figures.about(`inventory page, ${query}`);
    show('DynamoDB requests at 100', atFew.requests, 'requests');
    show(`DynamoDB requests at ${sizes[1].stored}`, atLots.requests, 'requests');
    show(`read units at ${sizes[1].stored}`, atLots.readUnits, 'RCU');
    gate('requests, the larger against the smaller', atLots.requests - atFew.requests, 0, 'requests');
    gate('read units, the larger against the smaller', atLots.readUnits - atFew.readUnits, 0, 'RCU');
    gate('requests per page', atLots.requests, FILTERED_PAGE_REQUESTS, 'requests');
  }
}

export async function listWalksSection(bench: Bench, stack: Stack) {
  await section(bench, 'List walks over the largest items', () => walks(bench, stack));
  const title = 'Notifications of a recipient on one dashboard, a page of 1, with few and with many others';
  await section(bench, title, () => recipientOnDashboard(bench, stack));
  const inventoryTitle =
    'Notifications by owner and status, every combination, a page of 1, with 100 and with many others';
  await section(bench, inventoryTitle, () => inventoryPages(bench, stack));
}
