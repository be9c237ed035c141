import type { Operation } from '#lib/routes';
import { functionTimeoutSeconds } from '#lib/timeouts';

/**
 * What each operation's function needs from AWS, read off its code paths. The stack grants exactly
 * these table actions and nothing else; `npm run invoke` reads the timeouts. Kept free of CDK
 * imports so that scripts can read it cheaply.
 */

export type TableAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:PutItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:Query'
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:BatchWriteItem'
  | 'dynamodb:ConditionCheckItem';

export interface OperationSettings {
  tableActions: readonly TableAction[];
  /**
   * Actions whose calls ship in the bundle (a repository object is bundled whole) but lie on no path
   * of this operation: deliberately not granted. test/cdk/table-actions.test.ts holds both lists to
   * the bundle.
   */
  bundledButNotCalled?: readonly TableAction[];
  timeoutSeconds: number;
  memoryMiB: number;
  /** Reads the stage's unsubscribe signing key (Secrets Manager, through the extension): it signs or checks unsubscribe links. */
  readsUnsubscribeKey?: boolean;
}

/**
 * Every request authenticates first: an API key or console subject resolves through a link item to
 * the user item, an embed token through its tenant item (lib/store/users.ts), all single GetItems.
 */
const AUTHENTICATION: readonly TableAction[] = ['dynamodb:GetItem'];

export const operationSettings = {
  'update-notification': {
    tableActions: [
      // The schedule entry beside an update of other fields (lib/store/notifications.ts).
      ...AUTHENTICATION,
      // One conditional UpdateItem of the notification, no read first.
      'dynamodb:UpdateItem',
      // A schedule change's new state: its schedule entry (lib/store/scheduled-notifications.ts).
      'dynamodb:PutItem',
      // The notification with its entry, for an empty body or a refused schedule change.
      'dynamodb:Query',
    ],
    timeoutSeconds: functionTimeoutSeconds['update-notification'],
    memoryMiB: 1024,
  },
  'add-recipients': {
    tableActions: [
      ...AUTHENTICATION,
      // The notification, the request's own recipient rows, users, e-mail links, tenants, embed users by key.
      'dynamodb:BatchGetItem',
      // The id counter (also GetItem, as authentication), reserved with ADD or advanced in a transaction;
      // changed properties of recipient rows.
      'dynamodb:UpdateItem',
      // TransactWriteItems has no IAM action of its own: each Put in it is authorized as a PutItem. Also
      // the conditional puts of new recipient rows.
      'dynamodb:PutItem',
    ],
    timeoutSeconds: functionTimeoutSeconds['add-recipients'],
    memoryMiB: 1024,
  },
  'set-dashboard-embedding': {
    // One conditional UpdateItem on the dashboard, no read first (lib/store/dashboards.ts).
    tableActions: [...AUTHENTICATION, 'dynamodb:UpdateItem'],
    timeoutSeconds: functionTimeoutSeconds['set-dashboard-embedding'],
    memoryMiB: 1024,
  },
  'get-embedded-dashboard': {
    // The dashboard by its public id.
    tableActions: [...AUTHENTICATION],
    // dashboardRepository.setAllowEmbed, the PATCH's write.
    bundledButNotCalled: ['dynamodb:UpdateItem'],
    timeoutSeconds: functionTimeoutSeconds['get-embedded-dashboard'],
    memoryMiB: 1024,
  },
  'send-notification': {
    tableActions: [
      // The notification, its dashboard link and the dashboard; the last send-now.
      ...AUTHENTICATION,
      // The run and the send-now marker, in one transaction (lib/store/send-now.ts).
      'dynamodb:PutItem',
      // In that transaction: the notification still exists, the previous send-now's run is done.
      'dynamodb:ConditionCheckItem',
      // The recipients, a page at a time, on the notification's partition.
      'dynamodb:Query',
      // Console users of a page by key.
      'dynamodb:BatchGetItem',
      // The deliveries of a page.
      'dynamodb:BatchWriteItem',
      // The run's progress, lease and end (lib/store/runs.ts).
      'dynamodb:UpdateItem',
    ],
    timeoutSeconds: functionTimeoutSeconds['send-notification'],
    memoryMiB: 1024,
    readsUnsubscribeKey: true,
  },
  'list-runs': {
    // One page on the notification's partition; the notification for the 404 of an empty page.
    tableActions: [...AUTHENTICATION, 'dynamodb:Query'],
    timeoutSeconds: functionTimeoutSeconds['list-runs'],
    memoryMiB: 1024,
  },
  'list-deliveries': {
    // One page on the notification's partition; the notification and the run for the 404 of an empty page.
    tableActions: [...AUTHENTICATION, 'dynamodb:Query'],
    timeoutSeconds: functionTimeoutSeconds['list-deliveries'],
    memoryMiB: 1024,
  },
  'list-notifications': {
    tableActions: [
      // The dashboard by public id, the user by e-mail or the embed user: the filter's one lookup.
      ...AUTHENTICATION,
      // One page: one Query on gsi1 or gsi2.
      'dynamodb:Query',
      // The page's schedule entries; with a recipient filter, the page's notifications, by key.
      'dynamodb:BatchGetItem',
    ],
    timeoutSeconds: functionTimeoutSeconds['list-notifications'],
    memoryMiB: 1024,
  },
  'create-notification': {
    tableActions: [
      // The dashboard (or its link by id); an Idempotency-Key record already there.
      ...AUTHENTICATION,
      // The id counter's ADD; taking over an abandoned key; marking the key done (in the transaction).
      'dynamodb:UpdateItem',
      // The key's record; the notification and its schedule entry (in the transaction).
      'dynamodb:PutItem',
    ],
    timeoutSeconds: functionTimeoutSeconds['create-notification'],
    memoryMiB: 1024,
  },
  'get-notification': {
    // The notification and its schedule entry, in one Query of their shared key prefix.
    tableActions: [...AUTHENTICATION, 'dynamodb:Query'],
    timeoutSeconds: functionTimeoutSeconds['get-notification'],
    memoryMiB: 1024,
  },
  'delete-notification': {
    tableActions: [
      ...AUTHENTICATION,
      // One transaction: the notification item and its schedule entry go, its tombstone comes (the purge
      // does the rest).
      'dynamodb:DeleteItem',
      'dynamodb:PutItem',
    ],
    timeoutSeconds: functionTimeoutSeconds['delete-notification'],
    memoryMiB: 1024,
  },
  'list-recipients': {
    tableActions: [
      // The notification (the 404).
      ...AUTHENTICATION,
      // One page on gsi1; the console users' e-mail and username by key.
      'dynamodb:Query',
      'dynamodb:BatchGetItem',
    ],
    timeoutSeconds: functionTimeoutSeconds['list-recipients'],
    memoryMiB: 1024,
  },
  'remove-recipients': {
    tableActions: [
      // The notification (the 404).
      ...AUTHENTICATION,
      // An embed recipient's row found by its embed user id on gsi2.
      'dynamodb:Query',
      // The rows, 25 per call.
      'dynamodb:BatchWriteItem',
    ],
    timeoutSeconds: functionTimeoutSeconds['remove-recipients'],
    memoryMiB: 1024,
  },
  'get-api-spec': {
    // A document built into the bundle: no table access at all (a public route bundles no credential store).
    tableActions: [],
    timeoutSeconds: functionTimeoutSeconds['get-api-spec'],
    memoryMiB: 1024,
  },
  'retry-run': {
    tableActions: [
      // The run, the notification, its dashboard link and the dashboard.
      ...AUTHENTICATION,
      // The run's failed deliveries on gsi1, a page at a time.
      'dynamodb:Query',
      // Embed recipients' rows, for the properties their jobs carry.
      'dynamodb:BatchGetItem',
      // The deliveries and the run's counts: UpdateItems inside TransactWriteItems.
      'dynamodb:UpdateItem',
    ],
    timeoutSeconds: functionTimeoutSeconds['retry-run'],
    memoryMiB: 1024,
    readsUnsubscribeKey: true,
  },
  'report-delivery-outcome': {
    // The delivery and the run (GetItem); both updated in one transaction, the run's status settled after.
    tableActions: [...AUTHENTICATION, 'dynamodb:UpdateItem'],
    timeoutSeconds: functionTimeoutSeconds['report-delivery-outcome'],
    memoryMiB: 1024,
  },
  'preview-schedule': {
    // Nothing is read or stored but the caller's credential.
    tableActions: [...AUTHENTICATION],
    timeoutSeconds: functionTimeoutSeconds['preview-schedule'],
    memoryMiB: 1024,
  },
  unsubscribe: {
    // The recipient row, deleted by its key; a public route bundles no authenticator.
    tableActions: ['dynamodb:DeleteItem'],
    timeoutSeconds: functionTimeoutSeconds.unsubscribe,
    memoryMiB: 1024,
    readsUnsubscribeKey: true,
  },
  'get-unsubscribe-page': {
    // The token is checked with the key alone: no table access.
    tableActions: [],
    timeoutSeconds: functionTimeoutSeconds['get-unsubscribe-page'],
    memoryMiB: 1024,
    readsUnsubscribeKey: true,
  },
} as const satisfies Record<Operation, OperationSettings>;
