import type { NewAuditEvent } from '#lib/domain/audit/audit';
import type { ConsoleUser, EmbedUser } from '#lib/domain/entities';
import { type NotificationRef, notificationNotFound } from '#lib/domain/notifications/notification';
import type { EmbedUserRef, KindUnion } from '#lib/domain/recipients/recipient-kinds';
import type { RecipientInput, RecipientProperties } from '#lib/domain/recipients/recipients-input';
import {
  mergeProperties,
  propertiesChanged,
  suppliedProperties,
} from '#lib/domain/recipients/recipients-properties';
import {
  type Directory,
  embedUserRefOf,
  identityOf,
  isConsoleUserCase,
  namesToLookUp,
  type ResolvedRecipient,
  refuseDuplicates,
  refuseSlack,
  resolveAgain,
  resolveRecipients,
  type StoredEmbedRecipient,
  type StoredRecipient,
  type SupportedRecipientInput,
} from '#lib/domain/recipients/recipients-resolution';
import { ConflictError } from '#lib/errors';

/**
 * Adds recipients to a notification in one forward pass: read what the request names, resolve each
 * item into its case, plan the one write its case needs, write. Every check comes first (nothing is
 * written while any item is wrong), and only writes that change something are made. Rows are keyed
 * by the recipient's identity, so a repeated request finds its own rows and reports them as
 * unchanged: it is idempotent, and it completes a request that failed half-way.
 */

/** The notification a row is written for, with its dashboard: the row's index entries name it. */
export interface RecipientParent extends NotificationRef {
  dashboardId: number;
}

/** An add's options: the audit event of the recipients it changed, when it records one. */
export interface AddOptions {
  audited?: (changed: readonly RecipientOutput[]) => NewAuditEvent;
}

export interface NewEmbedRecipient {
  embedUser: EmbedUser;
  recipient: StoredEmbedRecipient;
}

/** A recipient row as its key names it: known from the request alone for every embed user and every `userId`. */
export type RecipientRef = KindUnion<'ref'>;

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
 * The storage stops with 503 rather than start a call the invocation's time cannot finish.
 */
export interface AddRecipientsStore {
  /** One round of reads (BatchGet) for any mix of keys the request names; never a whole partition. */
  lookUp(request: DirectoryRequest): Promise<Found>;
  /**
   * Creates each embed user together with its recipient row and gives it a new `embedUserId` (the
   * one supplied is not used), unless the embed user (or the row) exists by then (another request
   * made it): those are left unwritten. Returns the id of each, or undefined for those.
   */
  createEmbedUsers(
    notification: RecipientParent,
    recipients: readonly NewEmbedRecipient[],
  ): Promise<(number | undefined)[]>;
  /** Creates each row unless it exists by then; returns those that did exist. */
  createRecipients(
    notification: RecipientParent,
    recipients: readonly StoredRecipient[],
  ): Promise<StoredRecipient[]>;
  /**
   * Sets the changed properties of each row, touching no other attribute, if the row still holds the
   * properties it was read with; returns the updates whose row had changed meanwhile.
   */
  updateRecipients(
    notification: NotificationRef,
    updates: readonly RecipientUpdate[],
  ): Promise<RecipientUpdate[]>;
  /**
   * Whether the notification still exists, read after the writes: a delete that came in between
   * makes the request 404 (the delete's purge removes what it wrote). See lib/store/notifications/notification-guard.ts.
   */
  notificationIsLive(notification: NotificationRef): Promise<boolean>;
  /**
   * Records `event` on condition that the notification still exists, in one write (the request's
   * last): false, and nothing recorded, when a delete came in between.
   */
  recordIfLive(notification: NotificationRef, event: NewAuditEvent): Promise<boolean>;
}

/** The recipient as the API shows it. */
export type RecipientOutput = KindUnion<'output'>;

export interface AddRecipientsResult {
  createdRecipients: RecipientOutput[];
  updatedRecipients: RecipientOutput[];
  unchangedRecipients: RecipientOutput[];
}

type Bucket = 'created' | 'updated' | 'unchanged';

/** What the answer says of one item: its bucket, and the recipient as the API shows it. */
interface Answer {
  bucket: Bucket;
  recipient: RecipientOutput;
}

/** What one item writes, decided from its case before anything is written. */
type Write =
  | { kind: 'nothing'; answer: Answer }
  /** A row for a user that exists, created unless it exists by then. */
  | { kind: 'create-row'; row: StoredRecipient; answer: Answer }
  /** Changed properties of an existing row. */
  | { kind: 'update-row'; update: RecipientUpdate; answer: Answer }
  /** A new embed user with its row: the answer waits for the id its creation gives. */
  | { kind: 'create-embed-user'; created: NewEmbedRecipient };

/** An item of the request (by its place in it), its case and its write. */
interface PlannedItem {
  index: number;
  item: ResolvedRecipient;
  write: Write;
}

interface AnsweredItem {
  index: number;
  answer: Answer;
}

export const userOutput = (user: ConsoleUser): RecipientOutput => ({
  type: 'USER',
  userId: user.id,
  email: user.email,
  username: user.username,
});

export const embedOutput = (row: StoredEmbedRecipient): RecipientOutput => ({
  type: 'EMBED_USER',
  embedTenantName: row.embedTenantName,
  externalId: row.externalId,
  embedUserId: row.embedUserId,
  email: row.email,
});

/** The row of an embed user not yet subscribed: the embed user's own externalId and e-mail, the supplied properties. */
const newEmbedRow = (
  ref: EmbedUserRef,
  embedUser: EmbedUser,
  supplied: RecipientProperties,
): StoredEmbedRecipient => ({
  type: 'EMBED_USER',
  ...ref,
  externalId: embedUser.externalId,
  embedUserId: embedUser.embedUserId,
  email: embedUser.email,
  properties: suppliedProperties(supplied),
});

/** Sorts an item into its bucket by its case, and says what to write for it. */
function planWrite(item: ResolvedRecipient): Write {
  switch (item.kind) {
    case 'existing-user-recipient':
      return { kind: 'nothing', answer: { bucket: 'unchanged', recipient: userOutput(item.user) } };
    case 'new-user-recipient':
      return {
        kind: 'create-row',
        row: { type: 'USER', userId: item.user.id },
        answer: { bucket: 'created', recipient: userOutput(item.user) },
      };
    case 'existing-embed-recipient': {
      const previous = item.row;
      if (!propertiesChanged(previous.properties, item.supplied)) {
        return { kind: 'nothing', answer: { bucket: 'unchanged', recipient: embedOutput(previous) } };
      }
      const next = { ...previous, properties: mergeProperties(previous.properties, item.supplied) };
      return {
        kind: 'update-row',
        update: { previous, next },
        answer: { bucket: 'updated', recipient: embedOutput(next) },
      };
    }
    case 'existing-embed-user': {
      const row = newEmbedRow(item.ref, item.embedUser, item.supplied);
      return { kind: 'create-row', row, answer: { bucket: 'created', recipient: embedOutput(row) } };
    }
    case 'new-embed-user': {
      // Its id is given when it is created, once every check has passed: 0 stands in until then.
      const { ref, externalId, email } = item;
      const embedUser = { embedTenantName: ref.embedTenantName, externalId, embedUserId: 0, email };
      return {
        kind: 'create-embed-user',
        created: { embedUser, recipient: newEmbedRow(ref, embedUser, item.supplied) },
      };
    }
  }
}

const planItems = (items: readonly { index: number; item: ResolvedRecipient }[]): PlannedItem[] =>
  items.map(({ index, item }) => ({ index, item, write: planWrite(item) }));

function toResult(answered: readonly AnsweredItem[]): AddRecipientsResult {
  const inRequestOrder = answered.toSorted((a, b) => a.index - b.index);
  const inBucket = (bucket: Bucket) =>
    inRequestOrder.flatMap(({ answer }) => (answer.bucket === bucket ? [answer.recipient] : []));
  return {
    createdRecipients: inBucket('created'),
    updatedRecipients: inBucket('updated'),
    unchangedRecipients: inBucket('unchanged'),
  };
}

/** The key of an item's row: known from the request alone for every embed user and every `userId`. */
const requestedRowOf = (item: SupportedRecipientInput): RecipientRef | undefined =>
  item.type === 'EMBED_USER'
    ? { type: 'EMBED_USER', ...embedUserRefOf(item) }
    : item.userId !== undefined
      ? { type: 'USER', userId: item.userId }
      : undefined;

const rowOf = (item: ResolvedRecipient): RecipientRef =>
  isConsoleUserCase(item) ? { type: 'USER', userId: item.user.id } : { type: 'EMBED_USER', ...item.ref };

interface WhatTheRequestNames {
  parent: RecipientParent;
  rows: StoredRecipient[];
  directory: Directory;
}

/**
 * Reads only what the request names, in at most two rounds of BatchGets whatever the notification
 * holds: first the notification, the rows whose keys the request gives (every embed user, every
 * `userId`), the tenants and the e-mail links; then the embed users that have no row yet, and the
 * users (with their rows) found through an e-mail link.
 */
async function readWhatTheRequestNames(
  store: AddRecipientsStore,
  notification: NotificationRef,
  items: readonly SupportedRecipientInput[],
): Promise<WhatTheRequestNames> {
  const names = namesToLookUp(items);
  const first = await store.lookUp({
    notification,
    recipients: { of: notification, refs: items.flatMap((item) => requestedRowOf(item) ?? []) },
    tenants: names.tenants,
    userIds: names.userIds,
    emails: names.emails,
  });
  const parent = first.notification;
  if (!parent) throw notificationNotFound(notification);
  const read = new Set(first.users.map((user) => user.id));
  const linked = [...new Set(first.emailLinks.map((link) => link.userId))].filter((id) => !read.has(id));
  const subscribed = new Set(first.recipients.map((row) => identityOf(row)));
  const embedUsers = names.embedUsers.filter((ref) => !subscribed.has(identityOf(ref)));
  if (linked.length === 0 && embedUsers.length === 0) {
    return { parent, rows: first.recipients, directory: first };
  }
  const second = await store.lookUp({
    userIds: linked,
    embedUsers,
    recipients: { of: notification, refs: linked.map((userId) => ({ type: 'USER', userId })) },
  });
  return {
    parent,
    rows: [...first.recipients, ...second.recipients],
    directory: { ...first, users: [...first.users, ...second.users], embedUsers: second.embedUsers },
  };
}

const fulfilled = <T>(result: PromiseSettledResult<T>): T => {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
};

/** Rounds of conditional writes before a request that keeps meeting concurrent changes answers 409. */
const MAX_WRITE_ROUNDS = 4;

/**
 * Sends the writes of one round at once, each conditional on what was read, and answers the items
 * whose writes went through. The others were raced by a concurrent request: a row it created, a row
 * it changed, an embed user it created first. Waits for every write in flight before failing, so
 * that nothing keeps running after the answer is sent.
 */
async function writeRound(
  store: AddRecipientsStore,
  notification: RecipientParent,
  planned: readonly PlannedItem[],
): Promise<{ answered: AnsweredItem[]; contested: PlannedItem[] }> {
  const creates = planned.flatMap(({ write }) => (write.kind === 'create-row' ? [write.row] : []));
  const updates = planned.flatMap(({ write }) => (write.kind === 'update-row' ? [write.update] : []));
  const provisions = planned.flatMap(({ write }) =>
    write.kind === 'create-embed-user' ? [write.created] : [],
  );
  const [ids, existed, stale] = await Promise.allSettled([
    provisions.length > 0 ? store.createEmbedUsers(notification, provisions) : [],
    creates.length > 0 ? store.createRecipients(notification, creates) : [],
    updates.length > 0 ? store.updateRecipients(notification, updates) : [],
  ]);
  const createdIds = fulfilled(ids);
  const idOf = new Map(provisions.map((created, i) => [created, createdIds[i]]));
  const existing = new Set(fulfilled(existed).map((row) => identityOf(row)));
  const changed = new Set(fulfilled(stale).map((update) => identityOf(update.next)));
  const answerOf = (write: Write): Answer | undefined => {
    switch (write.kind) {
      case 'nothing':
        return write.answer;
      case 'create-row':
        return existing.has(identityOf(write.row)) ? undefined : write.answer;
      case 'update-row':
        return changed.has(identityOf(write.update.next)) ? undefined : write.answer;
      case 'create-embed-user': {
        const embedUserId = idOf.get(write.created);
        if (embedUserId === undefined) return undefined;
        return { bucket: 'created', recipient: embedOutput({ ...write.created.recipient, embedUserId }) };
      }
    }
  };
  const outcomes = planned.map((item) => ({ item, answer: answerOf(item.write) }));
  return {
    answered: outcomes.flatMap(({ item, answer }) => (answer ? [{ index: item.index, answer }] : [])),
    contested: outcomes.flatMap(({ item, answer }) => (answer ? [] : [item])),
  };
}

/**
 * Writes the plan, round after round: the contested items are read again (their rows, and the embed
 * users another request created first), resolved and planned again, so that a row another request
 * created is reported unchanged, an embed user another request created keeps its one id, and a
 * property another request set is compared with what is stored now.
 */
async function writePlan(
  store: AddRecipientsStore,
  notification: RecipientParent,
  planned: readonly PlannedItem[],
  round = 1,
): Promise<AnsweredItem[]> {
  if (round > MAX_WRITE_ROUNDS && planned.some(({ write }) => write.kind !== 'nothing')) {
    throw new ConflictError('The recipients are being changed by others; retry the request');
  }
  const { answered, contested } = await writeRound(store, notification, planned);
  if (contested.length === 0) return answered;
  const found = await store.lookUp({
    recipients: { of: notification, refs: contested.map(({ item }) => rowOf(item)) },
    embedUsers: contested.flatMap(({ item }) => (isConsoleUserCase(item) ? [] : [item.ref])),
  });
  const resolve = resolveAgain(found);
  const replanned = planItems(contested.map(({ index, item }) => ({ index, item: resolve(item) })));
  return [...answered, ...(await writePlan(store, notification, replanned, round + 1))];
}

export async function addRecipients(
  store: AddRecipientsStore,
  notification: NotificationRef,
  items: readonly RecipientInput[],
  options: AddOptions = {},
): Promise<AddRecipientsResult> {
  const supported = refuseSlack(items);
  refuseDuplicates(supported);
  const { parent, rows, directory } = await readWhatTheRequestNames(store, notification, supported);
  const resolved = resolveRecipients(supported, rows, directory);
  const planned = planItems(resolved.map((item, index) => ({ index, item })));
  const answered = await writePlan(store, parent, planned);
  const result = toResult(answered);
  // Raced by a delete: what this request wrote is the purge's; the answer is the delete's 404. The
  // audit event of what it changed is its last write, on the same condition.
  const wrote = planned.some(({ write }) => write.kind !== 'nothing');
  if (!wrote) return result;
  const changed = [...result.createdRecipients, ...result.updatedRecipients];
  const live =
    options.audited && changed.length > 0
      ? await store.recordIfLive(notification, options.audited(changed))
      : await store.notificationIsLive(notification);
  if (!live) throw notificationNotFound(notification);
  return result;
}
