import type { ConsoleUser, EmbedUser } from '#lib/domain/entities';
import type { RecipientInput } from '#lib/domain/recipients-input';
import { mergeProperties, propertiesChanged, suppliedProperties } from '#lib/domain/recipients-properties';
import {
  type Directory,
  type EmbedUserRef,
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
import { NotFoundError, UnavailableError } from '#lib/errors';

/**
 * Adds recipients to a notification: every check first (nothing is written while any item is
 * wrong), then only the writes that change something. Rows are keyed by the recipient's identity,
 * so a repeated request finds its own rows and reports them as unchanged: it is idempotent, and it
 * completes a request that failed half-way.
 */

export interface NotificationRef {
  deploymentId: number;
  id: number;
}

export interface StorageOptions {
  /** Milliseconds left for the request; storage stops with 503 rather than be cut off mid-batch. */
  remainingTimeMs?: () => number;
}

export interface NewEmbedRecipient {
  embedUser: EmbedUser;
  recipient: StoredEmbedRecipient;
}

export interface DirectoryRequest {
  tenants?: readonly string[];
  userIds?: readonly number[];
  /** Lower-cased. */
  emails?: readonly string[];
  embedUsers?: readonly EmbedUserRef[];
}

export interface RecipientRepository {
  /** Every recipient row of the notification, or undefined when the notification does not exist. */
  recipientsOf(
    notification: NotificationRef,
    options: StorageOptions,
  ): Promise<StoredRecipient[] | undefined>;
  /** One round of reads for any mix of names; what is not stored is absent from the answer. */
  lookUp(request: DirectoryRequest, options: StorageOptions): Promise<Directory>;
  /** Reserves `count` consecutive embed user ids in one step and returns the first. */
  reserveEmbedUserIds(count: number, options: StorageOptions): Promise<number>;
  /**
   * Creates each embed user together with its recipient row, unless the embed user exists by then
   * (another request made it); those are left unwritten and returned.
   */
  createEmbedUsers(
    notification: NotificationRef,
    recipients: readonly NewEmbedRecipient[],
    options: StorageOptions,
  ): Promise<EmbedUserRef[]>;
  /** Stores the rows as given (new ones and changed ones alike). */
  putRecipients(
    notification: NotificationRef,
    recipients: readonly StoredRecipient[],
    options: StorageOptions,
  ): Promise<void>;
}

export type RecipientOutput =
  | { type: 'USER'; userId: number; email: string; username: string }
  | { type: 'EMBED_USER'; embedTenantName: string; externalId: string; embedUserId: number; email: string };

export interface AddRecipientsResult {
  createdRecipients: RecipientOutput[];
  updatedRecipients: RecipientOutput[];
  unchangedRecipients: RecipientOutput[];
}

export type Bucket = 'created' | 'updated' | 'unchanged';

export type Outcome =
  | { bucket: Bucket; type: 'USER'; user: ConsoleUser; recipient: StoredUserRecipient }
  | { bucket: Bucket; type: 'EMBED_USER'; recipient: StoredEmbedRecipient };

/** What a request changes, decided before anything is written. */
export interface ChangePlan {
  /** One per item, in request order. */
  outcomes: Outcome[];
  /** Rows to store as they are: console users, embed users that exist, changed properties. */
  puts: StoredRecipient[];
  /** Outcomes whose embed user is created with its row; their `embedUserId` is assigned once reserved. */
  creations: number[];
}

export function indexRecipients(recipients: readonly StoredRecipient[]): Map<string, StoredRecipient> {
  return new Map(recipients.map((recipient) => [identityOf(recipient), recipient]));
}

/** Sorts each resolved item into its bucket and lists the rows to write for it. */
export function planChanges(
  resolved: readonly ResolvedRecipient[],
  existing: ReadonlyMap<string, StoredRecipient>,
): ChangePlan {
  const plan: ChangePlan = { outcomes: [], puts: [], creations: [] };
  for (const item of resolved) {
    if (item.type === 'USER') {
      const stored = existing.get(identityOf({ type: 'USER', userId: item.user.id }));
      const recipient: StoredUserRecipient = { type: 'USER', userId: item.user.id };
      if (!stored) plan.puts.push(recipient);
      plan.outcomes.push({
        bucket: stored ? 'unchanged' : 'created',
        type: 'USER',
        user: item.user,
        recipient,
      });
      continue;
    }
    if (item.recipient) {
      const stored = item.recipient;
      if (!propertiesChanged(stored.properties, item.supplied)) {
        plan.outcomes.push({ bucket: 'unchanged', type: 'EMBED_USER', recipient: stored });
        continue;
      }
      const recipient = { ...stored, properties: mergeProperties(stored.properties, item.supplied) };
      plan.puts.push(recipient);
      plan.outcomes.push({ bucket: 'updated', type: 'EMBED_USER', recipient });
      continue;
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
    if (item.embedUser) plan.puts.push(recipient);
    else plan.creations.push(plan.outcomes.length);
    plan.outcomes.push({ bucket: 'created', type: 'EMBED_USER', recipient });
  }
  return plan;
}

export function toOutput(outcome: Outcome): RecipientOutput {
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

export function toResult(outcomes: readonly Outcome[]): AddRecipientsResult {
  const inBucket = (bucket: Bucket) =>
    outcomes.filter((outcome) => outcome.bucket === bucket).map((outcome) => toOutput(outcome));
  return {
    createdRecipients: inBucket('created'),
    updatedRecipients: inBucket('updated'),
    unchangedRecipients: inBucket('unchanged'),
  };
}

/** Users found through an e-mail link are read in a second round, unless the first one read them by id. */
async function lookUpDirectory(
  repository: RecipientRepository,
  items: readonly SupportedRecipientInput[],
  existing: ReadonlyMap<string, StoredRecipient>,
  options: StorageOptions,
): Promise<Directory> {
  const first = await repository.lookUp(namesToLookUp(items, existing), options);
  const read = new Set(first.users.map((user) => user.id));
  const linked = [...new Set(first.emailLinks.map((link) => link.userId))].filter((id) => !read.has(id));
  if (linked.length === 0) return first;
  const second = await repository.lookUp({ userIds: linked }, options);
  return { ...first, users: [...first.users, ...second.users] };
}

/** Waits for every write in flight before failing: nothing keeps running after the answer is sent. */
async function bothSettled<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [first, second] = await Promise.allSettled([a, b]);
  if (first.status === 'rejected') throw first.reason;
  if (second.status === 'rejected') throw second.reason;
  return [first.value, second.value];
}

/**
 * Another request created some of our new embed users first: their stored ids (and externalId and
 * e-mail) are adopted, so that exactly one embed user exists and every answer shows its id.
 */
async function adoptExistingEmbedUsers(
  repository: RecipientRepository,
  notification: NotificationRef,
  plan: ChangePlan,
  conflicts: readonly EmbedUserRef[],
  options: StorageOptions,
): Promise<void> {
  const directory = await repository.lookUp({ embedUsers: conflicts }, options);
  const stored = indexDirectory(directory).embedUsers;
  const conflicted = new Set(conflicts.map((ref) => identityOf(ref)));
  const rows: StoredRecipient[] = [];
  for (const index of plan.creations) {
    const outcome = plan.outcomes[index] as Outcome & { type: 'EMBED_USER' };
    const identity = identityOf(outcome.recipient);
    if (!conflicted.has(identity)) continue;
    const embedUser = stored.get(identity);
    // Only a deletion in between could cause this; a repeat of the request starts afresh.
    if (!embedUser)
      throw new UnavailableError('An embed user changed during the request; it is safe to repeat');
    outcome.recipient = {
      ...outcome.recipient,
      externalId: embedUser.externalId,
      embedUserId: embedUser.embedUserId,
      email: embedUser.email,
    };
    rows.push(outcome.recipient);
  }
  await repository.putRecipients(notification, rows, options);
}

async function applyPlan(
  repository: RecipientRepository,
  notification: NotificationRef,
  plan: ChangePlan,
  options: StorageOptions,
): Promise<void> {
  const created: NewEmbedRecipient[] = [];
  if (plan.creations.length > 0) {
    const firstId = await repository.reserveEmbedUserIds(plan.creations.length, options);
    plan.creations.forEach((index, i) => {
      const outcome = plan.outcomes[index] as Outcome & { type: 'EMBED_USER' };
      const recipient = { ...outcome.recipient, embedUserId: firstId + i };
      outcome.recipient = recipient;
      const { embedTenantName, externalId, embedUserId, email } = recipient;
      created.push({ embedUser: { embedTenantName, externalId, embedUserId, email }, recipient });
    });
  }
  const [conflicts] = await bothSettled(
    created.length > 0 ? repository.createEmbedUsers(notification, created, options) : Promise.resolve([]),
    plan.puts.length > 0 ? repository.putRecipients(notification, plan.puts, options) : Promise.resolve(),
  );
  if (conflicts.length > 0) await adoptExistingEmbedUsers(repository, notification, plan, conflicts, options);
}

export async function addRecipients(
  repository: RecipientRepository,
  notification: NotificationRef,
  items: readonly RecipientInput[],
  options: StorageOptions = {},
): Promise<AddRecipientsResult> {
  const supported = refuseSlack(items);
  refuseDuplicates(supported);
  const stored = await repository.recipientsOf(notification, options);
  if (!stored) {
    throw new NotFoundError(`Notification ${notification.id} of deployment ${notification.deploymentId}`);
  }
  const existing = indexRecipients(stored);
  const directory = await lookUpDirectory(repository, supported, existing, options);
  const plan = planChanges(resolveRecipients(supported, existing, directory), existing);
  await applyPlan(repository, notification, plan, options);
  return toResult(plan.outcomes);
}
