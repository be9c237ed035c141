import type { Notification } from '#lib/domain/notification';
import { PAGE_BODY_MAX_BYTES } from '#lib/domain/paging';
import { meterDynamoDb } from '#lib/local/dynamodb-meter';
import { documentClient } from '#lib/store/client';
import { encodeNotification } from '#lib/store/codecs/notifications';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { largestLists } from '#test/support/largest-lists';
import { walkList } from '#test/support/list-walk';
import { embedRecipient, putItems } from '#test/support/stored-items';
import { watch } from './dynamodb.ts';
import { notificationOf } from './fixture.ts';
import { type Bench, part, section, working } from './report.ts';
import type { Stack } from './stack.ts';

/**
 * Every list walked to its end over the largest items the limits allow, through HTTP: items reached
 * against items stored, the largest page's bytes, the most DynamoDB requests of a page. And the
 * notifications of a recipient on one dashboard, with few and with very many other notifications of
 * that recipient: a page's requests and read units must not differ. All figures are deterministic.
 */

/** A deployment of its own, far from the fixture's and the other sections' items. */
const DEPLOYMENT = 40;
const [DASHBOARD, OTHER_DASHBOARD] = [400, 401];
const base = `/v1/deployments/${DEPLOYMENT}/notifications`;
const notificationOn = (id: number, dashboardId: number, lists: Partial<Notification> = {}) =>
  encodeNotification(notificationOf(id, { deploymentId: DEPLOYMENT, dashboardId, ...lists }));
const rowOf = (id: number, dashboardId: number, recipient: Parameters<typeof encodeRecipient>[1]) =>
  encodeRecipient({ deploymentId: DEPLOYMENT, id, dashboardId }, recipient);
/** The console user (of the demo fixture) the recipient filters name. */
const user = (userId: number) => ({ type: 'USER', userId }) as const;

async function walks(stack: Stack, smoke: boolean) {
  const [small, large, largest] = smoke ? [300, 40, 5] : [1000, 100, 12];
  const blob = (bytes: number) => ({ securityContext: { blob: 'x'.repeat(bytes - 24) } });
  const rows = (id: number, count: number, bytes: number) =>
    Array.from({ length: count }, (_, i) =>
      rowOf(id, DASHBOARD, embedRecipient('walk', i, blob(bytes), 2_000_000)),
    );
  const ids = Array.from({ length: largest }, (_, i) => 100 + i);
  await putItems([
    ...[1, 2].map((id) => notificationOn(id, DASHBOARD)),
    ...rows(1, small, 4800),
    ...rows(2, large, 32_000),
    ...ids.flatMap((id) => [notificationOn(id, DASHBOARD, largestLists()), rowOf(id, DASHBOARD, user(1))]),
  ]);
  const meter = meterDynamoDb(documentClient());
  const walk = async (list: string, stored: number, path: string) => {
    const page = (after?: string) =>
      stack.call('GET', `${path}${after ? `&after=${encodeURIComponent(after)}` : ''}`, 200);
    const walked = await walkList(page, { meter });
    return {
      list,
      stored,
      ...walked,
      reached: new Set(walked.items.map((item) => JSON.stringify(item))).size,
    };
  };
  try {
    // The notifications of the recipient lists above are on the same dashboard: two more for the first two.
    return [
      await walk('recipients, 4.8 KB properties, first=200', small, `${base}/1/recipients?first=200`),
      await walk('recipients, 32 KB properties, first=100', large, `${base}/2/recipients?first=100`),
      await walk('notifications, largest filters: the deployment', largest + 2, `${base}?first=200`),
      await walk('… a dashboard', largest + 2, `${base}?dashboardId=${DASHBOARD}&first=200`),
      await walk('… a recipient', largest, `${base}?recipientUserId=1&first=200`),
      await walk(
        '… a recipient on a dashboard',
        largest,
        `${base}?recipientUserId=1&dashboardId=${DASHBOARD}&first=200`,
      ),
    ];
  } finally {
    meter.detach();
  }
}

/**
 * A console user subscribed to `stored` notifications on one dashboard and to one older notification
 * on another: a reader that skipped the rows of other dashboards would read every one of them first.
 */
async function recipientOnDashboard(stack: Stack, stored: number, firstId: number, userId: number) {
  await putItems([notificationOn(firstId, OTHER_DASHBOARD), rowOf(firstId, OTHER_DASHBOARD, user(userId))]);
  for (let from = 1; from <= stored; from += 10_000) {
    const ids = Array.from({ length: Math.min(10_000, stored - from + 1) }, (_, i) => firstId + from + i);
    await putItems(ids.flatMap((id) => [notificationOn(id, DASHBOARD), rowOf(id, DASHBOARD, user(userId))]));
    working(`recipient on a dashboard: ${Math.min(from + 9_999, stored)} of ${stored} notifications written`);
  }
  const path = `${base}?recipientUserId=${userId}&dashboardId=${OTHER_DASHBOARD}&first=1`;
  await stack.call('GET', path, 200);
  const { result, work } = await watch(() => stack.call('GET', path, 200));
  if (result.body.items.length !== 1 || result.body.items[0]?.id !== firstId)
    throw new Error(`recipient on a dashboard at ${stored}: ${result.text.slice(0, 200)}`);
  return { stored, requests: work.requests, readUnits: work.readUnits };
}

export async function listWalksSection(bench: Bench, stack: Stack) {
  section(bench, 'List walks over the largest items');
  for (const w of (await part(bench, 'list walks', () => walks(stack, bench.smoke))) ?? []) {
    const { show, gate } = bench.figures.about(`list walk, ${w.list}`);
    show('stored', w.stored);
    show('reached', w.reached);
    show('pages', w.pages);
    gate('items not reached', w.stored - w.reached, 0, 'items');
    gate('largest page', w.largestPageBytes, PAGE_BODY_MAX_BYTES, 'bytes');
    // The pager's four (Queries and joins), the notification's 404 lookup, one lookup of a filter.
    gate('requests per page', w.mostRequests, 6, 'requests');
  }
  section(bench, 'Notifications of a recipient on one dashboard, a page of 1, with few and with many others');
  const many = bench.smoke ? 2_000 : 100_000;
  const sized = await part(bench, 'recipient on a dashboard', async () => [
    await recipientOnDashboard(stack, 100, 1_000_000, 2),
    await recipientOnDashboard(stack, many, 2_000_000, 3),
  ]);
  const [few, lots] = sized ?? [];
  if (!few || !lots) return;
  for (const { stored, requests, readUnits } of [few, lots]) {
    bench.figures.show(`recipient of ${stored + 1} notifications: DynamoDB requests`, requests);
    bench.figures.show(`recipient of ${stored + 1} notifications: read units`, readUnits);
  }
  const { gate } = bench.figures.about('recipient on a dashboard');
  const against = `per page at ${lots.stored} against ${few.stored}`;
  gate(`requests ${against}`, lots.requests - few.requests, 0, 'requests');
  gate(`read units ${against}`, lots.readUnits - few.readUnits, 0, 'RCU');
}
