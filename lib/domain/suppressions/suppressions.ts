import type { ConsoleUser } from '#lib/domain/entities';
import type { Page, PageRequest, PageWindow, StoredPage } from '#lib/domain/paging';
import { pageWindow, toPage } from '#lib/domain/paging';
import type { RecipientRow } from '#lib/domain/runs/runs';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';
import { type EventRecorder, eventToRecord } from '#lib/domain/webhooks/recording';
import { NotFoundError } from '#lib/errors';

/**
 * A deployment's suppressions: e-mail addresses no run mails again. The renderer adds one when it
 * reports a hard bounce or a complaint (in the outcome report's own transaction, lib/domain/runs/outcomes.ts);
 * admins add and remove them by hand. Every run skips a suppressed address with reason `suppressed`.
 * Addresses compare case-insensitively: a suppression is keyed by its address lower-cased.
 */

export const suppressionReasons = ['hard_bounce', 'complaint', 'manual'] as const;
type SuppressionReason = (typeof suppressionReasons)[number];

/** What the renderer may say of a delivery beyond its status. */
export const bounceKinds = ['hard', 'complaint'] as const;
export type BounceKind = (typeof bounceKinds)[number];

const reasonOfBounce: Record<BounceKind, SuppressionReason> = { hard: 'hard_bounce', complaint: 'complaint' };

/** The job whose outcome report added a suppression; null for one an admin added. */
export interface SuppressionSource {
  runId: string;
  jobId: string;
}

export interface Suppression {
  deploymentId: number;
  /** As first suppressed (a later report or add in another case changes nothing). */
  email: string;
  reason: SuppressionReason;
  createdAt: string;
  source: SuppressionSource | null;
}

export type SuppressionDto = Suppression;

/** The identity of an address among suppressions: `Ada@Example.com` and `ada@example.com` are one. */
export const suppressionKeyOf = (email: string) => email.toLowerCase();

/** The suppression a bounce or complaint report makes of the address its delivery went to. */
export function suppressionOfBounce(
  deploymentId: number,
  email: string,
  bounce: BounceKind,
  source: SuppressionSource,
  now: number,
): Suppression {
  return {
    deploymentId,
    email,
    reason: reasonOfBounce[bounce],
    createdAt: new Date(now).toISOString(),
    source,
  };
}

/**
 * The addresses of a page of recipients that a suppression could stop: console users as read (a
 * deleted one has none) and embed users as stored. The page's one lookup of suppressions reads these.
 */
export function recipientEmails(
  rows: readonly RecipientRow[],
  users: ReadonlyMap<number, ConsoleUser>,
): string[] {
  const emails = rows.flatMap(({ recipient }) => {
    const email = recipient.type === 'USER' ? users.get(recipient.userId)?.email : recipient.email;
    return email ? [suppressionKeyOf(email)] : [];
  });
  return [...new Set(emails)];
}

/** Which of some addresses are suppressed: one batch of reads by key, whatever the number of suppressions. */
export interface SuppressionLookup {
  /** The keys (`suppressionKeyOf`) among `emails` that the deployment suppresses. */
  suppressedAmong(deploymentId: number, emails: readonly string[]): Promise<ReadonlySet<string>>;
}

/** A page of a deployment's suppressions. */
export interface SuppressionListing {
  /** A page in address order; with `email`, the one suppression of that address (or none). */
  page(
    deploymentId: number,
    email: string | undefined,
    window: PageWindow<Suppression>,
  ): Promise<StoredPage<Suppression>>;
}

/** An admin suppresses an address. */
export interface SuppressionAdding {
  /**
   * Adds the suppression unless its address is suppressed already, and `event` with it only if it was
   * added; the suppression as it then stands.
   */
  add(suppression: Suppression, event?: WebhookEvent): Promise<Suppression>;
}

/** An admin lifts a suppression. */
export interface SuppressionRemoval {
  /** Removes the address's suppression; false when there was none. */
  remove(deploymentId: number, email: string): Promise<boolean>;
}

const toSuppressionDto = (suppression: Suppression): SuppressionDto => suppression;

export async function listSuppressions(
  store: SuppressionListing,
  deploymentId: number,
  query: PageRequest & { email?: string },
): Promise<Page<SuppressionDto>> {
  const { email, ...request } = query;
  const stored = await store.page(deploymentId, email, pageWindow(request, toSuppressionDto));
  return toPage(stored, request, toSuppressionDto);
}

/** An admin's suppression: a repeat (in any case) changes nothing and answers the one that stands. */
export async function addManualSuppression(
  store: SuppressionAdding,
  deploymentId: number,
  email: string,
  now: number,
  recorder: EventRecorder,
): Promise<SuppressionDto> {
  const suppression: Suppression = {
    deploymentId,
    email,
    reason: 'manual',
    createdAt: new Date(now).toISOString(),
    source: null,
  };
  const event = await eventToRecord(
    recorder,
    deploymentId,
    'suppression.added',
    toSuppressionDto(suppression),
    now,
  );
  return toSuppressionDto(await store.add(suppression, event));
}

export async function removeSuppression(
  store: SuppressionRemoval,
  deploymentId: number,
  email: string,
): Promise<void> {
  if (!(await store.remove(deploymentId, email)))
    // The address stays out of the message: messages are logged, and an address is personal data.
    throw new NotFoundError(`A suppression of that address in deployment ${deploymentId}`);
}
