/**
 * Every key shape of the single table: the index keys here, the items' own keys in item-keys.ts. A key is `pk` + `sk`; free-text parts are
 * percent-encoded so that a `#` inside a name cannot collide with the separator. The access pattern
 * each one serves is listed in docs/data-model.md.
 */

export type Key = { pk: string; sk: string };

/**
 * A free-text part as it appears in a key. Callers pass only text that `fitsKeyPart` (lib/limits.ts) accepts:
 * text that is not well-formed Unicode cannot be encoded (encodeURIComponent throws).
 */
export const part = (value: string) => encodeURIComponent(value);

export const notificationPartition = (deploymentId: number, notificationId: number) =>
  `DEPLOYMENT#${deploymentId}#NOTIFICATION#${notificationId}`;

/** The notification item and its schedule entry both start with it: one Query reads the pair. */
export const NOTIFICATION_ITEMS_PREFIX = 'NOTIFICATION';
export const RECIPIENT_PREFIX = 'RECIPIENT#';
export const RUN_PREFIX = 'RUN#';
export const deliveryPrefix = (runId: string) => `DELIVERY#${runId}#`;

/** A secondary index: its name and its two key attributes, `<name>pk` and `<name>sk`. */
export interface SecondaryIndex {
  name: string;
  partitionKey: string;
  sortKey: string;
}
const secondaryIndex = <N extends string>(name: N) =>
  ({ name, partitionKey: `${name}pk`, sortKey: `${name}sk` }) as const satisfies SecondaryIndex;

/** The four sparse global secondary indexes, the one place their names are written. */
export const indexes = {
  gsi1: secondaryIndex('gsi1'),
  gsi2: secondaryIndex('gsi2'),
  gsi3: secondaryIndex('gsi3'),
  gsi4: secondaryIndex('gsi4'),
};

/**
 * The scheduler's due index (gsi3): enabled notifications by their next firing instant, and runs in
 * progress by the end of their lease. Sharded so that no index partition takes every write of a busy
 * minute; a pass reads every shard.
 */
export const DUE_INDEX = indexes.gsi3;
/** 64: the worst minute of the scale model (docs/scheduling.md) fires each shard within the minute at its partition's pace. Raise, never lower. */
export const DUE_INDEX_SHARDS = 64;

/** A stable small hash of the notification's identity: its runs share its shard. */
function dueShard(deploymentId: number, notificationId: number): number {
  let hash = 0;
  for (const char of `${deploymentId}#${notificationId}`) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash % DUE_INDEX_SHARDS;
}

export const dueIndexKeys = {
  shard: (shard: number) => `DUE#${shard}`,
  /** The instant an entry is due at (epoch ms): its sort key starts with it. */
  instantOf: (sortKey: string) => Date.parse(sortKey.slice(0, sortKey.indexOf('#'))),
  /** Everything in a shard due at or before `instant` sorts below this bound. */
  dueBound: (instant: number) => new Date(instant + 1).toISOString(),
  notification: (deploymentId: number, notificationId: number, instant: number) => ({
    gsi3pk: `DUE#${dueShard(deploymentId, notificationId)}`,
    gsi3sk: `${new Date(instant).toISOString()}#NOTIFICATION#${deploymentId}#${notificationId}`,
  }),
  run: (deploymentId: number, notificationId: number, runId: string, leaseUntil: number) => ({
    gsi3pk: `DUE#${dueShard(deploymentId, notificationId)}`,
    gsi3sk: `${new Date(leaseUntil).toISOString()}#RUN#${deploymentId}#${notificationId}#${runId}`,
  }),
};

/** Where runs awaiting outcomes were kept before they were sharded: still read, never written. */
const AWAITING_OUTCOMES_UNSHARDED = 'AWAITING_OUTCOMES';

/**
 * Runs awaiting outcomes, in the due index (gsi3) under partitions of their own, by the time they
 * were dispatched: the runs stuck there longest are the first entries. A run leaves it when its last
 * outcome comes in. No pass of the dispatcher reads these partitions as due work. Sharded as the due
 * entries are: every fire's finish writes one entry here, and one partition would take a busy
 * minute's every finish, past the 1,000 writes a second a partition takes; a shard's takes the
 * pace of its due shard's fires.
 */
export const awaitingOutcomesIndex = {
  partitions: () => [
    ...Array.from({ length: DUE_INDEX_SHARDS }, (_, shard) => `${AWAITING_OUTCOMES_UNSHARDED}#${shard}`),
    AWAITING_OUTCOMES_UNSHARDED,
  ],
  run: (deploymentId: number, notificationId: number, runId: string, since: number) => ({
    gsi3pk: `${AWAITING_OUTCOMES_UNSHARDED}#${dueShard(deploymentId, notificationId)}`,
    gsi3sk: `${new Date(since).toISOString()}#RUN#${deploymentId}#${notificationId}#${runId}`,
  }),
  /** Entries dispatched before `instant` sort below this bound. */
  before: (instant: number) => new Date(instant).toISOString(),
};

/** Index attributes of the sparse global secondary indexes the lists read; an item without them is in none. */
export type IndexKeys = Partial<
  Record<'gsi1pk' | 'gsi1sk' | 'gsi2pk' | 'gsi2sk' | 'gsi4pk' | 'gsi4sk', string>
>;

/**
 * What each index copies of an item. gsi4 serves only a list whose rows are joined to their
 * notifications by key, so its entries hold keys alone: small, whatever the row's properties weigh.
 */
export const indexProjections: Record<keyof typeof indexes, 'ALL' | 'KEYS_ONLY'> = {
  gsi1: 'ALL',
  gsi2: 'ALL',
  gsi3: 'ALL',
  gsi4: 'KEYS_ONLY',
};

/**
 * Notification ids in a sort key: zero-padded to the 15 digits a path id may have, so that the
 * string order is the numeric order. Ids only grow, so the highest id is the newest notification.
 */
const ID_DIGITS = 15;
export const sortableId = (id: number) => String(id).padStart(ID_DIGITS, '0');
const sortableIdShape = new RegExp(`^[0-9]{${ID_DIGITS}}$`);

/** A notification as its recipient rows' index entries name it: its dashboard never changes. */
export interface NotificationOnDashboard {
  deploymentId: number;
  id: number;
  dashboardId: number;
}

/** A recipient as the per-deployment recipient index names it: console users by id, embed users by id. */
export type RecipientIdentity =
  | { type: 'USER'; userId: number }
  | { type: 'EMBED_USER'; embedUserId: number };
const recipientIdentityPart = (identity: RecipientIdentity) =>
  identity.type === 'USER' ? `USER#${identity.userId}` : `EMBED_USER#${identity.embedUserId}`;

const recipientSortKey = (subscribedAt: string, rowSk: string) => `${subscribedAt}#${rowSk}`;

/** The index partitions, each a list the API serves (docs/data-model.md lists them). */
export const indexPartitions = {
  /** gsi1: the notifications of a deployment. */
  notificationsOfDeployment: (deploymentId: number) => `DEPLOYMENT#${deploymentId}#NOTIFICATIONS`,
  /** gsi2: the notifications of a dashboard. */
  notificationsOfDashboard: (deploymentId: number, dashboardId: number) =>
    `DEPLOYMENT#${deploymentId}#DASHBOARD#${dashboardId}#NOTIFICATIONS`,
  /** gsi2: the recipient rows of one recipient in a deployment, one per notification. */
  notificationsOfRecipient: (deploymentId: number, identity: RecipientIdentity) =>
    `DEPLOYMENT#${deploymentId}#RECIPIENT#${recipientIdentityPart(identity)}#NOTIFICATIONS`,
  /** gsi1: the tombstones of deleted notifications whose partitions are still being emptied. */
  purges: () => 'PURGES',
  /**
   * gsi4: the recipient rows of one recipient in a deployment whose notification is on one dashboard
   * (a notification's dashboard never changes): the recipient and dashboard filters together.
   */
  notificationsOfRecipientOnDashboard: (
    deploymentId: number,
    identity: RecipientIdentity,
    dashboardId: number,
  ) =>
    `DEPLOYMENT#${deploymentId}#DASHBOARD#${dashboardId}#RECIPIENT#${recipientIdentityPart(identity)}#NOTIFICATIONS`,
  /** gsi1: the recipient rows of a notification. */
  recipientsOfNotification: (deploymentId: number, notificationId: number) =>
    `${notificationPartition(deploymentId, notificationId)}#RECIPIENTS`,
  /** gsi1: the failed deliveries of a run, and only those: what a retry queues again. */
  failedDeliveriesOfRun: (deploymentId: number, notificationId: number, runId: string) =>
    `${notificationPartition(deploymentId, notificationId)}#RUN#${runId}#FAILED`,
};

/** A recipient row's gsi4 entry: by recipient and its notification's dashboard. */
const recipientOnDashboardKeys = (
  notification: NotificationOnDashboard,
  identity: RecipientIdentity,
): IndexKeys => ({
  gsi4pk: indexPartitions.notificationsOfRecipientOnDashboard(
    notification.deploymentId,
    identity,
    notification.dashboardId,
  ),
  gsi4sk: sortableId(notification.id),
});

/**
 * The index entries of each item kind. gsi1: children of a parent, newest first. gsi2 and gsi4: the
 * filtered lists. Sort keys are fixed at creation (ids, subscription instants), so keyset paging is stable.
 */
export const indexKeys = {
  notification: (deploymentId: number, notificationId: number, dashboardId: number): IndexKeys => ({
    gsi1pk: indexPartitions.notificationsOfDeployment(deploymentId),
    gsi1sk: sortableId(notificationId),
    gsi2pk: indexPartitions.notificationsOfDashboard(deploymentId, dashboardId),
    gsi2sk: sortableId(notificationId),
  }),
  /** A failed delivery, by its id; the entry goes when the delivery leaves `failed`. */
  failedDelivery: (deploymentId: number, notificationId: number, runId: string, deliveryId: string) => ({
    gsi1pk: indexPartitions.failedDeliveriesOfRun(deploymentId, notificationId, runId),
    gsi1sk: deliveryId,
  }),
  /** Tombstones sort by the instant of the delete: the oldest purge is worked on first. */
  purge: (deploymentId: number, notificationId: number, deletedAt: string): IndexKeys => ({
    gsi1pk: indexPartitions.purges(),
    gsi1sk: `${deletedAt}#${deploymentId}#${notificationId}`,
  }),
  /** Rows of a recipient sort by subscription instant, then by the row's own key (unique in the partition). */
  recipient: (
    notification: NotificationOnDashboard,
    identity: RecipientIdentity,
    subscribedAt: string,
    rowSk: string,
  ): IndexKeys => ({
    gsi1pk: indexPartitions.recipientsOfNotification(notification.deploymentId, notification.id),
    gsi1sk: recipientSortKey(subscribedAt, rowSk),
    gsi2pk: indexPartitions.notificationsOfRecipient(notification.deploymentId, identity),
    gsi2sk: sortableId(notification.id),
    ...recipientOnDashboardKeys(notification, identity),
  }),
  recipientOnDashboard: recipientOnDashboardKeys,
};

/** Whether `value` is a recipient row's gsi1 sort key: a subscription instant, then the row's sort key. */
export const isRecipientSortKey = (value: string) =>
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#RECIPIENT#.+$/.test(value);

/** The row's own sort key in a recipient row's gsi1 sort key (one `isRecipientSortKey` accepts): past the instant and its `#`. */
export const rowSkOfRecipientSortKey = (value: string) => value.slice('2026-01-01T00:00:00.000Z#'.length);

export const isSortableId = (value: string) => sortableIdShape.test(value);

/** The notification a partition key of a notification's partition names, or undefined. */
export function parseNotificationPartition(pk: string): { deploymentId: number; id: number } | undefined {
  const match = /^DEPLOYMENT#(\d+)#NOTIFICATION#(\d+)$/.exec(pk);
  return match ? { deploymentId: Number(match[1]), id: Number(match[2]) } : undefined;
}

/** The table's physical shape, shared by the local runtime, the tests and the CDK stack. */
export const tableKeySchema = {
  partitionKey: 'pk',
  sortKey: 'sk',
} as const;
