import type { Notification } from '#lib/domain/notification';
import type { StoredRecipient } from '#lib/domain/recipients-resolution';
import { batchWriteAll } from '#lib/store/batch';
import { encodeNotification } from '#lib/store/codecs/notifications';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import type { Item } from '#lib/store/items';
import { largestLists } from '#test/support/largest-lists';
import {
  type Budget,
  LIST_PAGE_MAX_BYTES,
  LIST_PAGE_REQUESTS,
  met,
  RECIPIENT_ON_DASHBOARD_GROWTH,
} from './budgets.ts';
import { ADMIN_KEY } from './fixture.ts';
import type { LocalStack } from './local-stack.ts';
import { type Bench, log, part, section } from './output.ts';
import { expectStatus, metered } from './per-request.ts';
import { kb, type Table, table } from './table.ts';

/**
 * Every list walked to its end over the largest items the limits allow, through HTTP: items reached
 * against items stored, the largest page's bytes, the most DynamoDB requests of a page. And the
 * notifications of a recipient on one dashboard, with few and with very many other notifications of
 * that recipient: a page's requests and read units must not differ. All figures are deterministic.
 */

export interface WalkFigures {
  list: string;
  stored: number;
  reached: number;
  pages: number;
  largestPageBytes: number;
  mostRequests: number;
}

export interface RecipientOnDashboardFigures {
  stored: number;
  requests: number;
  readUnits: number;
}

export interface ListWalkResults {
  walks: WalkFigures[];
  recipientOnDashboard: RecipientOnDashboardFigures[];
}

/** A deployment of its own, far from the fixture's and the other sections' items. */
const DEPLOYMENT = 40;
const DASHBOARD = 400;
const OTHER_DASHBOARD = 401;
/** The console user (of the demo fixture) the recipient filters name. */
const RECIPIENT_USER = 1;
const FILL_CONCURRENCY = 8;
const authorization = `Bearer ${ADMIN_KEY}`;

const notification = (id: number, dashboardId: number, lists: Partial<Notification> = {}): Notification => ({
  id,
  deploymentId: DEPLOYMENT,
  dashboardId,
  scheduleType: 'DAILY',
  hour: 9,
  timezone: 'UTC',
  isEnabled: false,
  notificationEnabled: true,
  notificationFormat: 'png',
  filters: null,
  timeGrains: null,
  memberSwitchers: null,
  notificationAiSummary: false,
  ...lists,
});

const put = (items: Item[]) =>
  batchWriteAll(
    items.map((item) => ({ PutRequest: { Item: item } })),
    { concurrency: FILL_CONCURRENCY },
  );

const embedRow = (i: number, propertyBytes: number): StoredRecipient => {
  const externalId = `walk-${i}@acme.example`;
  return {
    type: 'EMBED_USER',
    embedTenantName: 'acme',
    normalizedExternalId: externalId,
    externalId,
    embedUserId: 2_000_000 + i,
    email: externalId,
    properties: { securityContext: { blob: 'x'.repeat(propertyBytes - 24) } },
  };
};

async function walk(stack: LocalStack, list: string, stored: number, path: string): Promise<WalkFigures> {
  const figures: WalkFigures = { list, stored, reached: 0, pages: 0, largestPageBytes: 0, mostRequests: 0 };
  const seen = new Set<string>();
  let after: string | undefined;
  do {
    const url = `${path}${after === undefined ? '' : `&after=${encodeURIComponent(after)}`}`;
    const { result: reply, work } = await metered(() => stack.request('GET', url, { authorization }));
    expectStatus(reply, 200, `${list}, page ${figures.pages + 1}`);
    const body = JSON.parse(reply.text) as {
      items: unknown[];
      pageInfo: { hasNextPage: boolean; endCursor: string };
    };
    figures.pages++;
    figures.largestPageBytes = Math.max(figures.largestPageBytes, Buffer.byteLength(reply.text));
    figures.mostRequests = Math.max(figures.mostRequests, work.requests);
    for (const item of body.items) seen.add(JSON.stringify(item));
    after = body.pageInfo.hasNextPage ? body.pageInfo.endCursor : undefined;
  } while (after !== undefined);
  figures.reached = seen.size;
  return figures;
}

const notificationsPath = `/v1/deployments/${DEPLOYMENT}/notifications`;
const recipientsPath = (id: number) => `${notificationsPath}/${id}/recipients`;

async function walks(stack: LocalStack, smoke: boolean): Promise<WalkFigures[]> {
  const [small, large, largest] = smoke ? [300, 40, 5] : [1000, 100, 12];
  const figures: WalkFigures[] = [];
  const parent = (id: number) => ({ deploymentId: DEPLOYMENT, id, dashboardId: DASHBOARD });
  await put([
    encodeNotification(notification(1, DASHBOARD)),
    encodeNotification(notification(2, DASHBOARD)),
    ...Array.from({ length: small }, (_, i) => encodeRecipient(parent(1), embedRow(i, 4800))),
    ...Array.from({ length: large }, (_, i) => encodeRecipient(parent(2), embedRow(i, 32_000))),
  ]);
  figures.push(
    await walk(stack, 'recipients, 4.8 KB properties, first=200', small, `${recipientsPath(1)}?first=200`),
    await walk(stack, 'recipients, 32 KB properties, first=100', large, `${recipientsPath(2)}?first=100`),
  );
  const lists = largestLists();
  const ids = Array.from({ length: largest }, (_, i) => 100 + i);
  await put(ids.map((id) => encodeNotification(notification(id, DASHBOARD, lists))));
  await put(ids.map((id) => encodeRecipient(parent(id), { type: 'USER', userId: RECIPIENT_USER })));
  // With the two notifications of the recipient lists above, on the same dashboard.
  const onDashboard = largest + 2;
  for (const [list, stored, query] of [
    ['notifications, largest filters: the deployment', onDashboard, 'first=200'],
    ['… a dashboard', onDashboard, `dashboardId=${DASHBOARD}&first=200`],
    ['… a recipient', largest, `recipientUserId=${RECIPIENT_USER}&first=200`],
    [
      '… a recipient on a dashboard',
      largest,
      `recipientUserId=${RECIPIENT_USER}&dashboardId=${DASHBOARD}&first=200`,
    ],
  ] as const) {
    figures.push(await walk(stack, list, stored, `${notificationsPath}?${query}`));
  }
  return figures;
}

/**
 * The recipient's one notification on OTHER_DASHBOARD is its oldest: a reader that skipped the rows
 * of other dashboards would read every one of them first.
 */
async function recipientOnDashboard(
  stack: LocalStack,
  stored: number,
  firstId: number,
  userId: number,
): Promise<RecipientOnDashboardFigures> {
  const rowOf = (id: number, dashboardId: number) =>
    encodeRecipient({ deploymentId: DEPLOYMENT, id, dashboardId }, { type: 'USER', userId });
  await put([encodeNotification(notification(firstId, OTHER_DASHBOARD)), rowOf(firstId, OTHER_DASHBOARD)]);
  const CHUNK = 10_000;
  for (let from = 1; from <= stored; from += CHUNK) {
    const ids = Array.from({ length: Math.min(CHUNK, stored - from + 1) }, (_, i) => firstId + from + i);
    await put(ids.flatMap((id) => [encodeNotification(notification(id, DASHBOARD)), rowOf(id, DASHBOARD)]));
    if (stored > CHUNK) log(`  … ${Math.min(from + CHUNK - 1, stored)} of ${stored} notifications written`);
  }
  const path = `${notificationsPath}?recipientUserId=${userId}&dashboardId=${OTHER_DASHBOARD}&first=1`;
  expectStatus(await stack.request('GET', path, { authorization }), 200, 'recipient on a dashboard');
  const { result: reply, work } = await metered(() => stack.request('GET', path, { authorization }));
  expectStatus(reply, 200, 'recipient on a dashboard');
  const { items } = JSON.parse(reply.text) as { items: { id: number }[] };
  if (items.length !== 1 || items[0]?.id !== firstId)
    throw new Error(`recipient on a dashboard at ${stored}: ${reply.text.slice(0, 200)}`);
  return { stored, requests: work.requests, readUnits: work.readUnits };
}

export async function listWalksSection(
  bench: Bench,
  stack: LocalStack,
): Promise<ListWalkResults | undefined> {
  const { budgets } = bench;
  section('List walks over the largest items, and the recipient and dashboard filters together at size');
  const walked = await part(bench, 'list walks', () => walks(stack, bench.smoke));
  if (!walked) return undefined;
  for (const w of walked) {
    budgets.atMost(`list walk, ${w.list}: items not reached`, w.stored - w.reached, 0, 'items', true);
    budgets.atMost(
      `list walk, ${w.list}: largest page`,
      w.largestPageBytes,
      LIST_PAGE_MAX_BYTES,
      'bytes',
      true,
    );
    budgets.atMost(
      `list walk, ${w.list}: requests per page`,
      w.mostRequests,
      LIST_PAGE_REQUESTS,
      'requests',
      true,
    );
  }
  log(table(walksTable(walked, budgets.all)));
  const large = bench.smoke ? 2_000 : 100_000;
  const sized = await part(bench, 'recipient on a dashboard', async () => [
    await recipientOnDashboard(stack, 100, 1_000_000, 2),
    await recipientOnDashboard(stack, large, 2_000_000, 3),
  ]);
  if (!sized) return { walks: walked, recipientOnDashboard: [] };
  const [few, many] = sized as [RecipientOnDashboardFigures, RecipientOnDashboardFigures];
  budgets.atMost(
    `recipient on a dashboard: requests per page at ${many.stored} against ${few.stored}`,
    many.requests - few.requests,
    RECIPIENT_ON_DASHBOARD_GROWTH,
    'requests',
    true,
  );
  budgets.atMost(
    `recipient on a dashboard: read units per page at ${many.stored} against ${few.stored}`,
    many.readUnits - few.readUnits,
    RECIPIENT_ON_DASHBOARD_GROWTH,
    'RCU',
    true,
  );
  log(table(recipientOnDashboardTable(sized)));
  return { walks: walked, recipientOnDashboard: sized };
}

export const walksTable = (walks: WalkFigures[], budgets: Budget[]): Table => ({
  headers: ['list', 'stored', 'reached', 'pages', 'largest page', 'most requests per page', 'met'],
  rows: walks.map((w) => [
    w.list,
    w.stored,
    w.reached,
    w.pages,
    kb(w.largestPageBytes),
    w.mostRequests,
    ['items not reached', 'largest page', 'requests per page']
      .map((figure) => met(budgets, `list walk, ${w.list}: ${figure}`))
      .every((verdict) => verdict === 'yes')
      ? 'yes'
      : 'NO',
  ]),
});

export const recipientOnDashboardTable = (sized: RecipientOnDashboardFigures[]): Table => ({
  headers: ['notifications of the recipient', 'DynamoDB requests (page of 1)', 'read units'],
  rows: sized.map((s) => [s.stored + 1, s.requests, s.readUnits]),
});
