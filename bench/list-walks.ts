import type { Notification } from '#lib/domain/notifications/notification';
import { PAGE_BODY_MAX_BYTES } from '#lib/domain/paging';
import { meterDynamoDb } from '#lib/local/dynamodb-meter';
import { encodeNotification } from '#lib/store/codecs/notifications';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { documentClient } from '#lib/store/dynamo/client';
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

export async function listWalksSection(bench: Bench, stack: Stack) {
  await section(bench, 'List walks over the largest items', () => walks(bench, stack));
  const title = 'Notifications of a recipient on one dashboard, a page of 1, with few and with many others';
  await section(bench, title, () => recipientOnDashboard(bench, stack));
}
