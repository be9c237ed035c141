import type { Call } from './dynamodb.ts';

/**
 * Write units as DynamoDB bills them, estimated from the recorded calls. DynamoDB Local reports
 * consumed capacity, but not as the service bills it: 2 units for a transaction of 4 small puts, where
 * the service bills 2 per item (8). Sizes follow DynamoDB's rules: attribute names and values in UTF-8
 * bytes, numbers about one byte per two digits plus one, 3 bytes per map or list.
 */

type Value = Record<string, unknown>;
type Attributes = Record<string, Value>;

function valueBytes(value: Value): number {
  const [type, inner] = Object.entries(value)[0] ?? ['NULL', true];
  if (type === 'S') return Buffer.byteLength(inner as string);
  if (type === 'N') return Math.ceil((inner as string).replace(/^-|\.|^0+/g, '').length / 2) + 1;
  if (type === 'B') return (inner as Uint8Array).length;
  if (type === 'SS') return (inner as string[]).reduce((sum, s) => sum + Buffer.byteLength(s), 0);
  if (type === 'NS') return (inner as string[]).reduce((sum, n) => sum + valueBytes({ N: n }), 0);
  if (type === 'L') return 3 + (inner as Value[]).reduce((sum, v) => sum + 1 + valueBytes(v), 0);
  if (type === 'M') return 3 + itemBytes(inner as Attributes) + Object.keys(inner as object).length;
  return 1; // BOOL, NULL
}

const itemBytes = (item: Attributes): number =>
  Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueBytes(value), 0);
export const itemUnits = (item: Attributes) => Math.max(1, Math.ceil(itemBytes(item) / 1024));

/** One item written (or checked, in a transaction) by a call; transactions and batches unpacked. */
interface WriteAction {
  item?: Attributes;
  key?: Attributes;
  update?: { expression: string; names: Record<string, string> };
  check?: boolean;
  transactional?: boolean;
}

function action(kind: string, request: Record<string, unknown>, transactional = false): WriteAction {
  const key = request.Key as Attributes | undefined;
  if (kind === 'Put' || kind === 'PutRequest') return { item: request.Item as Attributes, transactional };
  if (kind === 'Update') {
    const names = (request.ExpressionAttributeNames ?? {}) as Record<string, string>;
    return { key, update: { expression: String(request.UpdateExpression ?? ''), names }, transactional };
  }
  return { key, check: kind === 'ConditionCheck', transactional };
}

export function writeActions(calls: readonly Call[]): WriteAction[] {
  return calls.flatMap(({ operation, input }): WriteAction[] => {
    if (operation === 'TransactWriteItems')
      return (input.TransactItems as Record<string, Record<string, unknown>>[]).flatMap((one) =>
        Object.entries(one).map(([kind, request]) => action(kind, request, true)),
      );
    if (operation === 'BatchWriteItem')
      return Object.values(input.RequestItems as Record<string, Record<string, Record<string, unknown>>[]>)
        .flat()
        .flatMap((one) => Object.entries(one).map(([kind, request]) => action(kind, request)));
    const kind = operation.replace(/Item$/, '');
    return ['Put', 'Update', 'Delete'].includes(kind) ? [action(kind, input)] : [];
  });
}

/**
 * Billed write units of the recorded calls: 1 per KB per item put, 1 per update or delete (the item's
 * size before it is not in the request; ours are small), twice that inside a transaction.
 */
export const billedWriteUnits = (calls: readonly Call[]) =>
  writeActions(calls).reduce(
    (sum, a) => sum + (a.item ? itemUnits(a.item) : 1) * (a.transactional ? 2 : 1),
    0,
  );

/**
 * Index writes as DynamoDB bills them, per index: a put of an item with the index's key attributes
 * writes 1; an update that sets them moves the entry (a delete and a put: 2), one that removes them
 * writes 1; an update or delete of an item in a list index (projection ALL: the notification item, a
 * recipient row) rewrites or removes its copy there (1 per list index).
 */
export function indexWriteUnits(calls: readonly Call[]): { due: number; lists: number } {
  let [due, lists] = [0, 0];
  for (const { item, key, update, check } of writeActions(calls)) {
    if (check) continue;
    if (item) {
      due += item.gsi3pk ? 1 : 0;
      lists += (item.gsi1pk ? 1 : 0) + (item.gsi2pk ? 1 : 0);
      continue;
    }
    const sk = String(key?.sk?.S ?? '');
    if (sk === 'NOTIFICATION' || sk.startsWith('RECIPIENT#')) lists += 2;
    if (!update) continue;
    const [setPart = '', removePart = ''] = update.expression.split(/\bREMOVE\b/);
    const touches = (part: string) =>
      Object.entries(update.names).some(
        ([placeholder, name]) => name === 'gsi3sk' && part.includes(placeholder),
      ) || /\bgsi3sk\b/.test(part);
    if (touches(setPart)) due += 2;
    else if (touches(removePart)) due += 1;
  }
  return { due, lists };
}
