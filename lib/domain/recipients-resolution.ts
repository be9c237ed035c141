import * as z from 'zod/mini';
import type { ConsoleUser, EmbedUser } from '#lib/domain/entities';
import {
  type EmbedRecipientInput,
  normalizeExternalId,
  type RecipientInput,
  type RecipientProperties,
  type UserRecipientInput,
} from '#lib/domain/recipients-input';
import {
  type FieldProblem,
  UnavailableError,
  UnresolvableRecipientError,
  UnsupportedRecipientError,
  ValidationError,
} from '#lib/errors';

/**
 * The checks of an add-recipients request, all made before anything is written: Slack items and
 * duplicates need only the request; the rest needs what the store holds (a `Directory`). Each check
 * reports every problem it finds, with the path of the item (`recipients.3.email`).
 */

export type SupportedRecipientInput = UserRecipientInput | EmbedRecipientInput;

/** An embed user as keys name it: the tenant, and the externalId trimmed and lower-cased. */
export interface EmbedUserRef {
  embedTenantName: string;
  normalizedExternalId: string;
}

export interface StoredUserRecipient {
  type: 'USER';
  userId: number;
  /** When the row was first written (ISO-8601 UTC); kept by later rewrites of the row. */
  subscribedAt?: string;
}

/** A recipient row keeps its embed user's id, externalId and e-mail, so a replay need not read the embed user. */
export interface StoredEmbedRecipient extends EmbedUserRef {
  type: 'EMBED_USER';
  externalId: string;
  embedUserId: number;
  email: string;
  properties: RecipientProperties;
  /** When the row was first written (ISO-8601 UTC); kept by later rewrites of the row. */
  subscribedAt?: string;
}

export type StoredRecipient = StoredUserRecipient | StoredEmbedRecipient;

/** What the store holds about the names a request uses; absent names are simply missing. */
export interface Directory {
  tenants: string[];
  users: ConsoleUser[];
  /** Lower-cased e-mail → console user id. */
  emailLinks: { email: string; userId: number }[];
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

function sameRecipientProblem(index: number, earlier: number): FieldProblem {
  return { path: `recipients.${index}`, message: `is the same recipient as recipients[${earlier}]` };
}

/** The same recipient twice, as far as the request alone tells: same userId, same e-mail, same embed user. */
export function refuseDuplicates(items: readonly SupportedRecipientInput[]): void {
  const firstIndex = new Map<string, number>();
  const problems: FieldProblem[] = [];
  items.forEach((item, index) => {
    const names =
      item.type === 'USER'
        ? [
            ...(item.userId !== undefined ? [`USER\u0000${item.userId}`] : []),
            ...(item.email !== undefined ? [`EMAIL\u0000${item.email.toLowerCase()}`] : []),
          ]
        : [identityOf(embedUserRefOf(item))];
    const earlier = names.map((name) => firstIndex.get(name)).find((found) => found !== undefined);
    if (earlier !== undefined) problems.push(sameRecipientProblem(index, earlier));
    for (const name of names) if (!firstIndex.has(name)) firstIndex.set(name, index);
  });
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

interface Indexed {
  tenants: ReadonlySet<string>;
  users: ReadonlyMap<number, ConsoleUser>;
  userIdsByEmail: ReadonlyMap<string, number>;
  embedUsers: ReadonlyMap<string, EmbedUser>;
  rows: RowsRead;
}

function indexDirectory(directory: Directory, rows: readonly StoredRecipient[]): Indexed {
  return {
    tenants: new Set(directory.tenants),
    users: new Map(directory.users.map((user) => [user.id, user])),
    userIdsByEmail: new Map(directory.emailLinks.map((link) => [link.email, link.userId])),
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

type Problems = { unresolvable: FieldProblem[]; invalid: FieldProblem[] };

function resolveUser(
  item: UserRecipientInput,
  path: string,
  directory: Indexed,
  problems: Problems,
): ConsoleUser | undefined {
  const active = (user: ConsoleUser | undefined) => (user?.active ? user : undefined);
  let byId: ConsoleUser | undefined;
  let byEmail: ConsoleUser | undefined;
  if (item.userId === undefined && item.email === undefined) {
    problems.unresolvable.push({ path, message: 'needs userId or email to identify a USER recipient' });
  }
  if (item.userId !== undefined) {
    byId = active(directory.users.get(item.userId));
    if (!byId)
      problems.unresolvable.push({ path: `${path}.userId`, message: 'does not name an active console user' });
  }
  if (item.email !== undefined) {
    const email = item.email.toLowerCase();
    const linked = directory.userIdsByEmail.get(email);
    const user = linked === undefined ? undefined : active(directory.users.get(linked));
    // A link left behind by an e-mail change must not resolve to the user who gave that address up.
    byEmail = user?.email.toLowerCase() === email ? user : undefined;
    if (!byEmail) {
      problems.unresolvable.push({
        path: `${path}.email`,
        message: "does not match an active console user's e-mail",
      });
    }
  }
  if (byId && byEmail && byId.id !== byEmail.id) {
    problems.unresolvable.push({ path, message: 'userId and email name different console users' });
    return undefined;
  }
  return byId ?? byEmail;
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
    // By id in one item and by e-mail in another: the same recipient only shows once resolved.
    const earlier = firstIndexOfUser.get(user.id);
    if (earlier !== undefined) problems.invalid.push(sameRecipientProblem(index, earlier));
    else firstIndexOfUser.set(user.id, index);
    return consoleUserCase(user, indexed.rows);
  });
  if (problems.unresolvable.length > 0) {
    throw new UnresolvableRecipientError([...problems.unresolvable, ...problems.invalid].sort(byItemIndex));
  }
  if (problems.invalid.length > 0) throw new ValidationError(problems.invalid);
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
    if (!stored) throw new UnavailableError('An embed user changed during the request; it is safe to repeat');
    return stored;
  };
}

const indexIn = (path: string) => Number(path.split('.')[1]);
const byItemIndex = (a: FieldProblem, b: FieldProblem) => indexIn(a.path) - indexIn(b.path);
