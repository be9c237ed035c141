import type { RecordedCall } from './recorder.ts';

/**
 * Write units as DynamoDB bills them, estimated from the items a request sent. DynamoDB Local reports
 * consumed capacity, but not as the service bills it: it reports 2 units for a transaction of 4 small
 * puts, where the service bills 2 per item (8). Sizes follow DynamoDB's rules: attribute names and
 * values in UTF-8 bytes, numbers about one byte per two digits plus one, 3 bytes per map or list.
 */

type AttributeValue = Record<string, unknown>;

function valueBytes(value: AttributeValue): number {
  const [type, inner] = Object.entries(value)[0] ?? ['NULL', true];
  switch (type) {
    case 'S':
      return Buffer.byteLength(inner as string);
    case 'N':
      return Math.ceil((inner as string).replace(/^-|\.|^0+/g, '').length / 2) + 1;
    case 'B':
      return (inner as Uint8Array).length;
    case 'BOOL':
    case 'NULL':
      return 1;
    case 'SS':
      return (inner as string[]).reduce((sum, s) => sum + Buffer.byteLength(s), 0);
    case 'NS':
      return (inner as string[]).reduce((sum, n) => sum + valueBytes({ N: n }), 0);
    case 'L':
      return 3 + (inner as AttributeValue[]).reduce((sum, v) => sum + 1 + valueBytes(v), 0);
    case 'M':
      return 3 + itemBytes(inner as Record<string, AttributeValue>) + Object.keys(inner as object).length;
    default:
      return 0;
  }
}

export function itemBytes(item: Record<string, unknown>): number {
  return Object.entries(item).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + valueBytes(value as AttributeValue),
    0,
  );
}

const unitsFor = (item: Record<string, unknown>) => Math.max(1, Math.ceil(itemBytes(item) / 1024));

/** Billed write units of the recorded calls: 1 per KB per item, twice that inside a transaction. */
export function billedWriteUnits(calls: readonly RecordedCall[]): number {
  let units = 0;
  for (const { operation, input } of calls) {
    const request = input as {
      RequestItems?: Record<string, { PutRequest?: { Item: Record<string, unknown> } }[]>;
      TransactItems?: Record<string, { Item?: Record<string, unknown> } | undefined>[];
      Item?: Record<string, unknown>;
    };
    if (operation === 'BatchWriteItem')
      for (const requests of Object.values(request.RequestItems ?? {}))
        for (const { PutRequest } of requests) units += PutRequest ? unitsFor(PutRequest.Item) : 1;
    if (operation === 'TransactWriteItems')
      for (const action of request.TransactItems ?? []) {
        const item = action.Put?.Item;
        units += 2 * (item ? unitsFor(item) : 1);
      }
    if (operation === 'PutItem' && request.Item) units += unitsFor(request.Item);
    // The size before an update is not in the request; our updates touch small items (counters, flags).
    if (operation === 'UpdateItem' || operation === 'DeleteItem') units += 1;
  }
  return units;
}

type WriteAction = {
  item?: Record<string, unknown>;
  key?: Record<string, unknown>;
  update?: { expression: string; names: Record<string, string> };
};

/** Every item write a recorded call makes (puts, updates, deletes; transactions and batches unpacked). */
function writeActions(calls: readonly RecordedCall[]): WriteAction[] {
  const actions: WriteAction[] = [];
  const fromUpdate = (request: Record<string, unknown>): WriteAction => ({
    key: request.Key as Record<string, unknown>,
    update: {
      expression: String(request.UpdateExpression ?? ''),
      names: (request.ExpressionAttributeNames ?? {}) as Record<string, string>,
    },
  });
  for (const { operation, input } of calls) {
    const request = input as Record<string, unknown>;
    if (operation === 'PutItem') actions.push({ item: request.Item as Record<string, unknown> });
    if (operation === 'UpdateItem') actions.push(fromUpdate(request));
    if (operation === 'DeleteItem') actions.push({ key: request.Key as Record<string, unknown> });
    if (operation === 'BatchWriteItem')
      for (const requests of Object.values(
        (request.RequestItems ?? {}) as Record<
          string,
          Record<string, { Item?: Record<string, unknown>; Key?: Record<string, unknown> }>[]
        >,
      ))
        for (const one of requests)
          actions.push(one.PutRequest ? { item: one.PutRequest.Item } : { key: one.DeleteRequest?.Key });
    if (operation === 'TransactWriteItems')
      for (const action of (request.TransactItems ?? []) as Record<string, Record<string, unknown>>[]) {
        if (action.Put) actions.push({ item: action.Put.Item as Record<string, unknown> });
        if (action.Update) actions.push(fromUpdate(action.Update));
        if (action.Delete) actions.push({ key: action.Delete.Key as Record<string, unknown> });
      }
  }
  return actions;
}

const stringOf = (value: unknown) => (value as { S?: string } | undefined)?.S ?? '';

/**
 * Index writes as DynamoDB bills them, per index: a put of an item with the index's key attributes
 * writes 1; an update that sets them moves the entry (a delete and a put: 2), one that removes them
 * writes 1; an update of any other attribute of an item in a list index (projection ALL: the
 * notification item, a recipient row) rewrites its copy there (1 per list index).
 */
export function indexWriteUnits(calls: readonly RecordedCall[]): { due: number; lists: number } {
  let due = 0;
  let lists = 0;
  for (const action of writeActions(calls)) {
    if (action.item) {
      if (action.item.gsi3pk) due += 1;
      if (action.item.gsi1pk) lists += 1;
      if (action.item.gsi2pk) lists += 1;
      continue;
    }
    const sk = stringOf(action.key?.sk);
    const inListIndexes = sk === 'NOTIFICATION' || sk.startsWith('RECIPIENT#');
    if (!action.update) {
      if (inListIndexes) lists += 2;
      continue;
    }
    const { expression, names } = action.update;
    const [setPart = '', removePart = ''] = expression.split(/\bREMOVE\b/);
    const touches = (part: string, attribute: string) =>
      Object.entries(names).some(([placeholder, name]) => name === attribute && part.includes(placeholder)) ||
      new RegExp(`\\b${attribute}\\b`).test(part);
    if (touches(setPart, 'gsi3sk')) due += 2;
    else if (touches(removePart, 'gsi3sk')) due += 1;
    if (inListIndexes) lists += 2;
  }
  return { due, lists };
}
