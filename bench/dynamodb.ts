import * as dynamodb from '@aws-sdk/client-dynamodb';
import { type DynamoMeter, meterDynamoDb } from '#lib/local/dynamodb-meter';
import { documentClient } from '#lib/store/client';

/**
 * What a piece of work sends to DynamoDB through the handlers' own client: the tests' SDK meter
 * (requests by operation, consumed capacity as DynamoDB Local reports it) and each call as the wire
 * sees it (a middleware at the build step, after the document client's marshalling), timed. Sending
 * the calls again with a bare low-level client gives the floor of a request: the same calls, in the
 * same order and with the same overlap, and nothing else.
 */

export interface Call {
  /** `GetItem`, `UpdateItem`, `BatchWriteItem`, ... */
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

/** DynamoDB work as the meter counted it. */
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
export type DynamoWork = ReturnType<typeof workOf>;

export async function watch<T>(work: () => Promise<T>) {
  const client = documentClient();
  const meter = meterDynamoDb(client);
  const calls: Call[] = [];
  const name = `bench-recorder-${Math.random().toString(36).slice(2)}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      // The meter asks for the capacity; the recording keeps the call as the code made it.
      const { ReturnConsumedCapacity: _metered, ...input } = structuredClone(
        args.input as Record<string, unknown>,
      );
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

/**
 * A put on the condition that its item is new goes to a key of its own in each replay (the recorded
 * key is taken by the request's own put), so that it is written as the request wrote it.
 */
function freshPuts(input: Record<string, unknown>, tag: string): Record<string, unknown> {
  type Put = { Item?: Record<string, { S?: string }>; ConditionExpression?: string };
  const fresh = (put: Put) =>
    put.Item && put.ConditionExpression
      ? { ...put, Item: { ...put.Item, pk: { S: `${put.Item.pk?.S}#${tag}` } } }
      : put;
  const actions = input.TransactItems as { Put?: Put }[] | undefined;
  if (!actions) return input.Item ? fresh(input) : input;
  return {
    ...input,
    TransactItems: actions.map((action) => (action.Put ? { ...action, Put: fresh(action.Put) } : action)),
  };
}

let replays = 0;
type CommandClass = new (input: never) => Parameters<dynamodb.DynamoDBClient['send']>[0];
const commands = dynamodb as unknown as Record<string, CommandClass | undefined>;

/**
 * Sends the recorded calls again with `client`. A call starts once every call that had ended before it
 * started in the recording has ended here too: parallel batches stay parallel, dependent reads in order.
 */
export async function replay(client: dynamodb.DynamoDBClient, calls: readonly Call[]): Promise<void> {
  const tag = `replay-${++replays}`;
  const done: Promise<unknown>[] = [];
  for (const [i, call] of calls.entries()) {
    const Command = commands[`${call.operation}Command`];
    if (!Command) throw new Error(`No client-dynamodb command for ${call.operation}`);
    const before = calls.flatMap((earlier, j) =>
      j < i && earlier.endedAt <= call.startedAt ? [done[j]] : [],
    );
    done[i] = Promise.all(before).then(() =>
      client.send(new Command(freshPuts(call.input, tag) as never)).catch((error: Error) => {
        // A condition the request saw refused (a 404's delete, a report of an unknown job) is refused
        // for the bare client too: the same call, the same answer.
        if (!/ConditionalCheckFailed|TransactionCanceled/.test(error.name)) throw error;
      }),
    );
  }
  await Promise.all(done);
}
