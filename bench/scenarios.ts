import { unsubscribeToken } from '#lib/domain/unsubscribe';
import type { Operation } from '#lib/routes';
import {
  ADMIN_KEY,
  BENCH_UNSUBSCRIBE_KEY,
  type BenchKeys,
  COLD_ADMIN_KEYS,
  COLD_TENANTS,
  embedToken,
  platformToken,
} from './fixture.ts';
import type { RecordedCall } from './recorder.ts';

/**
 * One warm request per operation, as a typical caller sends it, with its DynamoDB budgets. Every
 * operation of lib/routes.ts must have one (the type says so); the bench skips, with a note, those
 * whose function file does not exist yet.
 */

export interface Scenario {
  operation: Operation;
  /** What the request does, for the table. */
  description: string;
  params: Record<string, string>;
  /** A query string, without the `?`. */
  query?: string;
  /** The caller of the warm requests (its lookup is cached after the first). */
  authorization: (keys: BenchKeys) => string;
  /** A caller never seen before by this process: its lookup meets an empty cache. */
  coldAuthorization: (keys: BenchKeys) => string;
  body?: (i: number) => unknown;
  expectedStatus: number;
  /** Rewrites a recorded call before the bare client sends it again (see recorder.replay). */
  adjustReplay?: (call: RecordedCall, results: unknown[]) => Record<string, unknown>;
  budget: {
    /** DynamoDB requests of a warm request. */
    warmRequests: number;
    /** DynamoDB requests with the caller's lookup on an empty cache. */
    coldRequests: number;
    readUnits: number;
    writeUnits: number;
  };
}

function pool(values: readonly string[], what: string): () => string {
  let next = 0;
  return () => {
    const value = values[next++];
    if (value === undefined) throw new Error(`The bench fixture has too few ${what}`);
    return value;
  };
}
const coldAdminKey = pool(COLD_ADMIN_KEYS, 'cold API keys');
const coldTenant = pool(COLD_TENANTS, 'cold embed tenants');

const admin = () => `Bearer ${ADMIN_KEY}`;
const coldAdmin = () => `Bearer ${coldAdminKey()}`;

/** A small replayed request: the steady state of a client that re-sends its recipient list. */
const OVERHEAD_RECIPIENTS = 10;

/** Each create's replayed puts get a key of their own: the recorded one is taken by the request's own put. */
let replayedCreates = 0;
function putUnderFreshKey(call: RecordedCall): Record<string, unknown> {
  const fresh = (item: Record<string, { S?: string }>, replay: number) => ({
    ...item,
    pk: { S: `${item.pk?.S}#replay-${replay}` },
  });
  if (call.operation === 'PutItem') {
    return {
      ...call.input,
      Item: fresh(call.input.Item as Record<string, { S?: string }>, ++replayedCreates),
    };
  }
  if (call.operation !== 'TransactWriteItems') return call.input;
  const replay = ++replayedCreates;
  const actions = call.input.TransactItems as { Put?: { Item: Record<string, { S?: string }> } }[];
  return {
    ...call.input,
    TransactItems: actions.map((action) =>
      action.Put ? { ...action, Put: { ...action.Put, Item: fresh(action.Put.Item, replay) } } : action,
    ),
  };
}

/**
 * The delete's transaction, replayed as one that goes through: the recorded one was cancelled by its
 * condition (the notification does not exist), which the bare client would throw. Same two actions.
 */
function withoutCondition(call: RecordedCall): Record<string, unknown> {
  const input = call.input as { TransactItems?: Record<string, Record<string, unknown>>[] };
  if (!input.TransactItems) return call.input;
  return {
    ...call.input,
    TransactItems: input.TransactItems.map((action) =>
      Object.fromEntries(
        Object.entries(action).map(([kind, { ConditionExpression: _condition, ...rest }]) => [kind, rest]),
      ),
    ),
  };
}

/**
 * Send-now claims a new run with a conditional put and then writes under its lease: each bare replay
 * does the same on a run key of its own (the run's sort key plus a suffix per replay).
 */
const replays = new WeakMap<unknown[], string>();
function replaySuffix(results: unknown[]): string {
  let suffix = replays.get(results);
  if (!suffix) {
    suffix = `-replay-${Math.random().toString(36).slice(2)}`;
    replays.set(results, suffix);
  }
  return suffix;
}
function onFreshRun(call: RecordedCall, results: unknown[]): Record<string, unknown> {
  const suffix = replaySuffix(results);
  const input = call.input as { Item?: { sk?: { S: string } }; Key?: { sk?: { S: string } } };
  const target = input.Item ?? input.Key;
  const sk = target?.sk?.S;
  if (!target || !sk?.startsWith('RUN#')) return call.input;
  return { ...call.input, [input.Item ? 'Item' : 'Key']: { ...target, sk: { S: `${sk}${suffix}` } } };
}

/**
 * An outcome report for a job that does not exist: its transaction is refused by its conditions,
 * which a bare replay would meet too. The replay writes the same two updates to scratch items instead.
 */
function onScratchItems(call: RecordedCall): Record<string, unknown> {
  if (call.operation !== 'TransactWriteItems') return call.input;
  const items = (call.input.TransactItems ?? []) as { Update?: Record<string, unknown> }[];
  return {
    ...call.input,
    TransactItems: items.map((item, i) => ({
      Update: {
        TableName: item.Update?.TableName,
        Key: { pk: { S: 'BENCH#REPLAY' }, sk: { S: `OUTCOME#${i}` } },
        UpdateExpression: 'SET touched = :touched',
        ExpressionAttributeValues: { ':touched': { N: '1' } },
      },
    })),
  };
}

type TransactItem = Record<
  string,
  { Item?: Record<string, { S?: string }>; Key?: Record<string, { S?: string }> } & Record<string, unknown>
>;

/**
 * Send-now's transaction, replayed: its run under a key of its own (as above), and its send-now marker
 * under a key of its own per replay, written as the first send-now of a notification writes it.
 */
function onFreshSendNow(call: RecordedCall, results: unknown[]): Record<string, unknown> {
  if (call.operation !== 'TransactWriteItems') return onFreshRun(call, results);
  const actions = (call.input.TransactItems as TransactItem[]).map((action) => {
    const [kind, body] = Object.entries(action)[0] as [string, TransactItem[string]];
    const target = body.Item ?? body.Key;
    const sk = target?.sk?.S ?? '';
    if (sk.startsWith('RUN#')) {
      const fresh = onFreshRun({ ...call, input: { [body.Item ? 'Item' : 'Key']: target } }, results);
      return { [kind]: { ...body, ...fresh } };
    }
    if (sk === 'SEND_NOW' && body.Item) {
      const { ExpressionAttributeValues: _, ...rest } = body;
      return {
        [kind]: {
          ...rest,
          Item: { ...body.Item, sk: { S: `SEND_NOW${replaySuffix(results)}` } },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      };
    }
    return action;
  });
  return { ...call.input, TransactItems: actions };
}

export const scenarios: Record<Operation, Scenario> = {
  'update-notification': {
    operation: 'update-notification',
    description: 'set the hour of a DAILY notification',
    params: { deploymentId: '7', id: '700' },
    authorization: admin,
    coldAuthorization: coldAdmin,
    body: (i) => ({ hour: 6 + (i % 12) }),
    expectedStatus: 200,
    // One conditional write (< 1 KB) without a read, then the schedule entry with the new hour's reading
    // and instants; the key lookup adds 2 reads. The item is in gsi1 and gsi2 with all its attributes:
    // each write of it rewrites both entries too, and marks it in the due index; the entry moves there.
    budget: { warmRequests: 2, coldRequests: 4, readUnits: 0, writeUnits: 8 },
  },
  'add-recipients': {
    operation: 'add-recipients',
    description: `re-send ${OVERHEAD_RECIPIENTS} embed recipients (all unchanged)`,
    params: { deploymentId: '7', id: '701' },
    authorization: admin,
    coldAuthorization: coldAdmin,
    body: () => ({
      recipients: Array.from({ length: OVERHEAD_RECIPIENTS }, (_, k) => ({
        embedTenantName: 'acme',
        externalId: `overhead-${k + 1}@example.com`,
      })),
    }),
    expectedStatus: 200,
    // One BatchGet: the notification, its 10 rows, the tenant; the key lookup adds 2 reads.
    budget: { warmRequests: 1, coldRequests: 3, readUnits: OVERHEAD_RECIPIENTS + 3, writeUnits: 0 },
  },
  'set-dashboard-embedding': {
    operation: 'set-dashboard-embedding',
    description: 'switch allowEmbed on a dashboard',
    params: { publicId: 'sales-overview' },
    authorization: admin,
    coldAuthorization: coldAdmin,
    body: (i) => ({ allowEmbed: i % 2 === 0 }),
    expectedStatus: 200,
    // One conditional UpdateItem returning the new item.
    budget: { warmRequests: 1, coldRequests: 3, readUnits: 0, writeUnits: 1 },
  },
  'get-embedded-dashboard': {
    operation: 'get-embedded-dashboard',
    description: 'embed token of tenant acme reads a shared dashboard',
    params: { publicId: 'ops-kpis' },
    authorization: (keys) => `Bearer ${embedToken(keys)}`,
    coldAuthorization: (keys) => `Bearer ${embedToken(keys, coldTenant())}`,
    expectedStatus: 200,
    // The dashboard read (the issue allows 2); the tenant's keys add one read on an empty cache.
    budget: { warmRequests: 2, coldRequests: 3, readUnits: 2, writeUnits: 0 },
  },
  'list-notifications': {
    operation: 'list-notifications',
    description: "first page (first=10) of deployment 7's notifications",
    params: { deploymentId: '7' },
    query: 'first=10',
    authorization: admin,
    coldAuthorization: coldAdmin,
    expectedStatus: 200,
    // One Query on gsi1 for eleven items (the page and the look-ahead), and one BatchGetItem of the
    // page's ten schedule entries (their upcoming instants give nextRunAt), eventually consistent.
    budget: { warmRequests: 2, coldRequests: 4, readUnits: 6, writeUnits: 0 },
  },
  'create-notification': {
    operation: 'create-notification',
    description: 'create a DAILY notification on a dashboard given by id',
    params: { deploymentId: '7' },
    authorization: admin,
    coldAuthorization: coldAdmin,
    body: (i) => ({ dashboardId: 70, scheduleType: 'DAILY', hour: i % 24 }),
    expectedStatus: 201,
    adjustReplay: putUnderFreshKey,
    // The dashboard link, the id counter's ADD, the transaction of the item (with its two list-index
    // entries) and its schedule entry (with its due entry), as DynamoDB Local counts a transaction.
    budget: { warmRequests: 3, coldRequests: 5, readUnits: 1, writeUnits: 11 },
  },
  'get-notification': {
    operation: 'get-notification',
    description: 'read one notification',
    params: { deploymentId: '7', id: '700' },
    authorization: admin,
    coldAuthorization: coldAdmin,
    expectedStatus: 200,
    // One Query of the item and its schedule entry, strongly consistent.
    budget: { warmRequests: 1, coldRequests: 3, readUnits: 1, writeUnits: 0 },
  },
  'delete-notification': {
    operation: 'delete-notification',
    description: 'delete a notification that does not exist (the 404 path; a delete can run only once)',
    params: { deploymentId: '7', id: '999999' },
    authorization: admin,
    coldAuthorization: coldAdmin,
    expectedStatus: 404,
    adjustReplay: withoutCondition,
    // One transaction (the notification's and its schedule entry's deletes, its tombstone's put),
    // cancelled by its condition.
    budget: { warmRequests: 1, coldRequests: 3, readUnits: 0, writeUnits: 1 },
  },
  'list-recipients': {
    operation: 'list-recipients',
    description: 'first page (first=10) of the recipients of a notification',
    params: { deploymentId: '7', id: '701' },
    query: 'first=10',
    authorization: admin,
    coldAuthorization: coldAdmin,
    expectedStatus: 200,
    // The notification (the 404), one Query on gsi1, one BatchGetItem for console users' names.
    budget: { warmRequests: 3, coldRequests: 5, readUnits: 3, writeUnits: 0 },
  },
  'remove-recipients': {
    operation: 'remove-recipients',
    description: 'unsubscribe a console user who is not subscribed (idempotent)',
    params: { deploymentId: '7', id: '700' },
    authorization: admin,
    coldAuthorization: coldAdmin,
    body: () => ({ recipients: [{ type: 'USER', id: 999 }] }),
    expectedStatus: 204,
    // The notification (the 404), one BatchWriteItem of one delete (DynamoDB Local bills it with the
    // index's), the notification again (the race guard with a delete).
    budget: { warmRequests: 3, coldRequests: 5, readUnits: 2, writeUnits: 2 },
  },
  'get-api-spec': {
    operation: 'get-api-spec',
    description: 'the OpenAPI document, unauthenticated',
    params: {},
    authorization: () => '',
    coldAuthorization: () => '',
    expectedStatus: 200,
    // Built into the bundle: no table access.
    budget: { warmRequests: 0, coldRequests: 0, readUnits: 0, writeUnits: 0 },
  },
  'send-notification': {
    operation: 'send-notification',
    description: 'send a notification now (demo recipients, jobs to the outbox)',
    params: { deploymentId: '7', id: '700' },
    authorization: admin,
    coldAuthorization: coldAdmin,
    expectedStatus: 202,
    adjustReplay: onFreshSendNow,
    // The notification, its dashboard link and the dashboard; the last send-now, then the run and the
    // new send-now marker (one transaction); the recipients (one Query); their console users (one
    // BatchGet); the deliveries (one BatchWrite); the notification again before the jobs leave (the
    // race guard with a delete); the run finished. Writes in a transaction cost double, and its
    // condition checks are billed as writes: the limit adds 4 write units to a send-now; the run's entry
    // among the runs awaiting outcomes, one more.
    budget: { warmRequests: 10, coldRequests: 12, readUnits: 8, writeUnits: 12 },
  },
  'list-runs': {
    operation: 'list-runs',
    description: 'first page (first=10) of the runs of a notification',
    params: { deploymentId: '7', id: '700' },
    query: 'first=10',
    authorization: admin,
    coldAuthorization: coldAdmin,
    expectedStatus: 200,
    // One Query for the page and one run more (which says whether a next page exists): eleven runs
    // of under 400 bytes, one 4 KB read unit at most, eventually consistent. The page is named: by
    // the time this runs, send-notification has left hundreds of runs on the notification, and a
    // default page (100) would read 101 of them (3.5 units in the full run, 0.5 in the smoke's 2).
    // Then the notification (1 unit, strongly consistent): a deleted one's runs stay until the purge,
    // and are 404 from the delete's answer on.
    budget: { warmRequests: 2, coldRequests: 4, readUnits: 2, writeUnits: 0 },
  },
  'list-deliveries': {
    operation: 'list-deliveries',
    description: 'deliveries of a run that does not exist (the longest path: page, notification, run)',
    params: { deploymentId: '7', id: '700', runId: '20261123T080000000Z-s' },
    authorization: admin,
    coldAuthorization: coldAdmin,
    expectedStatus: 404,
    // The empty page, then the notification and the run, to tell which is missing.
    budget: { warmRequests: 3, coldRequests: 5, readUnits: 2, writeUnits: 0 },
  },
  'retry-run': {
    operation: 'retry-run',
    description: 'retry a run that does not exist (the run is read first)',
    params: { deploymentId: '7', id: '700', runId: '20261123T080000000Z-s' },
    authorization: admin,
    coldAuthorization: coldAdmin,
    expectedStatus: 404,
    // The run, by key.
    budget: { warmRequests: 1, coldRequests: 3, readUnits: 1, writeUnits: 0 },
  },
  'report-delivery-outcome': {
    operation: 'report-delivery-outcome',
    description: 'the renderer reports a job the service never issued (the transaction, then the read)',
    params: { jobId: `7.700.20261123T080000000Z-s.${'0'.repeat(32)}` },
    authorization: (keys) => `Bearer ${platformToken(keys)}`,
    coldAuthorization: (keys) => `Bearer ${platformToken(keys)}`,
    body: () => ({ status: 'delivered', attempt: 1 }),
    expectedStatus: 404,
    adjustReplay: onScratchItems,
    // The transaction refused on its delivery's condition, then the delivery read to tell why.
    budget: { warmRequests: 2, coldRequests: 2, readUnits: 1, writeUnits: 0 },
  },
  'preview-schedule': {
    operation: 'preview-schedule',
    description: 'the next 5 instants of a weekly schedule in Berlin',
    params: {},
    authorization: admin,
    coldAuthorization: coldAdmin,
    body: () => ({ scheduleType: 'WEEKLY', dayOfWeek: 1, hour: 9, timezone: 'Europe/Berlin' }),
    expectedStatus: 200,
    // Nothing stored, nothing read beyond the caller.
    budget: { warmRequests: 0, coldRequests: 2, readUnits: 0, writeUnits: 0 },
  },
  unsubscribe: {
    operation: 'unsubscribe',
    description: 'one-click unsubscribe of a recipient who is not (or no longer) subscribed',
    params: {},
    query: `token=${unsubscribeToken({ deploymentId: 7, id: 700, recipient: { type: 'USER', userId: 999 } }, BENCH_UNSUBSCRIBE_KEY)}`,
    authorization: () => '',
    coldAuthorization: () => '',
    expectedStatus: 200,
    // One DeleteItem by key.
    budget: { warmRequests: 1, coldRequests: 1, readUnits: 0, writeUnits: 1 },
  },
  'get-unsubscribe-page': {
    operation: 'get-unsubscribe-page',
    description: 'the confirmation page of an unsubscribe link',
    params: {},
    query: `token=${unsubscribeToken({ deploymentId: 7, id: 700, recipient: { type: 'USER', userId: 999 } }, BENCH_UNSUBSCRIBE_KEY)}`,
    authorization: () => '',
    coldAuthorization: () => '',
    expectedStatus: 200,
    // The token is checked with the key alone.
    budget: { warmRequests: 0, coldRequests: 0, readUnits: 0, writeUnits: 0 },
  },
};
