import type { AuditEvent } from '#lib/domain/audit/audit';
import { type NotificationRef, notificationNotFound } from '#lib/domain/notifications/notification';
import {
  type Page,
  type PageRequest,
  type PageWindow,
  pageWindow,
  type StoredPage,
  toPage,
} from '#lib/domain/paging';

/** The lists of events the API serves, newest first, each page one Query. */
export interface AuditListing {
  /** A notification's events; undefined when the notification does not exist (deleted: 404). */
  ofNotification(
    target: NotificationRef,
    window: PageWindow<AuditEvent>,
  ): Promise<StoredPage<AuditEvent> | undefined>;
  /** A deployment's events, deleted notifications' included; only `notificationId`'s when given. */
  ofDeployment(
    deploymentId: number,
    notificationId: number | undefined,
    window: PageWindow<AuditEvent>,
  ): Promise<StoredPage<AuditEvent>>;
}

const asDto = (event: AuditEvent) => event;

export async function listNotificationEvents(
  listing: AuditListing,
  target: NotificationRef,
  page: PageRequest,
): Promise<Page<AuditEvent>> {
  const stored = await listing.ofNotification(target, pageWindow(page, asDto));
  if (!stored) throw notificationNotFound(target);
  return toPage(stored, page, asDto);
}

export async function listDeploymentEvents(
  listing: AuditListing,
  deploymentId: number,
  query: PageRequest & { notificationId?: number },
): Promise<Page<AuditEvent>> {
  const { notificationId, ...page } = query;
  const stored = await listing.ofDeployment(deploymentId, notificationId, pageWindow(page, asDto));
  return toPage(stored, page, asDto);
}
