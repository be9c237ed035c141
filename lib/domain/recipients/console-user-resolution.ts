import type { ConsoleUser } from '#lib/domain/entities';
import type { UserRecipientInput } from '#lib/domain/recipients/recipients-input';
import { type FieldProblem, UnresolvableRecipientError, ValidationError } from '#lib/errors';

/**
 * How an item naming a console user (by `userId`, by `email`, or both) resolves to one, shared by an
 * add-recipients request (lib/domain/recipients/recipients-resolution.ts, which adds the embed-user cases) and a
 * test send, which names console users only.
 */

/** The console users a request's names found, and the e-mail links that name them. */
export interface ConsoleUserDirectory {
  users: ConsoleUser[];
  /** Lower-cased e-mail → console user id. */
  emailLinks: { email: string; userId: number }[];
}

/** What stops a request: items that name no valid recipient, and items that name one twice. */
export interface Problems {
  unresolvable: FieldProblem[];
  invalid: FieldProblem[];
}

export interface UserIndex {
  users: ReadonlyMap<number, ConsoleUser>;
  userIdsByEmail: ReadonlyMap<string, number>;
}

export const indexUsers = (directory: ConsoleUserDirectory): UserIndex => ({
  users: new Map(directory.users.map((user) => [user.id, user])),
  userIdsByEmail: new Map(directory.emailLinks.map((link) => [link.email, link.userId])),
});

/** The names an item uses for its console user, as far as the request alone tells. */
export const userItemNames = (item: UserRecipientInput) => [
  ...(item.userId !== undefined ? [`USER\u0000${item.userId}`] : []),
  ...(item.email !== undefined ? [`EMAIL\u0000${item.email.toLowerCase()}`] : []),
];

function sameRecipientProblem(index: number, earlier: number): FieldProblem {
  return { path: `recipients.${index}`, message: `is the same recipient as recipients[${earlier}]` };
}

/** The active console user an item names, or undefined with its problems noted. */
export function resolveUser(
  item: UserRecipientInput,
  path: string,
  directory: UserIndex,
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

/**
 * Notes an item that resolved to a user an earlier item resolved to: by id in one item and by e-mail
 * in another, the same recipient only shows once resolved.
 */
export function noteSameUser(
  user: ConsoleUser,
  index: number,
  firstIndexOfUser: Map<number, number>,
  problems: Problems,
): void {
  const earlier = firstIndexOfUser.get(user.id);
  if (earlier !== undefined) problems.invalid.push(sameRecipientProblem(index, earlier));
  else firstIndexOfUser.set(user.id, index);
}

/**
 * Throws with every problem found: `unresolvable_recipient` when any item does not resolve, else
 * `validation_failed` (two items that turn out to be the same recipient).
 */
export function refuseProblems(problems: Problems): void {
  if (problems.unresolvable.length > 0) {
    throw new UnresolvableRecipientError([...problems.unresolvable, ...problems.invalid].sort(byItemIndex));
  }
  if (problems.invalid.length > 0) throw new ValidationError(problems.invalid);
}

/** The same name twice in a request: an earlier item with any name this one uses. */
export function duplicateProblems<T>(items: readonly T[], namesOf: (item: T) => string[]): FieldProblem[] {
  const firstIndex = new Map<string, number>();
  const problems: FieldProblem[] = [];
  items.forEach((item, index) => {
    const names = namesOf(item);
    const earlier = names.map((name) => firstIndex.get(name)).find((found) => found !== undefined);
    if (earlier !== undefined) problems.push(sameRecipientProblem(index, earlier));
    for (const name of names) if (!firstIndex.has(name)) firstIndex.set(name, index);
  });
  return problems;
}

/** Refuses items that name the same console user, as far as the request alone tells (before any read). */
export function refuseDuplicateUsers(items: readonly UserRecipientInput[]): void {
  const duplicates = duplicateProblems(items, userItemNames);
  if (duplicates.length > 0) throw new ValidationError(duplicates);
}

/** A test send's items, each naming a console user: the active users they name, in order, or every problem. */
export function resolveConsoleUsers(
  items: readonly UserRecipientInput[],
  directory: ConsoleUserDirectory,
): ConsoleUser[] {
  const index = indexUsers(directory);
  const problems: Problems = { unresolvable: [], invalid: [] };
  const firstIndexOfUser = new Map<number, number>();
  const users = items.flatMap((item, i) => {
    const user = resolveUser(item, `recipients.${i}`, index, problems);
    if (!user) return [];
    noteSameUser(user, i, firstIndexOfUser, problems);
    return [user];
  });
  refuseProblems(problems);
  return users;
}

const indexIn = (path: string) => Number(path.split('.')[1]);
const byItemIndex = (a: FieldProblem, b: FieldProblem) => indexIn(a.path) - indexIn(b.path);
