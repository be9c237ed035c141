import type { HeldStatus } from '#lib/domain/governance/governance';
import type { NotificationOwner } from '#lib/domain/notifications/notification';
import type { KindUnion } from '#lib/domain/recipients/recipient-kinds';
import { type IndexKeys, notificationPartition, sortableId } from '#lib/store/dynamo/keys';

/**
 * The keys of the list indexes (gsi1, gsi2, gsi4): the partition each list reads, and the entries each
 * item kind carries. Imported as a namespace, `import * as indexKeys from '#lib/store/dynamo/index-keys'`, so
 * that a function bundles only the keys it uses.
 */

/** A notification as its recipient rows' index entries name it: its dashboard never changes. */
export interface NotificationOnDashboard {
  deploymentId: number;
  id: number;
  dashboardId: number;
}

/** A recipient as the per-deployment recipient index names it: console users by id, embed users by id. */
export type RecipientIdentity = KindUnion<'byId'>;
const recipientIdentityPart = (identity: RecipientIdentity) =>
  identity.type === 'USER' ? `USER#${identity.userId}` : `EMBED_USER#${identity.embedUserId}`;

const recipientSortKey = (subscribedAt: string, rowSk: string) => `${subscribedAt}#${rowSk}`;

/* The index partitions, each a list the API serves (docs/data-model.md lists them). */

/** gsi1: the notifications of a deployment. */
export const notificationsOfDeployment = (deploymentId: number) => `DEPLOYMENT#${deploymentId}#NOTIFICATIONS`;
/** gsi2: the notifications of a dashboard. */
export const notificationsOfDashboard = (deploymentId: number, dashboardId: number) =>
  `DEPLOYMENT#${deploymentId}#DASHBOARD#${dashboardId}#NOTIFICATIONS`;
/** gsi2: the recipient rows of one recipient in a deployment, one per notification. */
export const notificationsOfRecipient = (deploymentId: number, identity: RecipientIdentity) =>
  `DEPLOYMENT#${deploymentId}#RECIPIENT#${recipientIdentityPart(identity)}#NOTIFICATIONS`;
/** gsi1: the tombstones of deleted notifications whose partitions are still being emptied. */
export const purges = () => 'PURGES';
/**
 * gsi4: the recipient rows of one recipient in a deployment whose notification is on one dashboard
 * (a notification's dashboard never changes): the recipient and dashboard filters together.
 */
export const notificationsOfRecipientOnDashboard = (
  deploymentId: number,
  identity: RecipientIdentity,
  dashboardId: number,
) =>
  `DEPLOYMENT#${deploymentId}#DASHBOARD#${dashboardId}#RECIPIENT#${recipientIdentityPart(identity)}#NOTIFICATIONS`;
/** gsi4: the notifications a console user owns in a deployment. */
export const notificationsOfOwner = (deploymentId: number, ownerUserId: number) =>
  `DEPLOYMENT#${deploymentId}#OWNER#USER#${ownerUserId}#NOTIFICATIONS`;
const statusPart = (status: HeldStatus) => status.toUpperCase();
/** gsi1: the hold entries of a deployment's notifications held in one status (paused, suspended). */
export const notificationsWithStatus = (deploymentId: number, status: HeldStatus) =>
  `DEPLOYMENT#${deploymentId}#STATUS#${statusPart(status)}#NOTIFICATIONS`;
/** gsi2: the hold entries of a dashboard's notifications held in one status. */
export const notificationsOfDashboardWithStatus = (
  deploymentId: number,
  dashboardId: number,
  status: HeldStatus,
) => `DEPLOYMENT#${deploymentId}#DASHBOARD#${dashboardId}#STATUS#${statusPart(status)}#NOTIFICATIONS`;
/** gsi1: the recipient rows of a notification. */
export const recipientsOfNotification = (deploymentId: number, notificationId: number) =>
  `${notificationPartition(deploymentId, notificationId)}#RECIPIENTS`;
/** gsi1: the failed deliveries of a run, and only those: what a retry queues again. */
export const failedDeliveriesOfRun = (deploymentId: number, notificationId: number, runId: string) =>
  `${notificationPartition(deploymentId, notificationId)}#RUN#${runId}#FAILED`;

/** A recipient row's gsi4 entry: by recipient and its notification's dashboard. */
const recipientOnDashboardKeys = (
  notification: NotificationOnDashboard,
  identity: RecipientIdentity,
): IndexKeys => ({
  gsi4pk: notificationsOfRecipientOnDashboard(notification.deploymentId, identity, notification.dashboardId),
  gsi4sk: sortableId(notification.id),
});

/*
 * The index entries of each item kind. gsi1: children of a parent, newest first. gsi2 and gsi4: the
 * filtered lists. Sort keys are fixed at creation (ids, subscription instants), so keyset paging is stable.
 */
export const notification = (
  deploymentId: number,
  notificationId: number,
  dashboardId: number,
): IndexKeys => ({
  gsi1pk: notificationsOfDeployment(deploymentId),
  gsi1sk: sortableId(notificationId),
  gsi2pk: notificationsOfDashboard(deploymentId, dashboardId),
  gsi2sk: sortableId(notificationId),
});
/**
 * A notification's gsi4 entry, by the console user who owns it; none for an embed user's or for none.
 * It moves in the write that changes the owner (the create, a transfer).
 */
export const ownedNotification = (
  deploymentId: number,
  notificationId: number,
  owner: NotificationOwner | null,
): IndexKeys =>
  owner?.type === 'USER'
    ? { gsi4pk: notificationsOfOwner(deploymentId, owner.userId), gsi4sk: sortableId(notificationId) }
    : {};
/**
 * A hold entry's entries (gsi1: its deployment's, gsi2: its dashboard's, in the status its hold
 * gives), written and taken away in the write that changes the hold.
 */
export const heldNotification = (notification: NotificationOnDashboard, status: HeldStatus): IndexKeys => ({
  gsi1pk: notificationsWithStatus(notification.deploymentId, status),
  gsi1sk: sortableId(notification.id),
  gsi2pk: notificationsOfDashboardWithStatus(notification.deploymentId, notification.dashboardId, status),
  gsi2sk: sortableId(notification.id),
});
/** A failed delivery, by its id; the entry goes when the delivery leaves `failed`. */
export const failedDelivery = (
  deploymentId: number,
  notificationId: number,
  runId: string,
  deliveryId: string,
) => ({
  gsi1pk: failedDeliveriesOfRun(deploymentId, notificationId, runId),
  gsi1sk: deliveryId,
});
/** Tombstones sort by the instant of the delete: the oldest purge is worked on first. */
export const purge = (deploymentId: number, notificationId: number, deletedAt: string): IndexKeys => ({
  gsi1pk: purges(),
  gsi1sk: `${deletedAt}#${deploymentId}#${notificationId}`,
});
/** Rows of a recipient sort by subscription instant, then by the row's own key (unique in the partition). */
export const recipient = (
  notification: NotificationOnDashboard,
  identity: RecipientIdentity,
  subscribedAt: string,
  rowSk: string,
): IndexKeys => ({
  gsi1pk: recipientsOfNotification(notification.deploymentId, notification.id),
  gsi1sk: recipientSortKey(subscribedAt, rowSk),
  gsi2pk: notificationsOfRecipient(notification.deploymentId, identity),
  gsi2sk: sortableId(notification.id),
  ...recipientOnDashboardKeys(notification, identity),
});
export const recipientOnDashboard = recipientOnDashboardKeys;

/** gsi1: the audit events of a deployment, its deleted notifications' included. */
export const eventsOfDeployment = (deploymentId: number) => `DEPLOYMENT#${deploymentId}#EVENTS`;
/** An audit event's gsi1 entry: by event id (its instant first), then its notification. */
export const auditEvent = (deploymentId: number, notificationId: number, eventId: string): IndexKeys => ({
  gsi1pk: eventsOfDeployment(deploymentId),
  gsi1sk: `${eventId}#${sortableId(notificationId)}`,
});
