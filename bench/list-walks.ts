import type { Notification } from '#lib/domain/notification';
import { encodeNotification } from '#lib/store/codecs/notifications';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { largestLists } from '#test/support/largest-lists';
import { LIST_PAGE_MAX_BYTES, LIST_PAGE_REQUESTS } from './budgets.ts';
import { watch } from './dynamodb.ts';
import { ADMIN, embedRecipient, notificationOf, putItems } from './fixture.ts';
import { type Bench, part, section, working } from './report.ts';
import { expectStatus, type Stack } from './stack.ts';

/**
 * Every list walked to its end over the largest items the limits allow, through HTTP: items reached
 * against items stored, the largest page's bytes, the most DynamoDB requests of a page. And the
 * notifications of a recipient on one dashboard, with few and with very many other notifications of
 * that recipient: a page's requests and read units must not differ. All figures are deterministic.
 */

/** A deployment of its own, far from the fixture's and the other sections' items. */
const DEPLOYMENT = 40;
const DASHBOARD = 400;
const OTHER_DASHBOARD = 401;
/** The console user (of the demo fixture) the recipient filters name. */
const RECIPIENT_USER = 1;
const notificationsPath = `/v1/deployments/${DEPLOYMENT}/notifications`;
const notificationOn = (id: number, dashboardId: number, lists: Partial<Notification> = {}) =>
  encodeNotification(notificationOf(id, { deploymentId: DEPLOYMENT, dashboardId, ...lists }));
const rowOf = (id: number, dashboardId: number, recipient: Parameters<typeof encodeRecipient>[1]) =>
  encodeRecipient({ deploymentId: DEPLOYMENT, id, dashboardId }, recipient);

async function walk(stack: Stack, list: string, stored: number, path: string) {
  const figures = { list, stored, reached: 0, pages: 0, largestPageBytes: 0, mostRequests: 0 };
  const seen = new Set<string>();
  for (let after: string | undefined, more = true; more; figures.pages++) {
    const url = `${path}${after === undefined ? '' : `&after=${encodeURIComponent(after)}`}`;
    const { result: reply, work } = await watch(() => stack.request('GET', url, { authorization: ADMIN }));
    expectStatus(reply, 200, `${list}, page ${figures.pages + 1}`);
    figures.largestPageBytes = Math.max(figures.largestPageBytes, Buffer.byteLength(reply.text));
    figures.mostRequests = Math.max(figures.mostRequests, work.requests);
    for (const item of reply.body.items) seen.add(JSON.stringify(item));
    [more, after] = [reply.body.pageInfo.hasNextPage, reply.body.pageInfo.endCursor];
  }
  return { ...figures, reached: seen.size };
}

async function walks(stack: Stack, smoke: boolean) {
  const [small, large, largest] = smoke ? [300, 40, 5] : [1000, 100, 12];
  const blob = (bytes: number) => ({ securityContext: { blob: 'x'.repeat(bytes - 24) } });
  await putItems(
    [
      notificationOn(1, DASHBOARD),
      notificationOn(2, DASHBOARD),
      ...Array.from({ length: small }, (_, i) =>
        rowOf(1, DASHBOARD, embedRecipient('walk', i, blob(4800), 2_000_000)),
      ),
      ...Array.from({ length: large }, (_, i) =>
        rowOf(2, DASHBOARD, embedRecipient('walk', i, blob(32_000), 2_000_000)),
      ),
    ],
    8,
  );
  const figures = [
    await walk(
      stack,
      'recipients, 4.8 KB properties, first=200',
      small,
      `${notificationsPath}/1/recipients?first=200`,
    ),
    await walk(
      stack,
      'recipients, 32 KB properties, first=100',
      large,
      `${notificationsPath}/2/recipients?first=100`,
    ),
  ];
  const ids = Array.from({ length: largest }, (_, i) => 100 + i);
  const lists = largestLists();
  await putItems(
    ids.map((id) => notificationOn(id, DASHBOARD, lists)),
    8,
  );
  await putItems(
    ids.map((id) => rowOf(id, DASHBOARD, { type: 'USER', userId: RECIPIENT_USER })),
    8,
  );
  // With the two notifications of the recipient lists above, on the same dashboard.
  const recipient = `recipientUserId=${RECIPIENT_USER}`;
  for (const [list, stored, query] of [
    ['notifications, largest filters: the deployment', largest + 2, 'first=200'],
    ['… a dashboard', largest + 2, `dashboardId=${DASHBOARD}&first=200`],
    ['… a recipient', largest, `${recipient}&first=200`],
    ['… a recipient on a dashboard', largest, `${recipient}&dashboardId=${DASHBOARD}&first=200`],
  ] as const)
    figures.push(await walk(stack, list, stored, `${notificationsPath}?${query}`));
  return figures;
}

/**
 * A console user subscribed to `stored` notifications on one dashboard and to one older notification
 * on another: a reader that skipped the rows of other dashboards would read every one of them first.
 */
async function recipientOnDashboard(stack: Stack, stored: number, firstId: number, userId: number) {
  const user = { type: 'USER', userId } as const;
  await putItems([notificationOn(firstId, OTHER_DASHBOARD), rowOf(firstId, OTHER_DASHBOARD, user)], 8);
  for (let from = 1; from <= stored; from += 10_000) {
    const ids = Array.from({ length: Math.min(10_000, stored - from + 1) }, (_, i) => firstId + from + i);
    await putItems(
      ids.flatMap((id) => [notificationOn(id, DASHBOARD), rowOf(id, DASHBOARD, user)]),
      8,
    );
    working(`recipient on a dashboard: ${Math.min(from + 9_999, stored)} of ${stored} notifications written`);
  }
  const path = `${notificationsPath}?recipientUserId=${userId}&dashboardId=${OTHER_DASHBOARD}&first=1`;
  expectStatus(await stack.request('GET', path, { authorization: ADMIN }), 200, 'recipient on a dashboard');
  const { result: reply, work } = await watch(() => stack.request('GET', path, { authorization: ADMIN }));
  expectStatus(reply, 200, 'recipient on a dashboard');
  if (reply.body.items.length !== 1 || reply.body.items[0]?.id !== firstId)
    throw new Error(`recipient on a dashboard at ${stored}: ${reply.text.slice(0, 200)}`);
  return { stored, requests: work.requests, readUnits: work.readUnits };
}

export async function listWalksSection(bench: Bench, stack: Stack) {
  const { budgets } = bench;
  section(bench, 'List walks over the largest items', { grid: true });
  for (const w of (await part(bench, 'list walks', () => walks(stack, bench.smoke))) ?? []) {
    const walk = `list walk, ${w.list}`;
    budgets.show(`${walk}: stored`, w.stored);
    budgets.show(`${walk}: reached`, w.reached);
    budgets.show(`${walk}: pages`, w.pages);
    budgets.gate(`${walk}: items not reached`, w.stored - w.reached, 0, 'items');
    budgets.gate(`${walk}: largest page`, w.largestPageBytes, LIST_PAGE_MAX_BYTES, 'bytes');
    budgets.gate(`${walk}: requests per page`, w.mostRequests, LIST_PAGE_REQUESTS, 'requests');
  }
  section(bench, 'Notifications of a recipient on one dashboard, a page of 1, with few and with many others');
  const sized = await part(bench, 'recipient on a dashboard', async () => [
    await recipientOnDashboard(stack, 100, 1_000_000, 2),
    await recipientOnDashboard(stack, bench.smoke ? 2_000 : 100_000, 2_000_000, 3),
  ]);
  const [few, many] = sized ?? [];
  if (!few || !many) return;
  for (const s of [few, many]) {
    budgets.show(`recipient of ${s.stored + 1} notifications: DynamoDB requests`, s.requests);
    budgets.show(`recipient of ${s.stored + 1} notifications: read units`, s.readUnits);
  }
  const against = `per page at ${many.stored} against ${few.stored}`;
  budgets.gate(`recipient on a dashboard: requests ${against}`, many.requests - few.requests, 0, 'requests');
  budgets.gate(`recipient on a dashboard: read units ${against}`, many.readUnits - few.readUnits, 0, 'RCU');
}
