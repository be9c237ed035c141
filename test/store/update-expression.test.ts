import { describe, expect, it } from 'vitest';
import {
  absent,
  all,
  compare,
  conditionOf,
  either,
  exists,
  ifAbsent,
  is,
  plus,
  updateOf,
} from '#lib/store/dynamo/update-expression';

/**
 * The one builder of update and condition expressions, without a table: what DynamoDB refuses (an
 * unused name or value, an empty clause, a reserved word written as it is) never leaves it.
 */

/** Every placeholder the maps define, each used by the expressions, and none used that they lack. */
function expectPlaceholdersUsed(built: {
  UpdateExpression?: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}) {
  const text = `${built.UpdateExpression ?? ''} ${built.ConditionExpression ?? ''}`;
  const used = new Set(text.match(/[#:][A-Za-z0-9_]+/g));
  const defined = [
    ...Object.keys(built.ExpressionAttributeNames ?? {}),
    ...Object.keys(built.ExpressionAttributeValues ?? {}),
  ];
  expect(new Set(defined)).toEqual(used);
}

describe('updateOf', () => {
  it('writes SET, REMOVE, ADD and the condition with a placeholder for every name and every value', () => {
    const built = updateOf({
      set: { status: 'queued', attempts: 2 },
      remove: ['gsi1pk', 'gsi1sk'],
      add: { version: 1 },
      condition: [is('status', 'failed'), compare('attempts', '<', 2), exists('pk')],
    });
    expect(built).toEqual({
      UpdateExpression: 'SET #n0 = :v0, #n1 = :v1 REMOVE #n2, #n3 ADD #n4 :v2',
      ConditionExpression: '#n0 = :v3 AND #n1 < :v4 AND attribute_exists(#n5)',
      ExpressionAttributeNames: {
        '#n0': 'status',
        '#n1': 'attempts',
        '#n2': 'gsi1pk',
        '#n3': 'gsi1sk',
        '#n4': 'version',
        '#n5': 'pk',
      },
      ExpressionAttributeValues: { ':v0': 'queued', ':v1': 2, ':v2': 1, ':v3': 'failed', ':v4': 2 },
    });
    expectPlaceholdersUsed(built);
  });

  it('never writes an attribute’s name into the expression, so reserved words are safe', () => {
    const reserved = ['status', 'name', 'value', 'source', 'hold', 'cursor', 'error', 'owner'];
    const built = updateOf({
      set: Object.fromEntries(reserved.map((word) => [word, word])),
      condition: reserved.map((word) => absent(word)),
    });
    for (const word of reserved) {
      expect(built.UpdateExpression).not.toContain(word);
      expect(built.ConditionExpression).not.toContain(word);
    }
    expect(Object.values(built.ExpressionAttributeNames ?? {}).sort()).toEqual([...reserved].sort());
    expectPlaceholdersUsed(built);
  });

  it('leaves out an empty clause, and the condition and maps when nothing fills them', () => {
    expect(updateOf({ add: { failedRuns: 1 } })).toEqual({
      UpdateExpression: 'ADD #n0 :v0',
      ExpressionAttributeNames: { '#n0': 'failedRuns' },
      ExpressionAttributeValues: { ':v0': 1 },
    });
    expect(updateOf({ set: {}, remove: ['gsi3pk', 'gsi3sk'], add: {}, condition: [] })).toEqual({
      UpdateExpression: 'REMOVE #n0, #n1',
      ExpressionAttributeNames: { '#n0': 'gsi3pk', '#n1': 'gsi3sk' },
    });
    expect(() => updateOf({ set: {}, remove: [], condition: [exists('pk')] })).toThrow(/empty update/);
  });

  it('refuses an undefined value, which the client would drop from the request', () => {
    expect(() => updateOf({ set: { error: undefined } })).toThrow(/undefined/);
    expect(() => updateOf({ set: { a: 1 }, condition: [is('b', undefined)] })).toThrow(/undefined/);
    // null is a value: it is stored as NULL.
    expect(updateOf({ set: { error: null } }).ExpressionAttributeValues).toEqual({ ':v0': null });
  });

  it('names each part of a map path, and one placeholder serves a name used twice', () => {
    const built = updateOf({
      set: { 'recipients.queued': 3, queued: 'x' },
      add: { 'recipients.failed': -1 },
      condition: [is('recipients.queued', 2)],
    });
    expect(built.UpdateExpression).toBe('SET #n0.#n1 = :v0, #n1 = :v1 ADD #n0.#n2 :v2');
    expect(built.ConditionExpression).toBe('#n0.#n1 = :v3');
    expect(built.ExpressionAttributeNames).toEqual({ '#n0': 'recipients', '#n1': 'queued', '#n2': 'failed' });
    expectPlaceholdersUsed(built);
  });

  it('writes if_not_exists and a sum as a SET’s value, and either as one parenthesised OR', () => {
    const built = updateOf({
      set: { scheduleVersion: plus(ifAbsent('version', 0), 1), markSk: ifAbsent('markSk', 'due') },
      condition: [exists('pk'), either(absent('version'), is('version', 4))],
    });
    expect(built.UpdateExpression).toBe(
      'SET #n0 = if_not_exists(#n1, :v0) + :v1, #n2 = if_not_exists(#n2, :v2)',
    );
    expect(built.ConditionExpression).toBe(
      'attribute_exists(#n3) AND (attribute_not_exists(#n1) OR #n1 = :v3)',
    );
    expect(built.ExpressionAttributeValues).toEqual({ ':v0': 0, ':v1': 1, ':v2': 'due', ':v3': 4 });
    expectPlaceholdersUsed(built);
  });
});

describe('conditionOf', () => {
  it('nests all inside either in parentheses of its own, so the OR cannot split the AND', () => {
    const built = conditionOf(
      either(absent('pk'), all(compare('scheduleVersion', '<', 3), compare('signature', '<>', 's'))),
    );
    expect(built.ConditionExpression).toBe('(attribute_not_exists(#n0) OR (#n1 < :v0 AND #n2 <> :v1))');
    expectPlaceholdersUsed(built);
  });

  it('writes a condition alone, with no update and no empty values map', () => {
    expect(conditionOf(exists('pk'), compare('failedRuns', '>', 0))).toEqual({
      ConditionExpression: 'attribute_exists(#n0) AND #n1 > :v0',
      ExpressionAttributeNames: { '#n0': 'pk', '#n1': 'failedRuns' },
      ExpressionAttributeValues: { ':v0': 0 },
    });
    expect(conditionOf(absent('pk'))).toEqual({
      ConditionExpression: 'attribute_not_exists(#n0)',
      ExpressionAttributeNames: { '#n0': 'pk' },
    });
  });
});
