import { unsubscribeToken } from '#lib/domain/unsubscribe';
import type { Operation } from '#lib/routes';
import { BENCH_UNSUBSCRIBE_KEY } from './fixture.ts';

/**
 * One warm request per operation, as a typical caller sends it, with its DynamoDB budget: requests of
 * a warm request and with the caller's lookup on an empty cache, read and write units of a warm one
 * (DynamoDB Local's). Every operation of lib/routes.ts must have one (the type says so); the bench
 * skips, with a note, those whose function file does not exist yet.
 */

export interface Scenario {
  /** What the request does, for the table. */
  description: string;
  params?: Record<string, string>;
  /** A query string, without the `?`. */
  query?: string;
  /** Who calls: an admin's API key (unless said), a token of an embed tenant or of the platform, or nobody. */
  caller?: 'admin' | 'embed' | 'platform' | 'public';
  body?: (i: number) => unknown;
  /** The status expected (unless said, 200). */
  status?: number;
  budget: { requests: number; coldRequests: number; readUnits: number; writeUnits: number };
}

const notification700 = { deploymentId: '7', id: '700' };
/** A run that does not exist: the longest path of the run routes. */
const noRun = { ...notification700, runId: '20261123T080000000Z-s' };
/** A small replayed request: the steady state of a client that re-sends its recipient list. */
const OVERHEAD_RECIPIENTS = 10;
const unsubscribeQuery = `token=${unsubscribeToken({ deploymentId: 7, id: 700, recipient: { type: 'USER', userId: 999 } }, BENCH_UNSUBSCRIBE_KEY)}`;

export const scenarios: Record<Operation, Scenario> = {
  'update-notification': {
    description: 'set the hour of a DAILY notification',
    params: notification700,
    body: (i) => ({ hour: 6 + (i % 12) }),
    // One conditional write (< 1 KB) without a read, then the schedule entry with the new hour's reading
    // and instants. The item is in gsi1 and gsi2 with all its attributes: each write of it rewrites both
    // entries too, and marks it in the due index; the entry moves there.
    budget: { requests: 2, coldRequests: 4, readUnits: 0, writeUnits: 8 },
  },
  'add-recipients': {
    description: `re-send ${OVERHEAD_RECIPIENTS} embed recipients (all unchanged)`,
    params: { deploymentId: '7', id: '701' },
    body: () => ({
      recipients: Array.from({ length: OVERHEAD_RECIPIENTS }, (_, k) => ({
        embedTenantName: 'acme',
        externalId: `overhead-${k + 1}@example.com`,
      })),
    }),
    // One BatchGet: the notification, its 10 rows, the tenant.
    budget: { requests: 1, coldRequests: 3, readUnits: OVERHEAD_RECIPIENTS + 3, writeUnits: 0 },
  },
  'set-dashboard-embedding': {
    description: 'switch allowEmbed on a dashboard',
    params: { publicId: 'sales-overview' },
    body: (i) => ({ allowEmbed: i % 2 === 0 }),
    // One conditional UpdateItem returning the new item.
    budget: { requests: 1, coldRequests: 3, readUnits: 0, writeUnits: 1 },
  },
  'get-embedded-dashboard': {
    description: 'embed token of tenant acme reads a shared dashboard',
    params: { publicId: 'ops-kpis' },
    caller: 'embed',
    // The dashboard read (2 allowed); the tenant's keys add one read on an empty cache.
    budget: { requests: 2, coldRequests: 3, readUnits: 2, writeUnits: 0 },
  },
  'list-notifications': {
    description: "first page (first=10) of deployment 7's notifications",
    params: { deploymentId: '7' },
    query: 'first=10',
    // One Query on gsi1 for eleven items (the page and the look-ahead), and one BatchGetItem of the
    // page's ten schedule entries (their upcoming instants give nextRunAt), eventually consistent.
    budget: { requests: 2, coldRequests: 4, readUnits: 6, writeUnits: 0 },
  },
  'create-notification': {
    description: 'create a DAILY notification on a dashboard given by id',
    params: { deploymentId: '7' },
    body: (i) => ({ dashboardId: 70, scheduleType: 'DAILY', hour: i % 24 }),
    status: 201,
    // The dashboard link, the id counter's ADD, the transaction of the item (with its two list-index
    // entries) and its schedule entry (with its due entry), as DynamoDB Local counts a transaction.
    budget: { requests: 3, coldRequests: 5, readUnits: 1, writeUnits: 11 },
  },
  'get-notification': {
    description: 'read one notification',
    params: notification700,
    // One Query of the item and its schedule entry, strongly consistent.
    budget: { requests: 1, coldRequests: 3, readUnits: 1, writeUnits: 0 },
  },
  'delete-notification': {
    description: 'delete a notification that does not exist (the 404 path; a delete can run only once)',
    params: { deploymentId: '7', id: '999999' },
    status: 404,
    // One transaction (the notification's and its schedule entry's deletes, its tombstone's put),
    // cancelled by its condition.
    budget: { requests: 1, coldRequests: 3, readUnits: 0, writeUnits: 1 },
  },
  'list-recipients': {
    description: 'first page (first=10) of the recipients of a notification',
    params: { deploymentId: '7', id: '701' },
    query: 'first=10',
    // The notification (the 404), one Query on gsi1, one BatchGetItem for console users' names.
    budget: { requests: 3, coldRequests: 5, readUnits: 3, writeUnits: 0 },
  },
  'remove-recipients': {
    description: 'unsubscribe a console user who is not subscribed (idempotent)',
    params: notification700,
    body: () => ({ recipients: [{ type: 'USER', id: 999 }] }),
    status: 204,
    // The notification (the 404), one BatchWriteItem of one delete (DynamoDB Local bills it with the
    // index's), the notification again (the race guard with a delete).
    budget: { requests: 3, coldRequests: 5, readUnits: 2, writeUnits: 2 },
  },
  'get-api-spec': {
    description: 'the OpenAPI document, unauthenticated',
    caller: 'public',
    // Built into the bundle: no table access.
    budget: { requests: 0, coldRequests: 0, readUnits: 0, writeUnits: 0 },
  },
  'send-notification': {
    description: 'send a notification now (demo recipients, jobs to the outbox)',
    params: notification700,
    status: 202,
    // The notification, its dashboard link and the dashboard; the last send-now, then the run and the
    // new send-now marker (one transaction); the recipients (one Query); their console users (one
    // BatchGet); the deliveries (one BatchWrite); the notification again before the jobs leave (the
    // race guard with a delete); the run finished. Writes in a transaction cost double, and its
    // condition checks are billed as writes: the limit adds 4 write units to a send-now; the run's entry
    // among the runs awaiting outcomes, one more.
    budget: { requests: 10, coldRequests: 12, readUnits: 8, writeUnits: 12 },
  },
  'list-runs': {
    description: 'first page (first=10) of the runs of a notification',
    params: notification700,
    query: 'first=10',
    // One Query for the page and one run more (which says whether a next page exists): eleven runs of
    // under 400 bytes, one 4 KB read unit at most, eventually consistent. The page is named: by then,
    // send-notification has left hundreds of runs on the notification, and a default page (100) would
    // read 101 of them. Then the notification (1 unit, strongly consistent): a deleted one's runs stay
    // until the purge, and are 404 from the delete's answer on.
    budget: { requests: 2, coldRequests: 4, readUnits: 2, writeUnits: 0 },
  },
  'list-deliveries': {
    description: 'deliveries of a run that does not exist (the longest path: page, notification, run)',
    params: noRun,
    status: 404,
    // The empty page, then the notification and the run, to tell which is missing.
    budget: { requests: 3, coldRequests: 5, readUnits: 2, writeUnits: 0 },
  },
  'retry-run': {
    description: 'retry a run that does not exist (the run is read first)',
    params: noRun,
    status: 404,
    // The run, by key.
    budget: { requests: 1, coldRequests: 3, readUnits: 1, writeUnits: 0 },
  },
  'report-delivery-outcome': {
    description: 'the renderer reports a job the service never issued (the transaction, then the read)',
    params: { jobId: `7.700.20261123T080000000Z-s.${'0'.repeat(32)}` },
    caller: 'platform',
    body: () => ({ status: 'delivered', attempt: 1 }),
    status: 404,
    // The transaction refused on its delivery's condition, then the delivery read to tell why.
    budget: { requests: 2, coldRequests: 2, readUnits: 1, writeUnits: 0 },
  },
  'preview-schedule': {
    description: 'the next 5 instants of a weekly schedule in Berlin',
    body: () => ({ scheduleType: 'WEEKLY', dayOfWeek: 1, hour: 9, timezone: 'Europe/Berlin' }),
    // Nothing stored, nothing read beyond the caller.
    budget: { requests: 0, coldRequests: 2, readUnits: 0, writeUnits: 0 },
  },
  unsubscribe: {
    description: 'one-click unsubscribe of a recipient who is not (or no longer) subscribed',
    query: unsubscribeQuery,
    caller: 'public',
    // One DeleteItem by key.
    budget: { requests: 1, coldRequests: 1, readUnits: 0, writeUnits: 1 },
  },
  'get-unsubscribe-page': {
    description: 'the confirmation page of an unsubscribe link',
    query: unsubscribeQuery,
    caller: 'public',
    // The token is checked with the key alone.
    budget: { requests: 0, coldRequests: 0, readUnits: 0, writeUnits: 0 },
  },
};
