import type { ErrorCode } from '#lib/errors';

/**
 * The API's routes and everything that differs between them, declared once: the CDK stack creates one
 * API Gateway route and one Lambda function (`functions/<operation>.ts`) for each, with its timeout,
 * memory and table grants; the API description takes its summary and its own failures; the local HTTP
 * adapter serves it with its timeout; its function names its metrics from here.
 *
 * Each route is a constant of its own, and its function imports only that one: the bundler keeps a
 * route's facts out of every other function's bundle (the list at the end is for the stack, the
 * description and the local server). Nothing here may run at load: that would keep them all.
 */

type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type TableAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:PutItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:Query'
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:BatchWriteItem'
  | 'dynamodb:ConditionCheckItem';

/**
 * What a repeat of a request that failed or was never answered does; the 503's message says it
 * (lib/http/unavailable.ts), and docs/api.md ("Faults and repeats") lists it per write route.
 */
export type RepeatEffect =
  /** Nothing twice: a read, or a write whose repeat leaves what a single request leaves. */
  | 'safe'
  /** As safe, but a repeat after a first request that did the work answers 404: it is gone. */
  | 'safe-then-not-found'
  /** A repeat acts again unless it carries the same `Idempotency-Key` as the first. */
  | 'with-key'
  /** A repeat acts again, and no key prevents it: look before repeating. */
  | 'look-first';

export interface RouteFacts {
  /** Also the function's file name (`functions/<operation>.ts`) and its metrics' operation dimension. */
  operation: string;
  method: HttpMethod;
  path: `/v1/${string}`;
  /** The operation's one line in the API description. */
  summary: string;
  /**
   * API Gateway gives up on an integration after 30 seconds; every function ends before that. Unset:
   * the default of every route (`timeoutSecondsOf`).
   */
  timeoutSeconds?: number;
  /** Unset: the default of every route (`memoryMiBOf`). */
  memoryMiB?: number;
  /** What the function may do to the table, read off its code paths; the stack grants exactly these. */
  tableActions: readonly TableAction[];
  /**
   * Actions whose calls ship in the bundle but lie on no path of this operation: deliberately not
   * granted. test/cdk/table-actions.test.ts holds both lists to the bundle.
   */
  bundledButNotCalled?: readonly TableAction[];
  /** Reads the stage's unsubscribe signing key (Secrets Manager): it signs or checks unsubscribe links. */
  readsUnsubscribeKey?: boolean;
  /** What repeating a failed or unanswered request does (the 503's message). */
  repeat: RepeatEffect;
  /** The failures of the operation's own rules, beyond those its access, path and body imply. */
  ownErrors?: readonly ErrorCode[];
  /** What happened in the business, counted per request by this operation's function. */
  businessMetrics?: readonly string[];
}

/**
 * Every request authenticates first: an API key or console subject resolves through a link item to
 * the user item, an embed token through its tenant item (lib/store/users/users.ts), all single GetItems.
 */
const AUTHENTICATION = 'dynamodb:GetItem';
const MEMORY_MIB = 1024;
const TIMEOUT_SECONDS = 10;
/** Work that grows with the request, bounded by the time left: just under API Gateway's 30 seconds. */
const LONG_TIMEOUT_SECONDS = 29;

/** A route's function's timeout: its own, or every route's. */
export const timeoutSecondsOf = (route: RouteFacts) => route.timeoutSeconds ?? TIMEOUT_SECONDS;
/** A route's function's memory: its own, or every route's. */
export const memoryMiBOf = (route: RouteFacts) => route.memoryMiB ?? MEMORY_MIB;

export const updateNotificationRoute = {
  operation: 'update-notification',
  method: 'PUT',
  path: '/v1/deployments/{deploymentId}/notifications/{id}',
  repeat: 'safe',
  summary: 'Update a notification',
  tableActions: [
    // The caller; a new owner.
    AUTHENTICATION,
    // The notification's UpdateItem on condition of the version read, in one transaction with the Put of
    // its audit event (lib/store/notifications/notifications.ts); an older item's lists moved once.
    'dynamodb:UpdateItem',
    // The audit event; a schedule change's new state: its schedule entry (lib/store/notifications/scheduled-notifications.ts).
    'dynamodb:PutItem',
    // The notification with its entry and version, read before the write.
    'dynamodb:Query',
  ],
  ownErrors: ['conflict'],
} as const satisfies RouteFacts;

export const addRecipientsRoute = {
  operation: 'add-recipients',
  method: 'POST',
  path: '/v1/deployments/{deploymentId}/notifications/{id}/recipients',
  repeat: 'safe',
  summary: 'Add recipients to a notification',
  // Up to 1000 recipients, with batch retries bounded by the remaining time.
  timeoutSeconds: LONG_TIMEOUT_SECONDS,
  tableActions: [
    AUTHENTICATION,
    // The notification, the request's own recipient rows, users, e-mail links, tenants, embed users by key.
    'dynamodb:BatchGetItem',
    // The id counter (also GetItem, as authentication), reserved with ADD or advanced in a transaction;
    // changed properties of recipient rows.
    'dynamodb:UpdateItem',
    // TransactWriteItems has no IAM action of its own: each Put in it is authorized as a PutItem. Also
    // the conditional puts of new recipient rows, and the audit event.
    'dynamodb:PutItem',
    // The audit event's transaction checks that the notification is still there.
    'dynamodb:ConditionCheckItem',
  ],
  ownErrors: ['conflict'],
  businessMetrics: ['RecipientsCreated', 'RecipientsUpdated'],
} as const satisfies RouteFacts;

export const setDashboardEmbeddingRoute = {
  operation: 'set-dashboard-embedding',
  method: 'PATCH',
  path: '/v1/embed/dashboard/{publicId}',
  repeat: 'safe',
  summary: 'Turn signed embedding of a dashboard on or off',
  // One conditional UpdateItem on the dashboard, no read first (lib/store/embedding/dashboards.ts).
  tableActions: [AUTHENTICATION, 'dynamodb:UpdateItem'],
} as const satisfies RouteFacts;

export const getEmbeddedDashboardRoute = {
  operation: 'get-embedded-dashboard',
  method: 'GET',
  path: '/v1/embed/dashboard/{publicId}',
  repeat: 'safe',
  summary: 'Fetch a dashboard for signed embedding',
  // An embed token may make the function fetch the tenant's JWKS over the internet.
  // The dashboard by its public id.
  tableActions: [AUTHENTICATION],
} as const satisfies RouteFacts;

export const sendNotificationRoute = {
  operation: 'send-notification',
  method: 'POST',
  path: '/v1/deployments/{deploymentId}/notifications/{id}/send',
  repeat: 'with-key',
  summary: 'Send a notification now (a manual run)',
  // Delivers what fits; a run cut short is finished by the dispatcher under its lease.
  timeoutSeconds: LONG_TIMEOUT_SECONDS,
  tableActions: [
    // The notification, its dashboard link and the dashboard; the last send-now.
    AUTHENTICATION,
    // The run and the send-now marker (a test run's deliveries too), in one transaction
    // (lib/store/runs/send-now.ts); an Idempotency-Key's record.
    'dynamodb:PutItem',
    // In that transaction: the notification still exists, the previous send-now's run is done.
    'dynamodb:ConditionCheckItem',
    // The recipients, a page at a time, on the notification's partition.
    'dynamodb:Query',
    // Console users of a page by key.
    'dynamodb:BatchGetItem',
    // The deliveries of a page.
    'dynamodb:BatchWriteItem',
    // The run's progress, lease and end (lib/store/dispatch/dispatch.ts); an Idempotency-Key taken over or marked done.
    'dynamodb:UpdateItem',
    // An Idempotency-Key given back by a request that failed before its run was made.
    'dynamodb:DeleteItem',
  ],
  readsUnsubscribeKey: true,
  // Too soon after the last send; a concurrent use of the Idempotency-Key; the key used with another body.
  ownErrors: ['too_many_requests', 'conflict', 'idempotency_key_mismatch'],
  businessMetrics: ['RunsCreated', 'DeliveriesQueued', 'DeliveriesSkipped'],
} as const satisfies RouteFacts;

export const listRunsRoute = {
  operation: 'list-runs',
  method: 'GET',
  path: '/v1/deployments/{deploymentId}/notifications/{id}/runs',
  repeat: 'safe',
  summary: 'List the runs of a notification, newest first',
  // One page on the notification's partition; the notification for the 404 of an empty page.
  tableActions: [AUTHENTICATION, 'dynamodb:Query'],
} as const satisfies RouteFacts;

export const listDeliveriesRoute = {
  operation: 'list-deliveries',
  method: 'GET',
  path: '/v1/deployments/{deploymentId}/notifications/{id}/runs/{runId}/deliveries',
  repeat: 'safe',
  summary: "List a run's deliveries",
  // One page on the notification's partition; the notification and the run for the 404 of an empty page.
  tableActions: [AUTHENTICATION, 'dynamodb:Query'],
} as const satisfies RouteFacts;

export const listNotificationsRoute = {
  operation: 'list-notifications',
  method: 'GET',
  path: '/v1/deployments/{deploymentId}/notifications',
  repeat: 'safe',
  summary: 'List the notifications of a deployment',
  tableActions: [
    // The dashboard by public id, the user by e-mail or the embed user: the filter's one lookup.
    AUTHENTICATION,
    // One page: one Query on gsi1 or gsi2.
    'dynamodb:Query',
    // The page's schedule entries; with a recipient filter, the page's notifications, by key.
    'dynamodb:BatchGetItem',
  ],
} as const satisfies RouteFacts;

export const createNotificationRoute = {
  operation: 'create-notification',
  method: 'POST',
  path: '/v1/deployments/{deploymentId}/notifications',
  repeat: 'with-key',
  summary: 'Create a notification',
  tableActions: [
    // The dashboard (or its link by id); an Idempotency-Key record already there.
    AUTHENTICATION,
    // The id counter's ADD; taking over an abandoned key; marking the key done (in the transaction).
    'dynamodb:UpdateItem',
    // The key's record; the notification and its schedule entry (in the transaction).
    'dynamodb:PutItem',
    // The key given back by a request that failed before it created.
    'dynamodb:DeleteItem',
  ],
  // No such dashboard; a concurrent use of the Idempotency-Key; the key used with another body.
  ownErrors: ['not_found', 'conflict', 'idempotency_key_mismatch'],
} as const satisfies RouteFacts;

export const getNotificationRoute = {
  operation: 'get-notification',
  method: 'GET',
  path: '/v1/deployments/{deploymentId}/notifications/{id}',
  repeat: 'safe',
  summary: 'Get a notification',
  // The notification and its schedule entry, in one Query of their shared key prefix.
  tableActions: [AUTHENTICATION, 'dynamodb:Query'],
} as const satisfies RouteFacts;

export const deleteNotificationRoute = {
  operation: 'delete-notification',
  method: 'DELETE',
  path: '/v1/deployments/{deploymentId}/notifications/{id}',
  repeat: 'safe-then-not-found',
  summary: 'Delete a notification, its recipients and its runs',
  // One transaction, whatever the notification holds: the purge does the rest in the background.
  tableActions: [
    AUTHENTICATION,
    // One transaction: the notification item and its schedule entry go, its tombstone comes (the purge
    // does the rest); an embed owner's link goes and their count goes down (an UpdateItem).
    'dynamodb:DeleteItem',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
  ],
} as const satisfies RouteFacts;

export const listRecipientsRoute = {
  operation: 'list-recipients',
  method: 'GET',
  path: '/v1/deployments/{deploymentId}/notifications/{id}/recipients',
  repeat: 'safe',
  summary: 'List the recipients of a notification',
  tableActions: [
    // The notification (the 404).
    AUTHENTICATION,
    // One page on gsi1; the console users' e-mail and username by key.
    'dynamodb:Query',
    'dynamodb:BatchGetItem',
  ],
} as const satisfies RouteFacts;

export const removeRecipientsRoute = {
  operation: 'remove-recipients',
  method: 'DELETE',
  path: '/v1/deployments/{deploymentId}/notifications/{id}/recipients',
  repeat: 'safe',
  summary: 'Remove recipients from a notification',
  // Up to 1000 recipients.
  timeoutSeconds: LONG_TIMEOUT_SECONDS,
  tableActions: [
    // The notification (the 404).
    AUTHENTICATION,
    // An embed recipient's row found by its embed user id on gsi2.
    'dynamodb:Query',
    // The console users' rows and the users (the audit event's output items), 100 keys per call.
    'dynamodb:BatchGetItem',
    // Past the last 98 rows, the first, 25 per call.
    'dynamodb:BatchWriteItem',
    // The last rows, in one transaction with the notification's check and the audit event.
    'dynamodb:DeleteItem',
    'dynamodb:ConditionCheckItem',
    'dynamodb:PutItem',
  ],
  ownErrors: ['conflict'],
} as const satisfies RouteFacts;

export const getApiSpecRoute = {
  operation: 'get-api-spec',
  method: 'GET',
  path: '/v1/spec',
  repeat: 'safe',
  summary: 'This API description (OpenAPI 3.1)',
  // A document built into the bundle: no table access at all (a public route bundles no credential store).
  tableActions: [],
} as const satisfies RouteFacts;

export const retryRunRoute = {
  operation: 'retry-run',
  method: 'POST',
  path: '/v1/deployments/{deploymentId}/notifications/{id}/runs/{runId}/retry',
  repeat: 'with-key',
  summary: "Queue a run's failed deliveries again",
  // Up to a thousand failed deliveries: their jobs and eleven transactions.
  timeoutSeconds: LONG_TIMEOUT_SECONDS,
  tableActions: [
    // The run, the notification, its dashboard link and the dashboard.
    AUTHENTICATION,
    // The run's failed deliveries on gsi1, a page at a time.
    'dynamodb:Query',
    // Embed recipients' rows, for the properties their jobs carry.
    'dynamodb:BatchGetItem',
    // The deliveries and the run's counts: UpdateItems inside TransactWriteItems; an
    // Idempotency-Key taken over or marked done.
    'dynamodb:UpdateItem',
    // In that transaction: the notification still exists.
    'dynamodb:ConditionCheckItem',
    // An Idempotency-Key's record (given back by a request that failed); the retry's audit event.
    'dynamodb:PutItem',
    'dynamodb:DeleteItem',
  ],
  readsUnsubscribeKey: true,
  // The dashboard unpublished, or a concurrent use of the Idempotency-Key; the key used with another body.
  ownErrors: ['conflict', 'idempotency_key_mismatch'],
  businessMetrics: ['DeliveriesRetried'],
} as const satisfies RouteFacts;

export const reportDeliveryOutcomeRoute = {
  operation: 'report-delivery-outcome',
  method: 'POST',
  path: '/v1/deliveries/{jobId}/outcome',
  repeat: 'safe',
  summary: "Report a delivery job's outcome (the renderer)",
  // One transaction, retried with backoff while many reports of one run contend for it.
  timeoutSeconds: LONG_TIMEOUT_SECONDS,
  // The delivery and the run updated in one transaction with a check of the notification (a bounce
  // also upserts its suppression there, a failure puts its webhook event); the run read (GetItem, or
  // BatchGetItem beside the deployment's webhook subscriptions) and its status settled after (with its
  // completion's event put). A bounce reads its delivery and run first, in one BatchGetItem. A run
  // that suspends its notification writes the hold with its hold entry and its `suspended` audit event
  // in one transaction (PutItem, DeleteItem), and reads the notification with its entry (Query) when an
  // endpoint wants the webhook event.
  tableActions: [
    AUTHENTICATION,
    'dynamodb:UpdateItem',
    'dynamodb:ConditionCheckItem',
    'dynamodb:BatchGetItem',
    'dynamodb:PutItem',
    'dynamodb:DeleteItem',
    'dynamodb:Query',
  ],
  ownErrors: ['conflict'],
  businessMetrics: ['DeliveriesDelivered', 'DeliveriesFailed'],
} as const satisfies RouteFacts;

export const previewScheduleRoute = {
  operation: 'preview-schedule',
  method: 'POST',
  path: '/v1/schedules/preview',
  repeat: 'safe',
  summary: 'Preview a schedule: its cron, its reading and its next firing instants',
  // Nothing is read or stored but the caller's credential.
  tableActions: [AUTHENTICATION],
} as const satisfies RouteFacts;

export const unsubscribeRoute = {
  operation: 'unsubscribe',
  method: 'POST',
  path: '/v1/unsubscribe',
  repeat: 'safe',
  summary: 'Unsubscribe a recipient in one click (RFC 8058), by its signed token',
  // The recipient row (and a console user's name for the audit event), read by key; the row deleted by
  // its key if it is the token's subscription, in one transaction with the `unsubscribed` audit event
  // and the webhook event when an endpoint wants it (PutItem); the deployment's webhook subscriptions
  // (GetItem). The token alone authorizes it.
  tableActions: ['dynamodb:GetItem', 'dynamodb:DeleteItem', 'dynamodb:PutItem'],
  readsUnsubscribeKey: true,
  // It takes any body or none (RFC 8058), held to the size of every body; a row that keeps changing under it.
  ownErrors: ['payload_too_large', 'conflict'],
} as const satisfies RouteFacts;

export const getUnsubscribePageRoute = {
  operation: 'get-unsubscribe-page',
  method: 'GET',
  path: '/v1/unsubscribe',
  repeat: 'safe',
  summary: 'The confirmation page of an unsubscribe link (changes nothing)',
  // The token is checked with the key, then the recipient row read: is it still the token's subscription?
  tableActions: ['dynamodb:GetItem'],
  readsUnsubscribeKey: true,
} as const satisfies RouteFacts;

export const configureEmbedTenantRoute = {
  operation: 'configure-embed-tenant',
  method: 'PATCH',
  path: '/v1/embed/tenants/{embedTenantName}',
  repeat: 'safe',
  summary: "Set an embed tenant's self-service subscription settings",
  // One conditional UpdateItem of the tenant item, no read first (lib/store/self-service/self-service.ts).
  tableActions: [AUTHENTICATION, 'dynamodb:UpdateItem'],
} as const satisfies RouteFacts;

/*
 * An embed user's own subscriptions (lib/domain/self-service/self-service.ts), by their embed token alone. Each
 * reads the tenant's settings (GetItem) and finds a subscription by the link kept in the embed
 * user's partition (GetItem), then the notification as the admin routes do.
 */

export const listEmbedNotificationsRoute = {
  operation: 'list-embed-notifications',
  method: 'GET',
  path: '/v1/embed/notifications',
  repeat: 'safe',
  summary: "List the calling embed user's own subscriptions",
  // The caller's links, one Query; their notifications and schedule entries by key.
  tableActions: [AUTHENTICATION, 'dynamodb:Query', 'dynamodb:BatchGetItem'],
} as const satisfies RouteFacts;

export const createEmbedNotificationRoute = {
  operation: 'create-embed-notification',
  method: 'POST',
  path: '/v1/embed/notifications',
  repeat: 'with-key',
  summary: 'Subscribe the calling embed user to a dashboard',
  tableActions: [
    // The tenant's settings, the dashboard, the embed user.
    AUTHENTICATION,
    // The id counters' ADDs; in the transaction, the user's count.
    'dynamodb:UpdateItem',
    // A new embed user; in the transaction, the notification, its entry and the user's link; the recipient row.
    'dynamodb:PutItem',
    // The recipient: its row and embed user by key.
    'dynamodb:BatchGetItem',
    // An Idempotency-Key given back by a request that failed before it created.
    'dynamodb:DeleteItem',
  ],
  // Past maxPerUser; a concurrent use of the Idempotency-Key; the key used with another body.
  // The add's audit event, which the embed user's own writes do not record (their create records `created`).
  bundledButNotCalled: ['dynamodb:ConditionCheckItem'],
  ownErrors: ['not_found', 'conflict', 'idempotency_key_mismatch'],
} as const satisfies RouteFacts;

export const getEmbedNotificationRoute = {
  operation: 'get-embed-notification',
  method: 'GET',
  path: '/v1/embed/notifications/{id}',
  repeat: 'safe',
  summary: "Get one of the calling embed user's subscriptions",
  // The link; the notification and its entry in one Query.
  tableActions: [AUTHENTICATION, 'dynamodb:Query'],
  // The list's join, in the same adapter module.
  bundledButNotCalled: ['dynamodb:BatchGetItem'],
} as const satisfies RouteFacts;

export const updateEmbedNotificationRoute = {
  operation: 'update-embed-notification',
  method: 'PUT',
  path: '/v1/embed/notifications/{id}',
  repeat: 'safe',
  summary: "Change one of the calling embed user's subscriptions",
  tableActions: [
    AUTHENTICATION,
    // The notification with its entry.
    'dynamodb:Query',
    // The update's conditional write; the recipient's refreshed properties.
    'dynamodb:UpdateItem',
    // The new schedule entry; the recipient row if it was removed.
    'dynamodb:PutItem',
    // The recipient: its row and embed user by key.
    'dynamodb:BatchGetItem',
  ],
  // The add's audit event, which the refresh of the embed user's recipient does not record.
  bundledButNotCalled: ['dynamodb:ConditionCheckItem'],
  ownErrors: ['conflict'],
} as const satisfies RouteFacts;

export const deleteEmbedNotificationRoute = {
  operation: 'delete-embed-notification',
  method: 'DELETE',
  path: '/v1/embed/notifications/{id}',
  repeat: 'safe-then-not-found',
  summary: "Delete one of the calling embed user's subscriptions",
  tableActions: [
    AUTHENTICATION,
    // The notification with its entry.
    'dynamodb:Query',
    // The delete's transaction: the notification, its entry and the link go, the tombstone comes, the count goes down.
    'dynamodb:DeleteItem',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
  ],
  // The list's join, in the same adapter module.
  bundledButNotCalled: ['dynamodb:BatchGetItem'],
} as const satisfies RouteFacts;

export const listSuppressionsRoute = {
  operation: 'list-suppressions',
  method: 'GET',
  path: '/v1/deployments/{deploymentId}/suppressions',
  repeat: 'safe',
  summary: "List a deployment's suppressed e-mail addresses",
  // One page on the deployment's suppressions partition.
  tableActions: [AUTHENTICATION, 'dynamodb:Query'],
} as const satisfies RouteFacts;

export const addSuppressionRoute = {
  operation: 'add-suppression',
  method: 'POST',
  path: '/v1/deployments/{deploymentId}/suppressions',
  repeat: 'safe',
  summary: 'Suppress an e-mail address: no run mails it again',
  // One UpdateItem that keeps a suppression already there and answers the one that stands; when an
  // endpoint wants `suppression.added`, a transaction of it (only if new) and the event's Put.
  tableActions: [AUTHENTICATION, 'dynamodb:UpdateItem', 'dynamodb:PutItem'],
} as const satisfies RouteFacts;

export const removeSuppressionRoute = {
  operation: 'remove-suppression',
  method: 'DELETE',
  path: '/v1/deployments/{deploymentId}/suppressions/{email}',
  repeat: 'safe-then-not-found',
  summary: 'Remove the suppression of an e-mail address',
  // One DeleteItem that answers what it removed (none: 404).
  tableActions: [AUTHENTICATION, 'dynamodb:DeleteItem'],
  ownErrors: ['not_found'],
} as const satisfies RouteFacts;

export const pauseNotificationRoute = {
  operation: 'pause-notification',
  method: 'POST',
  path: '/v1/deployments/{deploymentId}/notifications/{id}/pause',
  repeat: 'safe',
  summary: 'Pause a notification: no scheduled instant fires until `until`, or until resumed',
  tableActions: [
    // The caller; the owner, whose standing the answer states.
    AUTHENTICATION,
    // The notification with its schedule entry (lib/store/notifications/scheduled-notifications.ts).
    'dynamodb:Query',
    // One transaction: the conditional UpdateItem of its hold, a schedule change, its hold entry put or
    // deleted, its audit event and its webhook event (lib/store/governance/hold-writes.ts); the entry's
    // version when its instants stay.
    'dynamodb:UpdateItem',
    // The events; the schedule entry the hold calls for; the hold entry.
    'dynamodb:PutItem',
    'dynamodb:DeleteItem',
  ],
  ownErrors: ['conflict'],
} as const satisfies RouteFacts;

export const resumeNotificationRoute = {
  operation: 'resume-notification',
  method: 'POST',
  path: '/v1/deployments/{deploymentId}/notifications/{id}/resume',
  repeat: 'safe',
  summary: 'Resume a paused or suspended notification: it fires from the next instant after now',
  tableActions: [
    // The caller; the owner, whose standing the answer states.
    AUTHENTICATION,
    // The notification with its schedule entry (lib/store/notifications/scheduled-notifications.ts).
    'dynamodb:Query',
    // One transaction: the conditional UpdateItem of its hold, a schedule change, its hold entry put or
    // deleted, its audit event and its webhook event (lib/store/governance/hold-writes.ts); the entry's
    // version when its instants stay.
    'dynamodb:UpdateItem',
    // The events; the schedule entry the hold calls for; the hold entry.
    'dynamodb:PutItem',
    'dynamodb:DeleteItem',
  ],
  ownErrors: ['conflict'],
} as const satisfies RouteFacts;

export const createWebhookRoute = {
  operation: 'create-webhook',
  method: 'POST',
  path: '/v1/deployments/{deploymentId}/webhooks',
  // A repeat makes a second endpoint with a secret of its own: the list shows whether the first was made.
  repeat: 'look-first',
  summary: 'Create a webhook endpoint (its signing secret is shown this once)',
  // The deployment's endpoints item: one conditional UpdateItem (the limit of ten in its condition).
  tableActions: [AUTHENTICATION, 'dynamodb:UpdateItem'],
  ownErrors: ['conflict'],
} as const satisfies RouteFacts;

export const listWebhooksRoute = {
  operation: 'list-webhooks',
  method: 'GET',
  path: '/v1/deployments/{deploymentId}/webhooks',
  repeat: 'safe',
  summary: "List a deployment's webhook endpoints (no secrets)",
  // The deployment's endpoints item.
  tableActions: [AUTHENTICATION],
} as const satisfies RouteFacts;

export const getWebhookRoute = {
  operation: 'get-webhook',
  method: 'GET',
  path: '/v1/deployments/{deploymentId}/webhooks/{webhookId}',
  repeat: 'safe',
  summary: 'Get a webhook endpoint (no secret)',
  tableActions: [AUTHENTICATION],
} as const satisfies RouteFacts;

export const updateWebhookRoute = {
  operation: 'update-webhook',
  method: 'PATCH',
  path: '/v1/deployments/{deploymentId}/webhooks/{webhookId}',
  repeat: 'safe',
  summary: "Change a webhook endpoint's URL, events, description or status",
  // The endpoints item read, then the endpoint written on condition that it did not change meanwhile.
  tableActions: [AUTHENTICATION, 'dynamodb:UpdateItem'],
  ownErrors: ['conflict'],
} as const satisfies RouteFacts;

export const deleteWebhookRoute = {
  operation: 'delete-webhook',
  method: 'DELETE',
  path: '/v1/deployments/{deploymentId}/webhooks/{webhookId}',
  repeat: 'safe-then-not-found',
  summary: 'Delete a webhook endpoint',
  // The endpoint's attribute removed from the endpoints item.
  tableActions: [AUTHENTICATION, 'dynamodb:UpdateItem'],
} as const satisfies RouteFacts;

export const rotateWebhookSecretRoute = {
  operation: 'rotate-webhook-secret',
  method: 'POST',
  path: '/v1/deployments/{deploymentId}/webhooks/{webhookId}/rotate-secret',
  // A repeat rotates again: the secret the first answer showed would stop signing at once.
  repeat: 'look-first',
  summary: "Rotate a webhook endpoint's signing secret (both sign for 24 hours)",
  tableActions: [AUTHENTICATION, 'dynamodb:UpdateItem'],
  ownErrors: ['conflict'],
} as const satisfies RouteFacts;

export const listWebhookMessagesRoute = {
  operation: 'list-webhook-messages',
  method: 'GET',
  path: '/v1/deployments/{deploymentId}/webhooks/{webhookId}/messages',
  repeat: 'safe',
  summary: "List a webhook endpoint's messages of the last 30 days, newest first",
  // The endpoints item (the 404), then one page of the endpoint's partition.
  tableActions: [AUTHENTICATION, 'dynamodb:Query'],
} as const satisfies RouteFacts;

export const retryWebhookMessageRoute = {
  operation: 'retry-webhook-message',
  method: 'POST',
  path: '/v1/deployments/{deploymentId}/webhooks/{webhookId}/messages/{messageId}/retry',
  repeat: 'safe',
  summary: 'Send a webhook message once more, now',
  // The endpoints item (the 404), then the message made due now.
  tableActions: [AUTHENTICATION, 'dynamodb:UpdateItem'],
} as const satisfies RouteFacts;

export const listNotificationEventsRoute = {
  operation: 'list-notification-events',
  method: 'GET',
  path: '/v1/deployments/{deploymentId}/notifications/{id}/events',
  repeat: 'safe',
  summary: "List a notification's audit events (who changed it, and how), newest first",
  // The notification (404 once deleted); one page of its audit partition.
  tableActions: [AUTHENTICATION, 'dynamodb:Query'],
} as const satisfies RouteFacts;

export const listDeploymentEventsRoute = {
  operation: 'list-deployment-events',
  method: 'GET',
  path: '/v1/deployments/{deploymentId}/events',
  repeat: 'safe',
  summary: "List a deployment's audit events, deleted notifications' included, newest first",
  // One page of the deployment's events index, or of one notification's audit partition.
  tableActions: [AUTHENTICATION, 'dynamodb:Query'],
} as const satisfies RouteFacts;

/** Every route, in the order the local adapter matches them and the API description lists them. */
export const routes = [
  updateNotificationRoute,
  addRecipientsRoute,
  setDashboardEmbeddingRoute,
  getEmbeddedDashboardRoute,
  sendNotificationRoute,
  listRunsRoute,
  listDeliveriesRoute,
  listNotificationsRoute,
  createNotificationRoute,
  getNotificationRoute,
  deleteNotificationRoute,
  listRecipientsRoute,
  removeRecipientsRoute,
  getApiSpecRoute,
  retryRunRoute,
  reportDeliveryOutcomeRoute,
  previewScheduleRoute,
  unsubscribeRoute,
  getUnsubscribePageRoute,
  configureEmbedTenantRoute,
  listEmbedNotificationsRoute,
  createEmbedNotificationRoute,
  getEmbedNotificationRoute,
  updateEmbedNotificationRoute,
  deleteEmbedNotificationRoute,
  listSuppressionsRoute,
  addSuppressionRoute,
  removeSuppressionRoute,
  pauseNotificationRoute,
  resumeNotificationRoute,
  createWebhookRoute,
  listWebhooksRoute,
  getWebhookRoute,
  updateWebhookRoute,
  deleteWebhookRoute,
  rotateWebhookSecretRoute,
  listWebhookMessagesRoute,
  retryWebhookMessageRoute,
  listNotificationEventsRoute,
  listDeploymentEventsRoute,
] as const;

export type Route = (typeof routes)[number];
export type Operation = Route['operation'];

/** `PUT /v1/...`: API Gateway's name for a route, also the event's `routeKey`. */
export const routeKey = (route: Pick<RouteFacts, 'method' | 'path'>) => `${route.method} ${route.path}`;
