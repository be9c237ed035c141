import { ValidationError } from '#lib/errors';

/**
 * A list's cursors (the paging itself is paging.ts): base64url JSON `[list, position]`, the identity of
 * the list a cursor was issued for and the position (a sort key less the list's prefix) of an item of
 * it. Nothing secret is in it; a cursor is accepted only for the list it names, and its position only
 * if it has the shape that list's positions have, so a forged cursor can at worst start a walk at
 * another point of the caller's own list.
 */

/** What a cursor is checked against: the list it must name and the positions that list can have. */
export interface CursorScope {
  /** Identifies the list: the partition plus whatever else selects the items. */
  id: string;
  /** Whether `position` is a sort key (less the prefix) this list can have. */
  isPosition: (position: string) => boolean;
}

export function encodeCursor(source: CursorScope, position: string): string {
  return Buffer.from(JSON.stringify([source.id, position])).toString('base64url');
}

const foreignCursor = () => new ValidationError([{ path: 'after', message: 'is not a cursor of this list' }]);

/** The position a cursor stands for, or a 400 naming `after` when this list did not issue it. */
export function cursorPosition(source: CursorScope, cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw foreignCursor();
  }
  if (
    !Array.isArray(decoded) ||
    decoded.length !== 2 ||
    decoded[0] !== source.id ||
    typeof decoded[1] !== 'string' ||
    !source.isPosition(decoded[1]) ||
    encodeCursor(source, decoded[1]) !== cursor
  ) {
    throw foreignCursor();
  }
  return decoded[1];
}
