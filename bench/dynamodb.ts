import { type DynamoMeter, meterDynamoDb } from '#lib/local/dynamodb-meter';
import { documentClient } from '#lib/store/dynamo/client';

/**
 * What a piece of work sends to DynamoDB through the handlers' own client: the tests' SDK meter and each
 * call as the wire sees it (the build step, after marshalling), timed; and the write units DynamoDB would
 * bill for them, which DynamoDB Local does not report (2 for a transaction of 4 small puts, billed 8).
 */

export interface Call {
  operation: string;
  input: Record<string, unknown>;
  startedAt: number;
  endedAt: number;
}

/** `3 Query, 1 GetItem` */
export const describe = (byOperation: Record<string, number>) =>
  Object.entries(byOperation)
    .map(([name, count]) => `${count} ${name}`)
    .join(', ');

function workOf(meter: DynamoMeter) {
  const counts = Object.entries(meter.byOperation);
  return {
    requests: meter.totalRequests(),
    writeRequests: meter.writeRequests(),
    byOperation: Object.fromEntries(counts.map(([operation, count]) => [operation, count.requests])),
    readUnits: counts.reduce((sum, [, count]) => sum + count.readCapacityUnits, 0),
    writeUnits: meter.writeCapacityUnits(),
  };
}

/** `work`'s result, its DynamoDB work and its calls as recorded. */
export async function watch<T>(work: () => Promise<T>) {
  const client = documentClient();
  const meter = meterDynamoDb(client);
  const calls: Call[] = [];
  const name = `bench-recorder-${Math.random().toString(36).slice(2)}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      const call = { operation, input, startedAt: performance.now(), endedAt: Number.NaN };
      calls.push(call);
      return next(args).finally(() => {
        call.endedAt = performance.now();
      });
    },
    { step: 'build', name },
  );
  try {
    const result = await work();
    return { result, calls, work: workOf(meter) };
  } finally {
    meter.detach();
    client.middlewareStack.remove(name);
  }
}

/** The time during which at least one of the calls was in flight: a request's floor, its DynamoDB calls alone. */
export function inFlight(calls: readonly Call[]): number {
  let [total, until] = [0, Number.NEGATIVE_INFINITY];
  for (const { startedAt, endedAt } of [...calls].sort((x, y) => x.startedAt - y.startedAt)) {
    total += Math.max(0, endedAt - Math.max(startedAt, until));
    until = Math.max(until, endedAt);
  }
  return total;
}

type Attributes = Record<string, Record<string, unknown>>;

/** A value's size by DynamoDB's rules: strings in UTF-8, numbers a byte per two digits plus one, lists and maps 3. */
function valueBytes(value: Record<string, unknown>): number {
  const [type, inner] = Object.entries(value)[0] ?? ['NULL', true];
  if (type === 'S') return Buffer.byteLength(inner as string);
  if (type === 'N') return Math.ceil((inner as string).replace(/^-|\.|^0+/g, '').length / 2) + 1;
  if (type === 'L') return 3 + (inner as Attributes[string][]).reduce((sum, v) => sum + 1 + valueBytes(v), 0);
  if (type === 'M') return 3 + itemBytes(inner as Attributes) + Object.keys(inner as object).length;
  return 1; // BOOL, NULL: the stores write no sets and no binary.
}

const itemBytes = (item: Attributes): number =>
  Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueBytes(value), 0);
const itemUnits = (item: Attributes) => Math.max(1, Math.ceil(itemBytes(item) / 1024));

type Request = Record<string, unknown>;
/** Each item a call writes (or checks, in a transaction): transactions and batches unpacked. */
export function writes(calls: readonly Call[]) {
  const write = (kind: string, request: Request, transactional = false) => ({
    kind: kind.replace(/Request$/, ''),
    item: request.Item as Attributes | undefined,
    sk: String((request.Key as Attributes | undefined)?.sk?.S ?? ''),
    update: String(request.UpdateExpression ?? ''),
    names: (request.ExpressionAttributeNames ?? {}) as Record<string, string>,
    transactional,
  });
  const each = (actions: Record<string, Request>[], transactional = false) =>
    actions.flatMap((action) =>
      Object.entries(action).map(([kind, request]) => write(kind, request, transactional)),
    );
  return calls.flatMap(({ operation, input }) => {
    if (operation === 'TransactWriteItems')
      return each(input.TransactItems as Record<string, Request>[], true);
    if (operation === 'BatchWriteItem') return each(Object.values(input.RequestItems as object).flat());
    const kind = operation.replace(/Item$/, '');
    return ['Put', 'Update', 'Delete'].includes(kind) ? [write(kind, input)] : [];
  });
}

/**
 * Billed write units of the recorded calls: 1 per KB per item put, 1 per update, delete or condition
 * check (the item's size before it is not in the request; ours are small), twice that in a transaction.
 */
export const billedWriteUnits = (calls: readonly Call[]) =>
  writes(calls).reduce((sum, w) => sum + (w.item ? itemUnits(w.item) : 1) * (w.transactional ? 2 : 1), 0);

/**
 * Index writes as DynamoDB bills them, per index: a put of an item with the index's key attributes
 * writes 1; an update that sets them moves the entry (a delete and a put: 2), one that removes them
 * writes 1; an update or delete of an item in a list index (projection ALL: the notification item, a
 * recipient row) rewrites or removes its copy there (1 per list index).
 */
export function indexWriteUnits(calls: readonly Call[]): { due: number; lists: number } {
  let [due, lists] = [0, 0];
  for (const { kind, item, sk, update, names } of writes(calls)) {
    if (item) {
      due += item.gsi3pk ? 1 : 0;
      lists += (item.gsi1pk ? 1 : 0) + (item.gsi2pk ? 1 : 0);
      continue;
    }
    if (kind === 'ConditionCheck') continue;
    if (sk === 'NOTIFICATION' || sk.startsWith('RECIPIENT#')) lists += 2;
    const [setPart = '', removePart = ''] = update.split(/\bREMOVE\b/);
    const named = Object.entries(names).flatMap(([placeholder, name]) =>
      name === 'gsi3sk' ? [placeholder] : [],
    );
    const touches = (part: string) => /\bgsi3sk\b/.test(part) || named.some((p) => part.includes(p));
    if (touches(setPart)) due += 2;
    else if (touches(removePart)) due += 1;
  }
  return { due, lists };
}
