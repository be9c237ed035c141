import { type NotificationRef, notificationNotFound } from '#lib/domain/notifications/notification';
import type { Page, PageRequest, PageWindow, StoredPage } from '#lib/domain/paging';
import { pageWindow, toPage } from '#lib/domain/paging';
import {
  type Delivery,
  type DeliveryDto,
  RUN_ID_PATTERN,
  type Run,
  type RunDto,
  type RunRef,
  toDeliveryDto,
  toRunDto,
} from '#lib/domain/runs/runs';
import { NotFoundError } from '#lib/errors';

/** List a notification's runs, newest first. */
export interface RunListing {
  notificationExists(ref: NotificationRef): Promise<boolean>;
  /** A page of runs, newest first; a cursor this list did not issue is a 400 naming `after`. */
  runsPage(ref: NotificationRef, window: PageWindow<Run>): Promise<StoredPage<Run>>;
}

/** List a run's deliveries. */
export interface DeliveryListing {
  notificationExists(ref: NotificationRef): Promise<boolean>;
  runExists(ref: RunRef): Promise<boolean>;
  /** A page of a run's deliveries in recipient order; empty for a run past its retention. */
  deliveriesPage(ref: RunRef, window: PageWindow<Delivery>): Promise<StoredPage<Delivery>>;
}

export async function listRuns(
  runs: RunListing,
  ref: NotificationRef,
  page: PageRequest,
): Promise<Page<RunDto>> {
  // The page first: a foreign cursor is refused without a lookup of the notification. The
  // notification is read whatever the page holds: a deleted one's runs stay until the purge.
  const stored = await runs.runsPage(ref, pageWindow(page, toRunDto));
  if (!(await runs.notificationExists(ref))) throw notificationNotFound(ref);
  return toPage(stored, page, toRunDto);
}

export async function listDeliveries(
  deliveries: DeliveryListing,
  ref: RunRef,
  page: PageRequest,
): Promise<Page<DeliveryDto>> {
  // A run id is opaque to clients: one the service never issues names no run, whatever its form.
  if (!RUN_ID_PATTERN.test(ref.runId)) throw new NotFoundError(`Run ${ref.runId} of notification ${ref.id}`);
  const stored = await deliveries.deliveriesPage(ref, pageWindow(page, toDeliveryDto));
  if (!(await deliveries.notificationExists(ref))) throw notificationNotFound(ref);
  if (stored.items.length === 0 && !(await deliveries.runExists(ref)))
    throw new NotFoundError(`Run ${ref.runId} of notification ${ref.id}`);
  return toPage(stored, page, toDeliveryDto);
}
