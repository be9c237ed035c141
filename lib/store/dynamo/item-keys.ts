import {
  deliveryPrefix,
  type Key,
  NOTIFICATION_ITEMS_PREFIX,
  notificationPartition,
  part,
  RECIPIENT_PREFIX,
  RUN_PREFIX,
  sortableId,
} from '#lib/store/dynamo/keys';

/**
 * The key of each item kind of the single table (the index keys are in keys.ts). Imported as a
 * namespace, `import * as keys from '#lib/store/dynamo/item-keys'`, so that a function bundles only the key
 * shapes it uses. The access pattern each one serves is listed in docs/data-model.md.
 */

export { deliveryPrefix, notificationPartition };

export const deployment = (deploymentId: number): Key => ({
  pk: `DEPLOYMENT#${deploymentId}`,
  sk: 'DEPLOYMENT',
});

/** The notification shares its partition with its recipients: one Query reads both. */
export const notification = (deploymentId: number, notificationId: number): Key => ({
  pk: notificationPartition(deploymentId, notificationId),
  sk: NOTIFICATION_ITEMS_PREFIX,
});
/**
 * The notification's schedule entry: its upcoming instants and its due-index entry, the state the
 * dispatcher moves at each instant. Kept apart from the notification item so that a fire never
 * rewrites that item, nor its copies in the list indexes.
 */
export const scheduleEntry = (deploymentId: number, notificationId: number): Key => ({
  pk: notificationPartition(deploymentId, notificationId),
  sk: `${NOTIFICATION_ITEMS_PREFIX}#SCHEDULE`,
});
/**
 * The notification's hold entry, there while a pause or a suspension holds it: its entries in the
 * status lists. Outside the `NOTIFICATION` prefix, so the read of the item and its schedule entry
 * does not read it; a delete's sweep of the partition takes it away.
 */
export const holdEntry = (deploymentId: number, notificationId: number): Key => ({
  pk: notificationPartition(deploymentId, notificationId),
  sk: 'HOLD',
});
export const userRecipient = (deploymentId: number, notificationId: number, userId: number): Key => ({
  pk: notificationPartition(deploymentId, notificationId),
  sk: `${RECIPIENT_PREFIX}USER#${userId}`,
});
/** Keyed by tenant and normalized externalId, so the key is known before the embed user is resolved. */
export const embedRecipient = (
  deploymentId: number,
  notificationId: number,
  tenantName: string,
  normalizedExternalId: string,
): Key => ({
  pk: notificationPartition(deploymentId, notificationId),
  sk: `${RECIPIENT_PREFIX}EMBED_USER#${part(tenantName)}#${part(normalizedExternalId)}`,
});

export const user = (userId: number): Key => ({ pk: `USER#${userId}`, sk: 'USER' });
export const userByEmail = (email: string): Key => ({
  pk: `USER_EMAIL#${part(email.toLowerCase())}`,
  sk: 'USER_EMAIL',
});
export const userBySubject = (subject: string): Key => ({
  pk: `USER_SUBJECT#${part(subject)}`,
  sk: 'USER_SUBJECT',
});
export const apiKey = (sha256Hex: string): Key => ({ pk: `API_KEY#${sha256Hex}`, sk: 'API_KEY' });

export const dashboard = (publicId: string): Key => ({ pk: `DASHBOARD#${part(publicId)}`, sk: 'DASHBOARD' });

export const embedTenant = (tenantName: string): Key => ({
  pk: `EMBED_TENANT#${part(tenantName)}`,
  sk: 'EMBED_TENANT',
});
const embedUserPartition = (tenantName: string, normalizedExternalId: string) =>
  `EMBED_USER#${part(tenantName)}#${part(normalizedExternalId)}`;
export const embedUser = (tenantName: string, normalizedExternalId: string): Key => ({
  pk: embedUserPartition(tenantName, normalizedExternalId),
  sk: 'EMBED_USER',
});

/** Dashboards by their integer id, per deployment: a link to the `publicId` that keys the dashboard. */
export const dashboardById = (deploymentId: number, dashboardId: number): Key => ({
  pk: `DEPLOYMENT#${deploymentId}#DASHBOARD#${dashboardId}`,
  sk: 'DASHBOARD_LINK',
});

/**
 * A run and its deliveries live in their notification's partition, so deleting the partition
 * deletes them. A run id starts with its instant, so runs sort by it; deliveries by their id.
 */
export const run = (deploymentId: number, notificationId: number, runId: string): Key => ({
  pk: notificationPartition(deploymentId, notificationId),
  sk: `${RUN_PREFIX}${runId}`,
});
/** Keyed by the delivery's id (which the job id ends with), so an outcome report finds it with one read. */
export const delivery = (
  deploymentId: number,
  notificationId: number,
  runId: string,
  deliveryId: string,
): Key => ({
  pk: notificationPartition(deploymentId, notificationId),
  sk: `${deliveryPrefix(runId)}${deliveryId}`,
});
/**
 * The notification's latest send-now (its time and run): a small item of its own beside the
 * notification, so that the limit's conditional write neither rewrites the notification item (and
 * its list-index copies) nor races the writes of its schedule.
 */
export const sendNowMarker = (deploymentId: number, notificationId: number): Key => ({
  pk: notificationPartition(deploymentId, notificationId),
  sk: 'SEND_NOW',
});
/** A create's Idempotency-Key, scoped to the deployment and the caller. */
export const idempotencyRecord = (deploymentId: number, caller: string, key: string): Key => ({
  pk: `DEPLOYMENT#${deploymentId}#IDEMPOTENCY#${part(caller)}#${part(key)}`,
  sk: 'IDEMPOTENCY',
});

/**
 * A deleted notification whose partition is still being emptied (its tombstone): outside that
 * partition, so the partition can be emptied to the last item.
 */
export const purge = (deploymentId: number, notificationId: number): Key => ({
  pk: `PURGE#${deploymentId}#${notificationId}`,
  sk: 'PURGE',
});

/** Integer id sequences (`embedUser`, …): one item per sequence, advanced with an atomic ADD. */
export const counter = (sequence: string): Key => ({ pk: `COUNTER#${sequence}`, sk: 'COUNTER' });

/**
 * An embed user's self-service subscriptions, in the embed user's partition: their count, kept by
 * the transactions that create and delete them, and one link per subscription to its notification
 * (newest first by id).
 */
export const SELF_SERVICE_LINK_PREFIX = 'SELF_SERVICE#';
export const selfServiceCount = (tenantName: string, normalizedExternalId: string): Key => ({
  pk: embedUserPartition(tenantName, normalizedExternalId),
  sk: 'SELF_SERVICE_COUNT',
});
export const selfServiceLink = (
  tenantName: string,
  normalizedExternalId: string,
  notificationId: number,
): Key => ({
  pk: embedUserPartition(tenantName, normalizedExternalId),
  sk: `${SELF_SERVICE_LINK_PREFIX}${sortableId(notificationId)}`,
});

/**
 * A deployment's suppressions share one partition, sorted by address: a list is a Query of it, and
 * a run's check of a page of recipients reads their keys in one BatchGetItem, however many there are.
 * Keyed by the address lower-cased: addresses compare case-insensitively.
 */
export const suppressionsPartition = (deploymentId: number) => `DEPLOYMENT#${deploymentId}#SUPPRESSIONS`;
export const SUPPRESSION_PREFIX = 'EMAIL#';
export const suppression = (deploymentId: number, emailKey: string): Key => ({
  pk: suppressionsPartition(deploymentId),
  sk: `${SUPPRESSION_PREFIX}${part(emailKey)}`,
});

/**
 * A notification's audit events: a partition of their own, outside the notification's (which the
 * purge empties), so that they stay after the delete until their TTL. Sorted by event id, which
 * starts with the event's instant.
 */
export const AUDIT_EVENT_PREFIX = 'EVENT#';
export const auditPartition = (deploymentId: number, notificationId: number) =>
  `DEPLOYMENT#${deploymentId}#AUDIT#NOTIFICATION#${notificationId}`;
export const auditEvent = (deploymentId: number, notificationId: number, eventId: string): Key => ({
  pk: auditPartition(deploymentId, notificationId),
  sk: `${AUDIT_EVENT_PREFIX}${eventId}`,
});
