import * as dynamodb from '@aws-sdk/client-dynamodb';
import { meterDynamoDb } from '#lib/local/dynamodb-meter';
import { documentClient } from '#lib/store/client';

/**
 * What a piece of work sends to DynamoDB through the handlers' own client: the tests' SDK meter
 * (requests by operation, consumed capacity) and each call as the wire sees it (an SDK middleware at
 * the build step, after the document client's marshalling), with when it started and ended. Sending
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

/** DynamoDB work as the SDK meter counted it; capacity as DynamoDB Local reports it. */
export interface DynamoWork {
  requests: number;
  writeRequests: number;
  byOperation: Record<string, number>;
  readUnits: number;
  writeUnits: number;
}

  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
]);

/** `3 Query, 1 GetItem` */
export const describe = (byOperation: Record<string, number>) =>
  Object.entries(byOperation)
    .map(([name, count]) => `${count} ${name}`)
    .join(', ');

export async function watch<T>(
  work: () => Promise<T>,
): Promise<{ result: T; work: DynamoWork; calls: Call[] }> {
  const client = documentClient();
  const meter = meterDynamoDb(client);
  const calls: Call[] = [];
  const name = `bench-recorder-${Math.random().toString(36).slice(2)}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      // The meter asks for the capacity; the recording keeps the call as the code made it.
      const { ReturnConsumedCapacity: _metered, ...input } = args.input as Record<string, unknown>;
      const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      const call = {
        operation,
        input: structuredClone(input),
        startedAt: performance.now(),
        endedAt: Number.NaN,
      };
      calls.push(call);
      try {
        return await next(args);
      } finally {
        call.endedAt = performance.now();
      }
    },
    { step: 'build', name },
  );
  try {
    const result = await work();
    const counts = Object.entries(meter.byOperation);
    return {
      result,
      calls,
      work: {
        requests: meter.totalRequests(),
        writeRequests: meter.writeRequests(),
        byOperation: Object.fromEntries(counts.map(([operation, count]) => [operation, count.requests])),
        readUnits: counts.reduce((sum, [, count]) => sum + count.readCapacityUnits, 0),
        writeUnits: meter.writeCapacityUnits(),
      },
    };
  } finally {
    meter.detach();
    client.middlewareStack.remove(name);
  }
}

type CommandClass = new (input: never) => Parameters<dynamodb.DynamoDBClient['send']>[0];

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
  if (!actions) return fresh(input);
  return {
    ...input,
    TransactItems: actions.map((action) => (action.Put ? { ...action, Put: fresh(action.Put) } : action)),
  };
}

let replays = 0;

/**
 * Sends the recorded calls again with `client`. A call starts once every call that had ended before it
 * started in the recording has ended here too, so parallel batches stay parallel and dependent reads
 * stay in sequence. `retarget` may aim an input at another table.
 */
export async function replay(
  client: dynamodb.DynamoDBClient,
  calls: readonly Call[],
  retarget: (input: Record<string, unknown>) => Record<string, unknown> = (input) => input,
): Promise<void> {
  const tag = `replay-${++replays}`;
  const done: Promise<unknown>[] = [];
  calls.forEach((call, i) => {
    const before = calls.flatMap((earlier, j) =>
      j < i && earlier.endedAt <= call.startedAt ? [done[j]] : [],
    );
    const Command = (dynamodb as unknown as Record<string, CommandClass | undefined>)[
      `${call.operation}Command`
    ];
    if (!Command) throw new Error(`No client-dynamodb command for ${call.operation}`);
    done[i] = Promise.all(before).then(() =>
      client.send(new Command(retarget(freshPuts(call.input, tag)) as never)).catch((error: unknown) => {
        // A condition the request saw refused (a 404's delete, a report of an unknown job) is refused
        // for the bare client too: the same call, the same answer.
        if (!(error instanceof Error) || !/ConditionalCheckFailed|TransactionCanceled/.test(error.name))
          throw error;
      }),
    );
  });
  await Promise.all(done);
}
