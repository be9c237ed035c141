import * as z from 'zod/mini';
import type { ConsoleUser, EmbedUser } from '#lib/domain/entities';
import {
  type ConsoleUserDirectory,
  duplicateProblems,
  indexUsers,
  noteSameUser,
  type Problems,
  refuseProblems,
  resolveUser,
  type UserIndex,
  userItemNames,
} from '#lib/domain/recipients/console-user-resolution';
import type { EmbedUserRef, KindOf, KindUnion } from '#lib/domain/recipients/recipient-kinds';
import {
  type EmbedRecipientInput,
  normalizeExternalId,
  type RecipientInput,
  type RecipientProperties,
  type UserRecipientInput,
} from '#lib/domain/recipients/recipients-input';
import { UnavailableError, UnsupportedRecipientError, ValidationError } from '#lib/errors';

/**
 * The checks of an add-recipients request, all made before anything is written: Slack items and
 * duplicates need only the request; the rest needs what the store holds (a `Directory`). Each check
 * reports every problem it finds, with the path of the item (`recipients.3.email`).
 */

export type SupportedRecipientInput = UserRecipientInput | EmbedRecipientInput;

export type StoredUserRecipient = KindOf<'row', 'USER'>;
export type StoredEmbedRecipient = KindOf<'row', 'EMBED_USER'>;
/** A recipient row as stored; its fields per kind are in lib/domain/recipients/recipient-kinds.ts. */
export type StoredRecipient = KindUnion<'row'>;

/** What the store holds about the names a request uses; absent names are simply missing. */
export interface Directory extends ConsoleUserDirectory {
  tenants: string[];
  embedUsers: EmbedUser[];
}

/** The notification's rows a request read: its console users by id, its embed users by identity. */
interface RowsRead {
  userIds: ReadonlySet<number>;
  embedRows: ReadonlyMap<string, StoredEmbedRecipient>;
}

/** A console user the notification already has a row for: nothing to write. */
interface ExistingUserRecipient {
  kind: 'existing-user-recipient';
  user: ConsoleUser;
}

/** A console user the notification has no row for yet: the row is to be created. */
interface NewUserRecipient {
  kind: 'new-user-recipient';
  user: ConsoleUser;
}

/** What every embed user's case carries: its key, and the properties the item supplies. */
interface EmbedUserItem {
  ref: EmbedUserRef;
  supplied: RecipientProperties;
}

/** An embed user the notification already has a row for: the supplied properties may change the row. */
interface ExistingEmbedRecipient extends EmbedUserItem {
  kind: 'existing-embed-recipient';
  row: StoredEmbedRecipient;
}

/** An embed user that exists, without a row in the notification: the row is made from the embed user. */
interface ExistingEmbedUser extends EmbedUserItem {
  kind: 'existing-embed-user';
  embedUser: EmbedUser;
}

/** An embed user that does not exist yet: created, with its row, from the request's externalId and e-mail. */
interface NewEmbedUser extends EmbedUserItem {
  kind: 'new-embed-user';
  externalId: string;
  email: string;
}

/** An item of the request as what the store holds makes it: one case each, which settles what to write. */
export type ResolvedRecipient =
  | ExistingUserRecipient
  | NewUserRecipient
  | ExistingEmbedRecipient
  | ExistingEmbedUser
  | NewEmbedUser;

/** Whether an item is a console user (with a row or without). */
export const isConsoleUserCase = (
  item: ResolvedRecipient,
): item is ExistingUserRecipient | NewUserRecipient =>
  item.kind === 'existing-user-recipient' || item.kind === 'new-user-recipient';

const emailShape = z.email();
export const isEmail = (value: string) => emailShape.safeParse(value).success;

export const embedUserRefOf = (item: EmbedRecipientInput): EmbedUserRef => ({
  embedTenantName: item.embedTenantName,
  normalizedExternalId: normalizeExternalId(item.externalId),
});

/** One string per recipient identity, for maps and sets; tenant names are case-sensitive, externalIds are not. */
export const identityOf = (recipient: StoredUserRecipient | EmbedUserRef) =>
  'userId' in recipient
    ? `USER\u0000${recipient.userId}`
    : `EMBED_USER\u0000${recipient.embedTenantName}\u0000${recipient.normalizedExternalId}`;

/** Slack is not supported yet: any Slack item refuses the whole request. */
export function refuseSlack(items: readonly RecipientInput[]): SupportedRecipientInput[] {
  const problems = items.flatMap((item, index) =>
    item.type === 'SLACK'
      ? [{ path: `recipients.${index}`, message: 'is a SLACK recipient; Slack recipients are not supported' }]
      : [],
  );
  if (problems.length > 0) throw new UnsupportedRecipientError(problems);
  return items.flatMap((item) => (item.type === 'SLACK' ? [] : [item]));
}

/** The same recipient twice, as far as the request alone tells: same userId, same e-mail, same embed user. */
export function refuseDuplicates(items: readonly SupportedRecipientInput[]): void {
  const problems = duplicateProblems(items, (item) =>
    item.type === 'USER' ? userItemNames(item) : [identityOf(embedUserRefOf(item))],
  );
  if (problems.length > 0) throw new ValidationError(problems);
}

/** The names a request uses: tenants, users by id and by (lower-cased) e-mail, and embed users. */
export function namesToLookUp(items: readonly SupportedRecipientInput[]): {
  tenants: string[];
  userIds: number[];
  emails: string[];
  embedUsers: EmbedUserRef[];
} {
  const tenants = new Set<string>();
  const userIds = new Set<number>();
  const emails = new Set<string>();
  const embedUsers = new Map<string, EmbedUserRef>();
  for (const item of items) {
    if (item.type === 'USER') {
      if (item.userId !== undefined) userIds.add(item.userId);
      if (item.email !== undefined) emails.add(item.email.toLowerCase());
      continue;
    }
    tenants.add(item.embedTenantName);
    const ref = embedUserRefOf(item);
    embedUsers.set(identityOf(ref), ref);
  }
  return {
    tenants: [...tenants],
    userIds: [...userIds],
    emails: [...emails],
    embedUsers: [...embedUsers.values()],
  };
}

function indexRows(rows: readonly StoredRecipient[]): RowsRead {
  const userIds = new Set<number>();
  const embedRows = new Map<string, StoredEmbedRecipient>();
  for (const row of rows) {
    if (row.type === 'USER') userIds.add(row.userId);
    else embedRows.set(identityOf(row), row);
  }
  return { userIds, embedRows };
}

const indexEmbedUsers = (embedUsers: readonly EmbedUser[]): ReadonlyMap<string, EmbedUser> =>
  new Map(
    embedUsers.map((user) => [
      identityOf({
        embedTenantName: user.embedTenantName,
        normalizedExternalId: normalizeExternalId(user.externalId),
      }),
      user,
    ]),
  );

interface Indexed extends UserIndex {
  tenants: ReadonlySet<string>;
  embedUsers: ReadonlyMap<string, EmbedUser>;
  rows: RowsRead;
}

function indexDirectory(directory: Directory, rows: readonly StoredRecipient[]): Indexed {
  return {
    tenants: new Set(directory.tenants),
    ...indexUsers(directory),
    embedUsers: indexEmbedUsers(directory.embedUsers),
    rows: indexRows(rows),
  };
}

/** A console user's case: whether the notification has its row. */
const consoleUserCase = (user: ConsoleUser, rows: RowsRead): ExistingUserRecipient | NewUserRecipient =>
  rows.userIds.has(user.id)
    ? { kind: 'existing-user-recipient', user }
    : { kind: 'new-user-recipient', user };

/** A stored embed user's case: by the notification's row for it, else by the embed user; undefined for neither. */
function storedEmbedUserCase(
  ref: EmbedUserRef,
  supplied: RecipientProperties,
  rows: RowsRead,
  embedUsers: ReadonlyMap<string, EmbedUser>,
): ExistingEmbedRecipient | ExistingEmbedUser | undefined {
  const identity = identityOf(ref);
  const row = rows.embedRows.get(identity);
  if (row) return { kind: 'existing-embed-recipient', ref, supplied, row };
  const embedUser = embedUsers.get(identity);
  if (embedUser) return { kind: 'existing-embed-user', ref, supplied, embedUser };
  return undefined;
}

function resolveEmbedUser(
  item: EmbedRecipientInput,
  path: string,
  directory: Indexed,
  problems: Problems,
): ResolvedRecipient | undefined {
  const ref = embedUserRefOf(item);
  const { securityContext, userAttributes, groups } = item;
  const supplied = { securityContext, userAttributes, groups };
  let resolvable = true;
  if (!directory.tenants.has(item.embedTenantName)) {
    problems.unresolvable.push({
      path: `${path}.embedTenantName`,
      message: 'is not a registered embed tenant',
    });
    resolvable = false;
  }
  // A supplied e-mail must be one, even where the stored embed user's e-mail is what counts.
  if (item.email !== undefined && !isEmail(item.email)) {
    problems.unresolvable.push({ path: `${path}.email`, message: 'is not a valid e-mail address' });
    resolvable = false;
  }
  if (!resolvable) return undefined;
  const stored = storedEmbedUserCase(ref, supplied, directory.rows, directory.embedUsers);
  if (stored) return stored;
  const email = item.email ?? (isEmail(item.externalId) ? item.externalId : undefined);
  if (email === undefined) {
    problems.unresolvable.push({
      path,
      message: 'does not resolve to a valid e-mail: give email, or an e-mail-shaped externalId',
    });
    return undefined;
  }
  return { kind: 'new-embed-user', ref, supplied, externalId: item.externalId, email };
}

/**
 * Resolves every item against the notification's rows it names and the directory, or throws with
 * every problem: `unresolvable_recipient` when any item does not resolve to a valid e-mail, else
 * `validation_failed` (two items that turn out to be the same console user).
 */
export function resolveRecipients(
  items: readonly SupportedRecipientInput[],
  rows: readonly StoredRecipient[],
  directory: Directory,
): ResolvedRecipient[] {
  const indexed = indexDirectory(directory, rows);
  const problems: Problems = { unresolvable: [], invalid: [] };
  const firstIndexOfUser = new Map<number, number>();
  const resolved = items.map((item, index): ResolvedRecipient | undefined => {
    const path = `recipients.${index}`;
    if (item.type === 'EMBED_USER') return resolveEmbedUser(item, path, indexed, problems);
    const user = resolveUser(item, path, indexed, problems);
    if (!user) return undefined;
    noteSameUser(user, index, firstIndexOfUser, problems);
    return consoleUserCase(user, indexed.rows);
  });
  refuseProblems(problems);
  // Every item that did not resolve has reported its problem above.
  return resolved.flatMap((item) => item ?? []);
}

/**
 * Resolves items again whose writes met a concurrent request's, against their rows and embed users
 * as read now: a row another request created makes an existing recipient, an embed user another
 * request created is adopted. None is an embed user to create: one that was created and has vanished
 * could only have been deleted in between, and a repeat of the request starts afresh.
 */
export function resolveAgain(found: {
  recipients: readonly StoredRecipient[];
  embedUsers: readonly EmbedUser[];
}): (item: ResolvedRecipient) => Exclude<ResolvedRecipient, NewEmbedUser> {
  const rows = indexRows(found.recipients);
  const embedUsers = indexEmbedUsers(found.embedUsers);
  return (item) => {
    if (isConsoleUserCase(item)) return consoleUserCase(item.user, rows);
    const stored = storedEmbedUserCase(item.ref, item.supplied, rows, embedUsers);
    if (!stored) throw new UnavailableError('An embed user changed during the request');
    return stored;
  };
}
