/**
 * Every key shape of the single table, in one place. A key is `pk` + `sk`; free-text parts are
 * percent-encoded so that a `#` inside a name cannot collide with the separator. The access pattern
 * each one serves is listed in docs/data-model.md.
 */

import { dynamoDbLimits } from '#lib/store/limits';

export type Key = { pk: string; sk: string };

/**
 * A free-text part as it appears in a key. Callers pass only text that `fitsKeyPart` accepts:
 * text that is not well-formed Unicode cannot be encoded (encodeURIComponent throws).
 */
const part = (value: string) => encodeURIComponent(value);

const notificationPartition = (deploymentId: number, notificationId: number) =>
  `DEPLOYMENT#${deploymentId}#NOTIFICATION#${notificationId}`;

export const RECIPIENT_PREFIX = 'RECIPIENT#';
export const RUN_PREFIX = 'RUN#';
const deliveryPrefix = (runId: string) => `DELIVERY#${runId}#`;

/**
 * The scheduler's due index (gsi3): enabled notifications by their next firing instant, and runs in
 * progress by the end of their lease. Sharded so that no index partition takes every write of a busy
 * minute; a pass reads every shard.
 */
export const DUE_INDEX = {
  name: 'gsi3',
  partitionKey: 'gsi3pk',
  sortKey: 'gsi3sk',
  /** The entry a schedule change set, kept until a pass moves it on: the same change again sets the same entry. */
  changedSortKey: 'gsi3changed',
} as const;
export const DUE_INDEX_SHARDS = 16;

/** The shards split into `groups` disjoint sets, one per concurrent dispatcher invocation. */
export const dueShardGroups = (groups: number): number[][] =>
  Array.from({ length: groups }, (_, group) =>
    Array.from({ length: DUE_INDEX_SHARDS }, (_, shard) => shard).filter((shard) => shard % groups === group),
  );

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

export const keys = {
  deployment: (deploymentId: number): Key => ({ pk: `DEPLOYMENT#${deploymentId}`, sk: 'DEPLOYMENT' }),

  /** The notification shares its partition with its recipients: one Query reads both. */
  notification: (deploymentId: number, notificationId: number): Key => ({
    pk: notificationPartition(deploymentId, notificationId),
    sk: 'NOTIFICATION',
  }),
  notificationPartition,
  userRecipient: (deploymentId: number, notificationId: number, userId: number): Key => ({
    pk: notificationPartition(deploymentId, notificationId),
    sk: `${RECIPIENT_PREFIX}USER#${userId}`,
  }),
  /** Keyed by tenant and normalized externalId, so the key is known before the embed user is resolved. */
  embedRecipient: (
    deploymentId: number,
    notificationId: number,
    tenantName: string,
    normalizedExternalId: string,
  ): Key => ({
    pk: notificationPartition(deploymentId, notificationId),
    sk: `${RECIPIENT_PREFIX}EMBED_USER#${part(tenantName)}#${part(normalizedExternalId)}`,
  }),

  user: (userId: number): Key => ({ pk: `USER#${userId}`, sk: 'USER' }),
  userByEmail: (email: string): Key => ({ pk: `USER_EMAIL#${part(email.toLowerCase())}`, sk: 'USER_EMAIL' }),
  userBySubject: (subject: string): Key => ({ pk: `USER_SUBJECT#${part(subject)}`, sk: 'USER_SUBJECT' }),
  apiKey: (sha256Hex: string): Key => ({ pk: `API_KEY#${sha256Hex}`, sk: 'API_KEY' }),

  dashboard: (publicId: string): Key => ({ pk: `DASHBOARD#${part(publicId)}`, sk: 'DASHBOARD' }),

  embedTenant: (tenantName: string): Key => ({ pk: `EMBED_TENANT#${part(tenantName)}`, sk: 'EMBED_TENANT' }),
  embedUser: (tenantName: string, normalizedExternalId: string): Key => ({
    pk: `EMBED_USER#${part(tenantName)}#${part(normalizedExternalId)}`,
    sk: 'EMBED_USER',
  }),

  /** Dashboards by their integer id, per deployment: a link to the `publicId` that keys the dashboard. */
  dashboardById: (deploymentId: number, dashboardId: number): Key => ({
    pk: `DEPLOYMENT#${deploymentId}#DASHBOARD#${dashboardId}`,
    sk: 'DASHBOARD_LINK',
  }),

  /**
   * A run and its deliveries live in their notification's partition, so deleting the partition
   * deletes them. A run id starts with its instant, so runs sort by it; deliveries sort by recipient.
   */
  run: (deploymentId: number, notificationId: number, runId: string): Key => ({
    pk: notificationPartition(deploymentId, notificationId),
    sk: `${RUN_PREFIX}${runId}`,
  }),
  delivery: (deploymentId: number, notificationId: number, runId: string, recipientSk: string): Key => ({
    pk: notificationPartition(deploymentId, notificationId),
    sk: `${deliveryPrefix(runId)}${recipientSk.slice(RECIPIENT_PREFIX.length)}`,
  }),
  deliveryPrefix,

  /** Integer id sequences (`embedUser`, …): one item per sequence, advanced with an atomic ADD. */
  counter: (sequence: string): Key => ({ pk: `COUNTER#${sequence}`, sk: 'COUNTER' }),
};

/** The fixed text around the two free-text parts of the longest sort key (an embed recipient's). */
const embedRecipientKeyOverhead = keys.embedRecipient(0, 0, '', '').sk.length;

/**
 * The most bytes one free-text part (tenant name, externalId, e-mail, subject) may take once
 * percent-encoded: two of them fill an embed recipient's sort key up to DynamoDB's 1024 bytes,
 * and every other key that holds them is a partition key (2048 bytes) with less around them.
 */
export const KEY_PART_MAX_BYTES = Math.floor((dynamoDbLimits.sortKeyBytes - embedRecipientKeyOverhead) / 2);

/** Key parts with a limit of their own, in characters; each well within KEY_PART_MAX_BYTES. */
export const keyPartLimits = {
  /** A dashboard's publicId: URL-safe, so encoded the same. */
  publicId: 128,
} as const;

/** Whether `value` can be a free-text key part: well-formed (else it cannot be encoded) and at most KEY_PART_MAX_BYTES encoded. */
export const fitsKeyPart = (value: string): boolean =>
  value.isWellFormed() && encodeURIComponent(value).length <= KEY_PART_MAX_BYTES;

/** The table's physical shape, shared by the local runtime, the tests and the CDK stack. */
export const tableKeySchema = {
  partitionKey: 'pk',
  sortKey: 'sk',
} as const;
