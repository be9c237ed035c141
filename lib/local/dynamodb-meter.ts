import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Counts what a DynamoDB client sends, per operation: requests, items, consumed capacity. An SDK
 * middleware on the client's own stack, so it sees exactly the calls the code makes (it sits before
 * the SDK's retry step: a call the SDK itself retries counts once). Used by tests and by the benchmark, which share it from here.
 */

export interface OperationCount {
  requests: number;
  /** Items sent (writes) or asked for (reads) across those requests. */
  items: number;
  readCapacityUnits: number;
  writeCapacityUnits: number;
}

export interface DynamoMeter {
  /** Counts since the last reset, by operation name (`BatchWriteItem`, `Query`, ...). */
  readonly byOperation: Record<string, OperationCount>;
  totalRequests(): number;
  /** Requests that write (PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems). */
  writeRequests(): number;
  writeCapacityUnits(): number;
  reset(): void;
  detach(): void;
}

const WRITE_OPERATIONS = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
]);

type Input = Record<string, unknown> & {
  RequestItems?: Record<string, unknown[] | { Keys?: unknown[] }>;
  TransactItems?: unknown[];
};
type CapacityEntry = { ReadCapacityUnits?: number; WriteCapacityUnits?: number; CapacityUnits?: number };

function itemsIn(operation: string, input: Input): number {
  if (input.TransactItems) return input.TransactItems.length;
  if (input.RequestItems) {
    return Object.values(input.RequestItems).reduce<number>(
      (sum, value) => sum + (Array.isArray(value) ? value.length : (value.Keys?.length ?? 0)),
      0,
    );
  }
  return operation === 'Query' || operation === 'Scan' ? 0 : 1;
}

export function meterDynamoDb(client: DynamoDBDocumentClient): DynamoMeter {
  const byOperation: Record<string, OperationCount> = {};
  const name = `dynamo-meter-${Math.random().toString(36).slice(2)}`;

  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      const input = args.input as Input;
      // Ask DynamoDB to report capacity (DynamoDB Local under-reports transactions and misses: see BENCHMARKS.md).
      input.ReturnConsumedCapacity ??= 'TOTAL';
      byOperation[operation] ??= { requests: 0, items: 0, readCapacityUnits: 0, writeCapacityUnits: 0 };
      const count = byOperation[operation];
      count.requests += 1;
      count.items += itemsIn(operation, input);
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: CapacityEntry | CapacityEntry[] })
        .ConsumedCapacity;
      for (const entry of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
        const units = entry.CapacityUnits ?? 0;
        if (WRITE_OPERATIONS.has(operation)) count.writeCapacityUnits += entry.WriteCapacityUnits ?? units;
        else count.readCapacityUnits += entry.ReadCapacityUnits ?? units;
      }
      return result;
    },
    { step: 'initialize', name, priority: 'high' },
  );

  const sum = (pick: (operation: string, count: OperationCount) => number) =>
    Object.entries(byOperation).reduce((total, [operation, count]) => total + pick(operation, count), 0);

  return {
    byOperation,
    totalRequests: () => sum((_, count) => count.requests),
    writeRequests: () => sum((operation, count) => (WRITE_OPERATIONS.has(operation) ? count.requests : 0)),
    writeCapacityUnits: () => sum((_, count) => count.writeCapacityUnits),
    reset: () => {
      for (const key of Object.keys(byOperation)) delete byOperation[key];
    },
    detach: () => {
      client.middlewareStack.remove(name);
    },
  };
}
