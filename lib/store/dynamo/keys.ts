/**
 * The single table's index names, its due index and the parts every key shares; the items' own keys
 * are in item-keys.ts, the list indexes' keys in index-keys.ts. A key is `pk` + `sk`; free-text parts are
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

/** 2^32 / φ, odd: Fibonacci hashing's multiplier. */
const FIBONACCI_MULTIPLIER = 0x9e3779b9;
/** Another odd 32-bit mixer (MurmurHash3's), so that a deployment shifts where its ids start. */
const DEPLOYMENT_MIXER = 0x85ebca6b;

/**
 * A notification's due-index shard (its runs share it): Fibonacci hashing of its identity, the
 * fractional part of key × 2^32/φ scaled to the shards. Notification ids come from one counter, so
 * the notifications of a busy minute are mostly runs of consecutive ids, and consecutive keys land
 * evenly (10,000 of them over 64 shards: 155 to 158 each, where the string hash this replaces gave
 * 10 to 340); other sets of ids spread as a good hash spreads them. Stored entries keep the shard
 * they were written with: a pass reads every shard, so an entry is found wherever it is, and it takes
 * this shard at its next move (`npm run migrate` moves the waiting ones at once).
 */
export function dueShard(deploymentId: number, notificationId: number): number {
  // Ids reach 15 digits: the bits above 32 are folded in with the deployment.
  const high = Math.floor(notificationId / 2 ** 32);
  const key = ((notificationId >>> 0) + Math.imul(deploymentId ^ high, DEPLOYMENT_MIXER)) >>> 0;
  const fraction = (Math.imul(key, FIBONACCI_MULTIPLIER) >>> 0) / 2 ** 32;
  return Math.floor(fraction * DUE_INDEX_SHARDS);
}

export const dueIndexKeys = {
  shard: (shard: number) => `DUE#${shard}`,
  /** The shard a due partition key names. */
  shardOf: (partition: string) => Number(partition.slice('DUE#'.length)),
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

/**
 * The attribute DynamoDB's TTL reads (epoch seconds): idempotency records, runs and deliveries expire
 * on their own.
 */
export const TIME_TO_LIVE_ATTRIBUTE = 'expiresAt';
