import { unsubscribeToken } from '#lib/domain/unsubscribe/unsubscribe';
import type { Operation } from '#lib/routes';
import type { ApiResponse } from '#test/support/local-api';
import { BENCH_UNSUBSCRIBE_KEY } from './fixture.ts';

/**
 * One warm request per operation of lib/routes.ts (the type asks for every one), as a typical caller
 * sends it, with its DynamoDB budget and why: requests, read and write units (DynamoDB Local's) of a warm
 * request. On an empty cache its caller's lookup adds `coldLookups` requests.
 */

export interface Scenario {
  description: string;
  params?: Record<string, string>;
  query?: string;
  /** Who calls: an admin's API key (unless said), a token of an embed tenant or of the platform, or nobody. */
  caller?: 'admin' | 'embed' | 'platform' | 'public';
  body?: (i: number) => unknown;
  /** Unless said, 200. */
  status?: number;
  /** The status with a caller never seen, unless it is `status`. */
  coldStatus?: number;
  /** Requests with a caller never seen, when it does more than look its caller up (a new embed user). */
  coldRequests?: number;
  /**
   * Run before each request, untimed and unmetered: what it needs that only requests can make (a
   * subscription to read or delete). Its answer fills `params`.
   */
  before?: (context: ScenarioContext) => Promise<Record<string, string>>;
  /** Run after each request, untimed and unmetered, with its answer: what keeps the next possible. */
  after?: (context: ScenarioContext, reply: ApiResponse) => Promise<void>;
  budget: { requests: number; readUnits: number; writeUnits: number };
}

/** Requests of a scenario's hooks: as the scenario's warm caller, or as an admin; each checks its status. */
export interface ScenarioContext {
  asCaller(method: string, path: string, status: number, body?: unknown): Promise<ApiResponse>;
  asAdmin(method: string, path: string, status: number, body?: unknown): Promise<ApiResponse>;
}

/** An API key's link and user; an embed tenant's keys; a platform token's issuer is configured. */
export const coldLookups = { admin: 2, embed: 1, platform: 0, public: 0 };

const notification700 = { deploymentId: '7', id: '700' };
/** A run that does not exist: the longest path of the run routes. */
const noRun = { ...notification700, runId: '20261123T080000000Z-s' };
const noWebhook = { deploymentId: '7', webhookId: `wh_${'0'.repeat(24)}` };
const unsubscribe = { deploymentId: 7, id: 700, recipient: { type: 'USER', userId: 999 } } as const;
const unsubscribeQuery = `token=${unsubscribeToken(unsubscribe, BENCH_UNSUBSCRIBE_KEY)}`;
/**
 * A subscription of acme's embed user: daily in a zone that changes its clock, so that a write looks at
 * the firings around both changes of the coming year (the interval rule's longest path).
 */
const subscription = (hour: number) => ({
  dashboardPublicId: 'ops-kpis',
  scheduleType: 'DAILY',
  hour,
  timezone: 'Europe/Berlin',
});
const subscribe = async ({ asCaller }: ScenarioContext) => {
  const { body } = await asCaller('POST', '/v1/embed/notifications', 201, subscription(9));
  return { id: String(body.id) };
};
/** A hook's answer made by its first call and kept: one subscription for all the scenario's requests. */
function once(make: (context: ScenarioContext) => Promise<Record<string, string>>) {
  let made: Promise<Record<string, string>> | undefined;
  return (context: ScenarioContext) => {
    made ??= make(context);
    return made;
  };
}

const resent = Array.from({ length: 10 }, (_, k) => ({
  embedTenantName: 'acme',
  externalId: `re-${k}@x.example`,
}));

export const scenarios: Record<Operation, Scenario> = {
  'update-notification': {
    description: 'set the hour of a DAILY notification',
    params: notification700,
    body: (i) => ({ hour: 6 + (i % 12) }),
    // The notification with its entry (the version the write is conditional on); the transaction of
    // the change (its gsi1, gsi2 and due entries too) and its audit event (and its gsi1 entry), whose
    // writes cost double; then the schedule entry.
    budget: { requests: 3, readUnits: 1, writeUnits: 15 },
  },
  'add-recipients': {
    // The steady state of a client that re-sends its recipient list.
    description: 're-send 10 embed recipients (all unchanged)',
    params: { deploymentId: '7', id: '701' },
    body: () => ({ recipients: resent }),
    // One BatchGet: the notification, its 10 rows, the tenant.
    budget: { requests: 1, readUnits: 13, writeUnits: 0 },
  },
  'set-dashboard-embedding': {
    description: 'switch allowEmbed on a dashboard',
    params: { publicId: 'sales-overview' },
    body: (i) => ({ allowEmbed: i % 2 === 0 }),
    // One conditional UpdateItem returning the new item.
    budget: { requests: 1, readUnits: 0, writeUnits: 1 },
  },
  'get-embedded-dashboard': {
    description: 'embed token of tenant acme reads a shared dashboard',
    params: { publicId: 'ops-kpis' },
    caller: 'embed',
    // The dashboard read (2 allowed); the tenant's keys add one read on an empty cache.
    budget: { requests: 2, readUnits: 2, writeUnits: 0 },
  },
  'list-notifications': {
    description: "first page (first=10) of deployment 7's notifications",
    params: { deploymentId: '7' },
    query: 'first=10',
    // A Query on gsi1 for the page and the look-ahead, a BatchGetItem of its schedule entries (nextRunAt)
    // and of the console users who own them (status: orphaned while the owner is not active).
    budget: { requests: 2, readUnits: 7, writeUnits: 0 },
  },
  'create-notification': {
    description: 'create a DAILY notification on a dashboard given by id',
    params: { deploymentId: '7' },
    body: (i) => ({ dashboardId: 70, scheduleType: 'DAILY', hour: i % 24 }),
    status: 201,
    // The dashboard link, the id counter's ADD, the transaction of the item and its schedule entry.
    // 13 write units: the item's entry in its owner's list (gsi4, keys only), doubled in the transaction.
    budget: { requests: 3, readUnits: 1, writeUnits: 13 },
  },
  'get-notification': {
    description: 'read one notification',
    params: notification700,
    // One Query of the item and its schedule entry, strongly consistent.
    budget: { requests: 1, readUnits: 1, writeUnits: 0 },
  },
  'delete-notification': {
    description: 'delete a notification that does not exist (the 404 path; a delete can run only once)',
    params: { deploymentId: '7', id: '999999' },
    status: 404,
    // One transaction (the deletes of the item and its schedule entry, its tombstone's put), cancelled.
    budget: { requests: 1, readUnits: 0, writeUnits: 1 },
  },
  'list-recipients': {
    description: 'first page (first=10) of the recipients of a notification',
    params: { deploymentId: '7', id: '701' },
    query: 'first=10',
    // The notification (the 404), one Query on gsi1, one BatchGetItem for console users' names.
    budget: { requests: 3, readUnits: 3, writeUnits: 0 },
  },
  'remove-recipients': {
    description: 'unsubscribe a console user who is not subscribed (idempotent)',
    params: notification700,
    body: () => ({ recipients: [{ type: 'USER', id: 999 }] }),
    status: 204,
    // The notification (the 404), the row by key: there is none, so nothing is written or recorded.
    budget: { requests: 2, readUnits: 2, writeUnits: 0 },
  },
  'get-api-spec': {
    description: 'the OpenAPI document, unauthenticated',
    caller: 'public',
    // Built into the bundle: no table access.
    budget: { requests: 0, readUnits: 0, writeUnits: 0 },
  },
  'send-notification': {
    description: 'send a notification now (demo recipients, jobs to the outbox)',
    params: notification700,
    status: 202,
    // The notification, its dashboard link and dashboard, the last send-now; the run and the send-now marker
    // (a transaction: writes cost double); the recipients, their console users, the suppressions of
    // their addresses, the deliveries; the notification again (the race guard with a delete); the run
    // finished, awaiting outcomes. The `sent` audit event is one more Put in the run's transaction.
    budget: { requests: 11, readUnits: 8, writeUnits: 14 },
  },
  'list-runs': {
    description: 'first page (first=10) of the runs of a notification',
    params: notification700,
    query: 'first=10',
    // One Query of eleven runs (one tells if a next page exists; the page is named: send-notification
    // leaves hundreds); then the notification: a deleted one's runs are 404 until the purge removes them.
    budget: { requests: 2, readUnits: 2, writeUnits: 0 },
  },
  'list-deliveries': {
    description: 'deliveries of a run that does not exist (the longest path: page, notification, run)',
    params: noRun,
    status: 404,
    // The empty page, then the notification and the run, to tell which is missing.
    budget: { requests: 3, readUnits: 2, writeUnits: 0 },
  },
  'retry-run': {
    description: 'retry a run that does not exist (the notification and the run are read first)',
    params: noRun,
    status: 404,
    // The notification (a retry after its delete is 404, even with nothing failed), then the run, by key.
    budget: { requests: 2, readUnits: 2, writeUnits: 0 },
  },
  'report-delivery-outcome': {
    description: 'the renderer reports a job the service never issued (the transaction, refused)',
    params: { jobId: `7.700.20261123T080000000Z-s.${'0'.repeat(32)}` },
    caller: 'platform',
    body: () => ({ status: 'delivered', attempt: 1 }),
    status: 404,
    // The transaction refused on its delivery's condition; the refusal carries the delivery (none here).
    budget: { requests: 1, readUnits: 0, writeUnits: 0 },
  },
  'preview-schedule': {
    description: 'the next 5 instants of a weekly schedule in Berlin',
    body: () => ({ scheduleType: 'WEEKLY', dayOfWeek: 1, hour: 9, timezone: 'Europe/Berlin' }),
    // Nothing stored, nothing read beyond the caller.
    budget: { requests: 0, readUnits: 0, writeUnits: 0 },
  },
  unsubscribe: {
    description: 'one-click unsubscribe of a recipient who is not (or no longer) subscribed',
    query: unsubscribeQuery,
    caller: 'public',
    // The row, read by key: there is none, so nothing is removed and nothing recorded.
    budget: { requests: 1, readUnits: 1, writeUnits: 0 },
  },
  'get-unsubscribe-page': {
    description: 'the confirmation page of an unsubscribe link',
    query: unsubscribeQuery,
    caller: 'public',
    // The token is checked with the key, then its subscription's row, by key: a link whose recipient was
    // subscribed again since shows the page that says it has expired.
    budget: { requests: 1, readUnits: 1, writeUnits: 0 },
  },
  'configure-embed-tenant': {
    description: "an admin sets tenant acme's self-service settings",
    params: { embedTenantName: 'acme' },
    // The settings it already has: the embed user's scenarios below need self-service on.
    body: () => ({ selfService: { enabled: true, maxPerUser: 50 } }),
    // One conditional UpdateItem of the tenant item.
    budget: { requests: 1, readUnits: 0, writeUnits: 1 },
  },
  'list-embed-notifications': {
    description: 'an embed user of acme lists their own subscriptions (3 or more)',
    caller: 'embed',
    before: once(async (context) => {
      for (let k = 0; k < 3; k++) await subscribe(context);
      return {};
    }),
    // One Query of the user's links, a BatchGetItem of their notifications, one of their schedule entries.
    budget: { requests: 3, readUnits: 5, writeUnits: 0 },
  },
  'create-embed-notification': {
    description: 'an embed user of acme subscribes to a shared dashboard, daily in Europe/Berlin',
    caller: 'embed',
    body: (i) => subscription(i % 24),
    status: 201,
    // Deleted again by an admin, so that the user stays below maxPerUser.
    after: async ({ asAdmin }, { body }) => {
      await asAdmin('DELETE', `/v1/deployments/${body.deploymentId}/notifications/${body.id}`, 204);
    },
    // The tenant's settings, the dashboard, the embed user, the user's count, the id counter's ADD, the
    // transaction (notification, entry, count, link); the recipient's two rounds of BatchGets (the
    // notification, the row and the tenant; the embed user), the row's put, the notification again (the
    // race guard with a delete).
    budget: { requests: 10, readUnits: 8, writeUnits: 17 },
    // A never-seen tenant's user is new as well: the embed user id's ADD and the user's put.
    coldRequests: 13,
  },
  'get-embed-notification': {
    description: 'an embed user of acme reads their own subscription',
    caller: 'embed',
    before: once(subscribe),
    // A never-seen tenant's user holds no subscription of acme's: 404.
    coldStatus: 404,
    // The link, then the notification and its entry in one Query.
    budget: { requests: 2, readUnits: 2, writeUnits: 0 },
  },
  'update-embed-notification': {
    description: 'an embed user of acme sets the hour of their own subscription',
    caller: 'embed',
    before: once(subscribe),
    body: (i) => ({ hour: 6 + (i % 12) }),
    coldStatus: 404,
    // The tenant's settings, the link, the notification with its entry; the notification read again
    // with its version for the write; the write and its audit event (one transaction, whose writes cost
    // double) and the schedule entry; the recipient, unchanged: its row and embed user in one BatchGetItem.
    budget: { requests: 7, readUnits: 7, writeUnits: 15 },
  },
  'delete-embed-notification': {
    description: 'an embed user of acme deletes their own subscription (made before each request)',
    caller: 'embed',
    before: subscribe,
    status: 204,
    coldStatus: 404,
    // The link, the notification with its entry (and its owner), the delete's one transaction, which
    // names that owner and gives back their count.
    budget: { requests: 3, readUnits: 2, writeUnits: 12 },
  },
  'list-suppressions': {
    description: "first page (first=10) of deployment 7's suppressions",
    params: { deploymentId: '7' },
    query: 'first=10',
    // One Query of the deployment's suppressions partition.
    budget: { requests: 1, readUnits: 1, writeUnits: 0 },
  },
  'add-suppression': {
    description: 'suppress an address by hand',
    params: { deploymentId: '7' },
    body: (i) => ({ email: `bench-${i}@example.com` }),
    status: 201,
    // One UpdateItem that keeps a suppression already there and returns the one that stands.
    budget: { requests: 1, readUnits: 0, writeUnits: 1 },
  },
  'remove-suppression': {
    description: 'remove the suppression of an address that has none (the 404)',
    params: { deploymentId: '7', email: 'never-suppressed@example.com' },
    status: 404,
    // One DeleteItem by key, answering what it removed.
    budget: { requests: 1, readUnits: 0, writeUnits: 1 },
  },
  'pause-notification': {
    description: 'pause a notification again with a new reason',
    params: notification700,
    body: (i) => ({ reason: `bench ${i}` }),
    // The notification with its entry, the conditional write of its hold with its hold entry (one
    // transaction: 11 write units, where the UpdateItem alone took 8), its schedule entry; the same
    // hold again keeps the entry's instants: its PutItem is refused and an UpdateItem takes the version.
    // The hold, its hold entry and its audit event are one transaction, whose writes cost double.
    budget: { requests: 4, readUnits: 1, writeUnits: 15 },
  },
  'resume-notification': {
    description: 'resume a notification that is not held',
    params: notification700,
    // The notification with its entry: nothing holds it, so nothing is written.
    budget: { requests: 1, readUnits: 1, writeUnits: 0 },
  },
  'create-webhook': {
    description: 'create a webhook pointing at a private address (refused before storage)',
    params: { deploymentId: '7' },
    body: () => ({ url: 'https://10.0.0.1/hook', events: ['run.completed'] }),
    status: 400,
    // The URL's address decides: nothing is read or written.
    budget: { requests: 0, readUnits: 0, writeUnits: 0 },
  },
  'list-webhooks': {
    description: "list a deployment's webhooks (none)",
    params: { deploymentId: '7' },
    // The deployment's one endpoints item.
    budget: { requests: 1, readUnits: 1, writeUnits: 0 },
  },
  'get-webhook': {
    description: 'get a webhook that does not exist',
    params: noWebhook,
    status: 404,
    budget: { requests: 1, readUnits: 1, writeUnits: 0 },
  },
  'update-webhook': {
    description: 'change the description of a webhook that does not exist',
    params: noWebhook,
    body: () => ({ description: 'bench' }),
    status: 404,
    // The endpoints item read; nothing to write.
    budget: { requests: 1, readUnits: 1, writeUnits: 0 },
  },
  'delete-webhook': {
    description: 'delete a webhook that does not exist',
    params: noWebhook,
    status: 404,
    // One conditional UpdateItem, refused.
    budget: { requests: 1, readUnits: 0, writeUnits: 1 },
  },
  'rotate-webhook-secret': {
    description: 'rotate the secret of a webhook that does not exist',
    params: noWebhook,
    status: 404,
    budget: { requests: 1, readUnits: 1, writeUnits: 0 },
  },
  'list-webhook-messages': {
    description: 'the messages of a webhook that does not exist',
    params: noWebhook,
    status: 404,
    // The endpoints item (the 404) before any page.
    budget: { requests: 1, readUnits: 1, writeUnits: 0 },
  },
  'retry-webhook-message': {
    description: 'send again a message of a webhook that does not exist',
    params: { ...noWebhook, messageId: `msg_${'0'.repeat(25)}_${'0'.repeat(24)}` },
    status: 404,
    budget: { requests: 1, readUnits: 1, writeUnits: 0 },
  },
  'list-notification-events': {
    description: 'first page (first=10) of the audit events of a notification',
    params: notification700,
    query: 'first=10',
    // The notification (deleted: 404), then one Query of its audit partition.
    budget: { requests: 2, readUnits: 2, writeUnits: 0 },
  },
  'list-deployment-events': {
    description: "first page (first=10) of deployment 7's audit events",
    params: { deploymentId: '7' },
    query: 'first=10',
    // One Query of the deployment's events index partition.
    budget: { requests: 1, readUnits: 1, writeUnits: 0 },
  },
};
