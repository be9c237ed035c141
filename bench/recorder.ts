import * as dynamodb from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Records the DynamoDB calls a request makes, as the wire sees them (after the document client's
 * marshalling), with when each started and ended. Replaying them with a bare low-level client gives
 * the floor of a request: the same calls, in the same order and with the same overlap, and nothing else.
 */

export interface RecordedCall {
  /** `GetItem`, `UpdateItem`, `BatchWriteItem`, ... */
  operation: string;
  input: Record<string, unknown>;
  startedAt: number;
  endedAt: number;
}

export interface Recorder {
  /** Records the calls made while `work` runs. */
  record<T>(work: () => Promise<T>): Promise<{ result: T; calls: RecordedCall[] }>;
  detach(): void;
}

export function recordDynamoDb(client: DynamoDBDocumentClient): Recorder {
  let calls: RecordedCall[] | undefined;
  const name = `bench-recorder-${Math.random().toString(36).slice(2)}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (!calls) return next(args);
      const into = calls;
      const { ReturnConsumedCapacity: _metered, ...input } = args.input as Record<string, unknown>;
      const call: RecordedCall = {
        operation: (context.commandName ?? 'Unknown').replace(/Command$/, ''),
        input: structuredClone(input),
        startedAt: performance.now(),
        endedAt: Number.NaN,
      };
      into.push(call);
      try {
        return await next(args);
      } finally {
        call.endedAt = performance.now();
      }
    },
    { step: 'build', name },
  );
  return {
    async record(work) {
      calls = [];
      try {
        const result = await work();
        return { result, calls };
      } finally {
        calls = undefined;
      }
    },
    detach: () => {
      client.middlewareStack.remove(name);
    },
  };
}

type CommandClass = new (input: never) => Parameters<dynamodb.DynamoDBClient['send']>[0];

function commandFor(call: RecordedCall, input: Record<string, unknown>) {
  const Command = (dynamodb as unknown as Record<string, CommandClass | undefined>)[
    `${call.operation}Command`
  ];
  if (!Command) throw new Error(`No client-dynamodb command for ${call.operation}`);
  return new Command(input as never);
}

/**
 * Sends the recorded calls again with `client`. A call starts once every call that had ended before
 * it started in the recording has ended here too, so parallel batches stay parallel and dependent
 * reads stay in sequence. `adjust` may rewrite an input (e.g. an expected version) before it is sent.
 */
export async function replay(
  client: dynamodb.DynamoDBClient,
  calls: readonly RecordedCall[],
  adjust: (call: RecordedCall, results: unknown[]) => Record<string, unknown> = (call) => call.input,
): Promise<unknown[]> {
  const results: unknown[] = new Array(calls.length);
  const done: Promise<unknown>[] = [];
  calls.forEach((call, i) => {
    const before = calls.flatMap((earlier, j) =>
      j < i && earlier.endedAt <= call.startedAt ? [done[j]] : [],
    );
    done[i] = Promise.all(before).then(async () => {
      try {
        results[i] = await client.send(commandFor(call, adjust(call, results)));
      } catch (error) {
        // A conditional write the request saw refused (a 404's delete, a schedule state already
        // stored) is refused for the bare client too: the same call, the same answer.
        if (!(error instanceof Error) || !/ConditionalCheckFailed|TransactionCanceled/.test(error.name))
          throw error;
        results[i] = error;
      }
      return results[i];
    });
  });
  await Promise.all(done);
  return results;
}
