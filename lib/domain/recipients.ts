import type { ConsoleUser, EmbedUser } from '#lib/domain/entities';
import type { NotificationRef } from '#lib/domain/notification';
import type { RecipientInput } from '#lib/domain/recipients-input';
import { mergeProperties, propertiesChanged, suppliedProperties } from '#lib/domain/recipients-properties';
import {
  type Directory,
  type EmbedUserRef,
  embedUserRefOf,
  identityOf,
  indexDirectory,
  namesToLookUp,
  type ResolvedRecipient,
  refuseDuplicates,
  refuseSlack,
  resolveRecipients,
  type StoredEmbedRecipient,
  type StoredRecipient,
  type StoredUserRecipient,
  type SupportedRecipientInput,
} from '#lib/domain/recipients-resolution';
import { ConflictError, NotFoundError, UnavailableError } from '#lib/errors';

/**
 * Adds recipients to a notification: every check first (nothing is written while any item is
 * wrong), then only the writes that change something. Rows are keyed by the recipient's identity,
 * so a repeated request finds its own rows and reports them as unchanged: it is idempotent, and it
 * completes a request that failed half-way.
 */

/** The notification a row is written for, with its dashboard: the row's index entries name it. */
export interface RecipientParent extends NotificationRef {
  dashboardId: number;
}

export interface StorageOptions {
  /** Milliseconds left for the request; storage stops with 503 rather than be cut off mid-batch. */
  remainingTimeMs?: () => number;
}

export interface NewEmbedRecipient {
  embedUser: EmbedUser;
  recipient: StoredEmbedRecipient;
}

/** A recipient row as its key names it: known from the request alone for every embed user and every `userId`. */
export type RecipientRef = StoredUserRecipient | (EmbedUserRef & { type: 'EMBED_USER' });

export interface DirectoryRequest {
  tenants?: readonly string[];
  userIds?: readonly number[];
  /** Lower-cased. */
  emails?: readonly string[];
  embedUsers?: readonly EmbedUserRef[];
  /** The notification item itself: whether it exists. */
  notification?: NotificationRef;
  /** A notification's rows for these recipients. */
  recipients?: { of: NotificationRef; refs: readonly RecipientRef[] };
}

/** What one round of reads found; what is not stored is absent. */
export interface Found extends Directory {
  /** The notification, when it was asked for and exists. */
  notification?: RecipientParent;
  recipients: StoredRecipient[];
}

/** A changed embed recipient: the row as read, and as it is to be. */
interface RecipientUpdate {
  previous: StoredEmbedRecipient;
  next: StoredEmbedRecipient;
}

/**
 * Every write is conditional on what the request read, so that each answer tells what its own request
 * did: a row another request created or changed in between fails the condition and is read again.
 */
export interface RecipientRepository {
  /** One round of reads (BatchGet) for any mix of keys the request names; never a whole partition. */
  lookUp(request: DirectoryRequest, options: StorageOptions): Promise<Found>;
  /**
   * Creates each embed user together with its recipient row and gives it a new `embedUserId` (the
   * one supplied is not used), unless the embed user (or the row) exists by then (another request
   * made it): those are left unwritten. Returns the id of each, or undefined for those.
   */
  createEmbedUsers(
    notification: RecipientParent,
    recipients: readonly NewEmbedRecipient[],
    options: StorageOptions,
  ): Promise<(number | undefined)[]>;
  /** Creates each row unless it exists by then; returns those that did exist. */
  createRecipients(
    notification: RecipientParent,
    recipients: readonly StoredRecipient[],
    options: StorageOptions,
  ): Promise<StoredRecipient[]>;
  /**
   * Sets the changed properties of each row, touching no other attribute, if the row still holds the
   * properties it was read with; returns the updates whose row had changed meanwhile.
   */
  updateRecipients(
    notification: NotificationRef,
    updates: readonly RecipientUpdate[],
    options: StorageOptions,
  ): Promise<RecipientUpdate[]>;
  /**
   * Whether the notification still exists, read after the writes: a delete that came in between
   * makes the request 404 (the delete's purge removes what it wrote). See lib/store/notification-guard.ts.
   */
  notificationIsLive(notification: NotificationRef): Promise<boolean>;
}

export type RecipientOutput =
  | { type: 'USER'; userId: number; email: string; username: string }
  | { type: 'EMBED_USER'; embedTenantName: string; externalId: string; embedUserId: number; email: string };

export interface AddRecipientsResult {
  createdRecipients: RecipientOutput[];
  updatedRecipients: RecipientOutput[];
  unchangedRecipients: RecipientOutput[];
}

type Bucket = 'created' | 'updated' | 'unchanged';

type Outcome =
  | { bucket: Bucket; type: 'USER'; user: ConsoleUser; recipient: StoredUserRecipient }
  | { bucket: Bucket; type: 'EMBED_USER'; recipient: StoredEmbedRecipient };

/** What one item writes, decided before anything is written. */
type Write =
  /** The row of a user that exists, created unless it exists by then. */
  | { kind: 'create'; recipient: StoredRecipient }
  /** Changed properties of an existing row. */
  | { kind: 'update'; update: RecipientUpdate }
  /** A new embed user with its row; its `embedUserId` is assigned once the ids are reserved. */
  | { kind: 'provision' };

interface PlannedItem {
  outcome: Outcome;
  write?: Write;
}

function indexRecipients(recipients: readonly StoredRecipient[]): Map<string, StoredRecipient> {
  return new Map(recipients.map((recipient) => [identityOf(recipient), recipient]));
}

/** Sorts a resolved item into its bucket and says what to write for it. */
function planItem(item: ResolvedRecipient, existing: ReadonlyMap<string, StoredRecipient>): PlannedItem {
  if (item.type === 'USER') {
    const recipient: StoredUserRecipient = { type: 'USER', userId: item.user.id };
    const stored = existing.has(identityOf(recipient));
    const outcome: Outcome = {
      bucket: stored ? 'unchanged' : 'created',
      type: 'USER',
      user: item.user,
      recipient,
    };
    return stored ? { outcome } : { outcome, write: { kind: 'create', recipient } };
  }
  if (item.recipient) {
    const previous = item.recipient;
    if (!propertiesChanged(previous.properties, item.supplied)) {
      return { outcome: { bucket: 'unchanged', type: 'EMBED_USER', recipient: previous } };
    }
    const next = { ...previous, properties: mergeProperties(previous.properties, item.supplied) };
    return {
      outcome: { bucket: 'updated', type: 'EMBED_USER', recipient: next },
      write: { kind: 'update', update: { previous, next } },
    };
  }
  // A new embed user's id is only known once the ids are reserved, after every check has passed.
  const source = item.embedUser ?? {
    embedUserId: 0,
    ...(item.creation as { externalId: string; email: string }),
  };
  const recipient: StoredEmbedRecipient = {
    type: 'EMBED_USER',
    ...item.ref,
    externalId: source.externalId,
    embedUserId: source.embedUserId,
    email: source.email,
    properties: suppliedProperties(item.supplied),
  };
  return {
    outcome: { bucket: 'created', type: 'EMBED_USER', recipient },
    write: item.embedUser ? { kind: 'create', recipient } : { kind: 'provision' },
  };
}

function toOutput(outcome: Outcome): RecipientOutput {
  if (outcome.type === 'USER') {
    const { user } = outcome;
    return { type: 'USER', userId: user.id, email: user.email, username: user.username };
  }
  const { recipient } = outcome;
  return {
    type: 'EMBED_USER',
    embedTenantName: recipient.embedTenantName,
    externalId: recipient.externalId,
    embedUserId: recipient.embedUserId,
    email: recipient.email,
  };
}

function toResult(outcomes: readonly Outcome[]): AddRecipientsResult {
  const inBucket = (bucket: Bucket) =>
    outcomes.filter((outcome) => outcome.bucket === bucket).map((outcome) => toOutput(outcome));
  return {
    createdRecipients: inBucket('created'),
    updatedRecipients: inBucket('updated'),
    unchangedRecipients: inBucket('unchanged'),
  };
}

const refOfRow = (item: SupportedRecipientInput): RecipientRef | undefined =>
  item.type === 'EMBED_USER'
    ? { type: 'EMBED_USER', ...embedUserRefOf(item) }
    : item.userId !== undefined
      ? { type: 'USER', userId: item.userId }
      : undefined;

/**
 * Reads only what the request names, in at most two rounds of BatchGets whatever the notification
 * holds: first the notification, the rows whose keys the request gives (every embed user, every
 * `userId`), the tenants and the e-mail links; then the embed users that have no row yet, and the
 * users (with their rows) found through an e-mail link.
 */
async function readWhatTheRequestNames(
  repository: RecipientRepository,
  notification: NotificationRef,
  items: readonly SupportedRecipientInput[],
  options: StorageOptions,
): Promise<{ parent: RecipientParent; existing: Map<string, StoredRecipient>; directory: Directory }> {
  const names = namesToLookUp(items, new Map());
  const rows = items.flatMap((item) => refOfRow(item) ?? []);
  const first = await repository.lookUp(
    {
      notification,
      recipients: { of: notification, refs: rows },
      tenants: names.tenants,
      userIds: names.userIds,
      emails: names.emails,
    },
    options,
  );
  const parent = first.notification;
  if (!parent) throw notFound(notification);
  const existing = indexRecipients(first.recipients);
  const read = new Set(first.users.map((user) => user.id));
  const linked = [...new Set(first.emailLinks.map((link) => link.userId))].filter((id) => !read.has(id));
  const embedUsers = names.embedUsers.filter((ref) => !existing.has(identityOf(ref)));
  if (linked.length === 0 && embedUsers.length === 0) return { parent, existing, directory: first };
  const second = await repository.lookUp(
    {
      userIds: linked,
      embedUsers,
      recipients: { of: notification, refs: linked.map((userId) => ({ type: 'USER', userId })) },
    },
    options,
  );
  for (const recipient of second.recipients) existing.set(identityOf(recipient), recipient);
  return {
    parent,
    existing,
    directory: {
      ...first,
      users: [...first.users, ...second.users],
      embedUsers: second.embedUsers,
    },
  };
}

const notFound = (notification: NotificationRef) =>
  new NotFoundError(`Notification ${notification.id} of deployment ${notification.deploymentId}`);

/** Waits for every write in flight before failing: nothing keeps running after the answer is sent. */
async function allSettled<T extends unknown[]>(writes: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(writes);
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as T;
}

/** Rounds of conditional writes before a request that keeps meeting concurrent changes answers 409. */
const MAX_WRITE_ROUNDS = 4;

/**
 * Sends the planned writes, all conditional on what was read. The items whose condition failed were
 * written by a concurrent request in between: they are read again (their rows, and the embed users
 * that another request created first) and planned again, so that a row another request created is
 * reported unchanged, an embed user another request provisioned keeps its one id, and a property
 * another request set is compared with what is stored now.
 */
async function applyPlan(
  repository: RecipientRepository,
  notification: RecipientParent,
  resolved: ResolvedRecipient[],
  planned: PlannedItem[],
  options: StorageOptions,
): Promise<void> {
  const provisions = planned.flatMap((item, index) => (item.write?.kind === 'provision' ? [index] : []));
  const provisioned: NewEmbedRecipient[] = provisions.map((index) => {
    const { recipient } = (planned[index] as PlannedItem).outcome as Outcome & { type: 'EMBED_USER' };
    const { embedTenantName, externalId, embedUserId, email } = recipient;
    return { embedUser: { embedTenantName, externalId, embedUserId, email }, recipient };
  });
  for (let round = 1; ; round++) {
    const pending = planned.flatMap((item, index) => (item.write ? [index] : []));
    if (pending.length === 0) return;
    if (round > MAX_WRITE_ROUNDS) {
      throw new ConflictError('The recipients are being changed by others; retry the request');
    }
    const creates = pending.flatMap((index) => {
      const write = planned[index]?.write;
      return write?.kind === 'create' ? [write.recipient] : [];
    });
    const updates = pending.flatMap((index) => {
      const write = planned[index]?.write;
      return write?.kind === 'update' ? [write.update] : [];
    });
    const provisionNow = round === 1 ? provisioned : [];
    const [ids, existed, stale] = await allSettled<
      [(number | undefined)[], StoredRecipient[], RecipientUpdate[]]
    >([
      provisionNow.length > 0
        ? repository.createEmbedUsers(notification, provisionNow, options)
        : Promise.resolve([]),
      creates.length > 0 ? repository.createRecipients(notification, creates, options) : Promise.resolve([]),
      updates.length > 0 ? repository.updateRecipients(notification, updates, options) : Promise.resolve([]),
    ]);
    const taken: StoredEmbedRecipient[] = [];
    ids.forEach((embedUserId, i) => {
      const outcome = planned[provisions[i] as number]?.outcome as Outcome & { type: 'EMBED_USER' };
      if (embedUserId === undefined) taken.push(outcome.recipient);
      else outcome.recipient = { ...outcome.recipient, embedUserId };
    });
    const contested = new Set([
      ...taken.map((recipient) => identityOf(recipient)),
      ...existed.map((recipient) => identityOf(recipient)),
      ...stale.map((update) => identityOf(update.next)),
    ]);
    const again = pending.filter((index) =>
      contested.has(identityOf(planned[index]?.outcome.recipient as StoredRecipient)),
    );
    for (const index of pending) if (!again.includes(index)) delete (planned[index] as PlannedItem).write;
    if (again.length === 0) return;
    await planAgain(repository, notification, resolved, planned, again, options);
  }
}

/** Reads the contested rows (and the embed users of those that have none) and plans their items again. */
async function planAgain(
  repository: RecipientRepository,
  notification: NotificationRef,
  resolved: ResolvedRecipient[],
  planned: PlannedItem[],
  indexes: readonly number[],
  options: StorageOptions,
): Promise<void> {
  const embedRefs = indexes.flatMap((index) => {
    const item = resolved[index] as ResolvedRecipient;
    return item.type === 'EMBED_USER' ? [item.ref] : [];
  });
  const found = await repository.lookUp(
    {
      recipients: {
        of: notification,
        refs: indexes.map((index) => planned[index]?.outcome.recipient as StoredRecipient),
      },
      embedUsers: embedRefs,
    },
    options,
  );
  const rows = indexRecipients(found.recipients);
  const embedUsers = indexDirectory(found).embedUsers;
  for (const index of indexes) {
    const item = resolved[index] as ResolvedRecipient;
    let next: ResolvedRecipient = item;
    if (item.type === 'EMBED_USER') {
      const identity = identityOf(item.ref);
      const recipient = rows.get(identity) as StoredEmbedRecipient | undefined;
      const embedUser = embedUsers.get(identity);
      // Only a deletion in between could cause this; a repeat of the request starts afresh.
      if (!recipient && !embedUser)
        throw new UnavailableError('An embed user changed during the request; it is safe to repeat');
      next = recipient
        ? { type: 'EMBED_USER', ref: item.ref, supplied: item.supplied, recipient }
        : { type: 'EMBED_USER', ref: item.ref, supplied: item.supplied, embedUser };
    }
    // A row another request created is found now, so it is reported unchanged (or updated), never created.
    resolved[index] = next;
    planned[index] = planItem(next, rows);
  }
}

export async function addRecipients(
  repository: RecipientRepository,
  notification: NotificationRef,
  items: readonly RecipientInput[],
  options: StorageOptions = {},
): Promise<AddRecipientsResult> {
  const supported = refuseSlack(items);
  refuseDuplicates(supported);
  const { parent, existing, directory } = await readWhatTheRequestNames(
    repository,
    notification,
    supported,
    options,
  );
  const resolved = resolveRecipients(supported, existing, directory);
  const planned = resolved.map((item) => planItem(item, existing));
  const wrote = planned.some((item) => item.write !== undefined);
  await applyPlan(repository, parent, resolved, planned, options);
  // Raced by a delete: what this request wrote is the purge's; the answer is the delete's 404.
  if (wrote && !(await repository.notificationIsLive(notification))) throw notFound(notification);
  return toResult(planned.map((item) => item.outcome));
}
