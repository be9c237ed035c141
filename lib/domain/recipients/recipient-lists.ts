import { type AuditContext, auditEvent, type NewAuditEvent, recipientChanges } from '#lib/domain/audit/audit';
import { type NotificationRef, notificationNotFound } from '#lib/domain/notifications/notification';
import {
  type Page,
  type PageRequest,
  type PageWindow,
  pageWindow,
  type StoredPage,
  toPage,
} from '#lib/domain/paging';
import type { KindUnion } from '#lib/domain/recipients/recipient-kinds';
import type { RecipientOutput } from '#lib/domain/recipients/recipients';
import { type FieldProblem, ValidationError } from '#lib/errors';

/**
 * Listing a notification's recipients and removing some (adding them is lib/domain/recipients/recipients.ts).
 * The rules live here; lib/store/recipients/recipient-lists.ts keeps them.
 */

/** A recipient to remove, as a removal names it. */
export type RemovedRecipientInput = KindUnion<'removal'>;

/** The recipients a removal names, once checked: Slack items are gone (no Slack recipient can exist). */
export type RemovalTarget = KindUnion<'target'>;

/** List a notification's recipients. */
export interface RecipientListing {
  /** undefined when the notification does not exist. */
  listRecipients(
    notification: NotificationRef,
    window: PageWindow<RecipientOutput>,
  ): Promise<StoredPage<RecipientOutput> | undefined>;
}

/** Remove recipients from a notification. */
export interface RecipientRemoval {
  /**
   * Removes those of `targets` that are subscribed, the last write in one transaction with `eventOf`
   * the recipients removed (none removed: nothing written, nothing recorded); false when the
   * notification does not exist.
   */
  removeRecipients(
    notification: NotificationRef,
    targets: readonly RemovalTarget[],
    eventOf: (removed: readonly RecipientOutput[]) => NewAuditEvent,
  ): Promise<boolean>;
}

export async function listRecipients(
  recipients: RecipientListing,
  target: NotificationRef,
  page: PageRequest,
): Promise<Page<RecipientOutput>> {
  const stored = await recipients.listRecipients(
    target,
    pageWindow(page, (recipient) => recipient),
  );
  if (!stored) throw notificationNotFound(target);
  return toPage(stored, page, (recipient) => recipient);
}

const identityOf = (item: RemovedRecipientInput) =>
  item.type === 'EMBED_USER'
    ? `EMBED_USER\u0000${item.embedTenantName}\u0000${item.id}`
    : `${item.type}\u0000${item.id}`;

/** The whole request is checked (shape by the schema, duplicates here) before the first write. */
function removalTargets(items: readonly RemovedRecipientInput[]): RemovalTarget[] {
  const firstIndex = new Map<string, number>();
  const problems: FieldProblem[] = [];
  items.forEach((item, index) => {
    const earlier = firstIndex.get(identityOf(item));
    if (earlier !== undefined) {
      problems.push({
        path: `recipients.${index}`,
        message: `is the same recipient as recipients[${earlier}]`,
      });
    } else firstIndex.set(identityOf(item), index);
  });
  if (problems.length > 0) throw new ValidationError(problems);
  return items.flatMap((item): RemovalTarget[] => {
    if (item.type === 'USER') return [{ type: 'USER', userId: item.id }];
    if (item.type === 'EMBED_USER')
      return [{ type: 'EMBED_USER', embedUserId: item.id, embedTenantName: item.embedTenantName }];
    return [];
  });
}

export async function removeRecipients(
  recipients: RecipientRemoval,
  target: NotificationRef,
  items: readonly RemovedRecipientInput[],
  audit: AuditContext,
  now: number,
): Promise<void> {
  const targets = removalTargets(items);
  const eventOf = (removed: readonly RecipientOutput[]) =>
    auditEvent(audit, target, 'recipients_removed', recipientChanges(removed), now);
  if (!(await recipients.removeRecipients(target, targets, eventOf))) throw notificationNotFound(target);
}
