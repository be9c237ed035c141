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
  | 'dynamodb:Query'
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:BatchWriteItem';

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
}

/**
 * Every request authenticates first: an API key or console subject resolves through a link item to
 * the user item, an embed token through its tenant item (lib/store/users.ts), all single GetItems.
 */
const AUTHENTICATION: readonly TableAction[] = ['dynamodb:GetItem'];

export const operationSettings = {
  'update-notification': {
    // One conditional UpdateItem; a GetItem only for an empty body or a refused schedule change (lib/store/notifications.ts).
    tableActions: [...AUTHENTICATION, 'dynamodb:UpdateItem'],
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
      // The notification, its dashboard link and the dashboard.
      ...AUTHENTICATION,
      // The run, created only if its id is new.
      'dynamodb:PutItem',
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
} as const satisfies Record<Operation, OperationSettings>;
