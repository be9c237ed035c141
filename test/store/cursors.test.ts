import { describe, expect, it } from 'vitest';
import { ValidationError } from '#lib/errors';
import { type CursorScope, cursorPosition, encodeCursor } from '#lib/store/dynamo/cursors';

/**
 * A list's cursors: base64url JSON `[list, position]`, accepted only by the list that issued them and
 * only for a position that list can have. Every refusal is the same 400 naming `after`.
 */

const list: CursorScope = {
  id: 'DEPLOYMENT#9#NOTIFICATIONS',
  isPosition: (position) => /^\d{3}$/.test(position),
};
const raw = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The error `cursorPosition` throws for `cursor`, checked to be the 400 naming `after`. */
function refusal(cursor: string): void {
  let thrown: unknown;
  try {
    cursorPosition(list, cursor);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ValidationError);
  expect((thrown as ValidationError).problems).toEqual([
    { path: 'after', message: 'is not a cursor of this list' },
  ]);
}

describe('a cursor', () => {
  it('is base64url JSON of the list and the position, and reads back as the position', () => {
    const cursor = encodeCursor(list, '042');
    expect(cursor).toBe(raw(['DEPLOYMENT#9#NOTIFICATIONS', '042']));
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursorPosition(list, cursor)).toBe('042');
  });

  it('is optional: no cursor is the start of the list', () => {
    expect(cursorPosition(list, undefined)).toBeUndefined();
  });

  it('issued for another list is refused, even with a position this list can have', () => {
    refusal(encodeCursor({ ...list, id: 'DEPLOYMENT#8#NOTIFICATIONS' }, '042'));
  });

  it('with a position of another shape than the list’s is refused', () => {
    refusal(encodeCursor(list, '42'));
    refusal(encodeCursor(list, '042#RUN'));
  });

  it('that is not base64url JSON is refused', () => {
    refusal('not a cursor!');
    refusal(Buffer.from('["DEPLOYMENT#9#NOTIFICATIONS",').toString('base64url'));
  });

  it('of another JSON shape is refused: null, an object, a number position, more or fewer parts', () => {
    refusal(raw(null));
    refusal(raw({ 0: list.id, 1: '042', length: 2 }));
    refusal(raw([list.id, 42]));
    refusal(raw([list.id, 420]));
    refusal(raw([list.id]));
    refusal(raw([list.id, '042', '043']));
    refusal(raw(['042', list.id]));
  });

  it('tampered with, even to the same JSON written otherwise, is refused', () => {
    const cursor = encodeCursor(list, '042');
    refusal(Buffer.from(`[ "${list.id}", "042" ]`).toString('base64url'));
    refusal(`${cursor}=`);
    refusal(`${cursor}A`);
    expect(cursorPosition(list, cursor)).toBe('042');
  });
});
