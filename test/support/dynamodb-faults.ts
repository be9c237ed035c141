import {
  ProvisionedThroughputExceededException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Injects into a DynamoDB client what a real engine cannot be made to do on demand: throttling,
 * partial `UnprocessedItems` / `UnprocessedKeys`, cancelled transactions, a failure after the k-th
 * call, a pause. An SDK middleware on the client's own stack, after the request meter (so the meter
 * still counts what the code sends) and before the SDK's retries (so a fault reaches the code as it is).
 */

export type Fault =
  /** The call fails with this error and never reaches DynamoDB. */
  | { kind: 'error'; error: () => Error }
  /** A BatchWriteItem or BatchGetItem processes only part of its items and returns the rest as unprocessed. */
  | { kind: 'unprocessed'; fraction: number }
  /** A TransactWriteItems is cancelled with this reason on its first action. */
  | { kind: 'cancel'; code: string }
  /** Runs before the call goes on (a barrier, a clock that jumps). */
  | { kind: 'hook'; run: () => Promise<void> | void }
  /** The call reaches DynamoDB and takes effect, but the process dies before it reads the answer. */
  | { kind: 'lost' };

interface FaultRule {
  /** Operation names (`BatchWriteItem`, `TransactWriteItems`, ...); the rule counts the calls of these. */
  operations: readonly string[];
  /** Which of those calls (counted from 1) the fault hits; every one when absent. */
  when?: (call: number) => boolean;
  fault: Fault;
}

export interface DynamoFaults {
  add(rule: FaultRule): void;
  clear(): void;
  /** Calls seen per operation since the last `clear`, faulted or not. */
  calls(operation: string): number;
  detach(): void;
}

export const throttling = (): Fault => ({
  kind: 'error',
  error: () => new ProvisionedThroughputExceededException({ message: 'Injected throttling', $metadata: {} }),
});

/** What the code sees when the process dies mid-request: the call never completes. */
export const crash = (): Fault & { kind: 'error' } => ({
  kind: 'error',
  error: () => Object.assign(new Error('Injected crash'), { name: 'InjectedCrash' }),
});

/** Resolves for everyone once `parties` callers are waiting: lines concurrent requests up at one call. */
export function barrier(parties: number): () => Promise<void> {
  let waiting = 0;
  let release: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    release = resolve;
  });
  return () => {
    waiting += 1;
    if (waiting >= parties) release();
    return opened;
  };
}

type Input = Record<string, unknown> & {
  RequestItems?: Record<string, unknown[] | { Keys: unknown[] }>;
  TransactItems?: unknown[];
};
type Output = Record<string, unknown> & { $metadata?: unknown };
type Next = (args: { input: Input }) => Promise<{ output: Output }>;

/** Sends the first part of each table's items and reports the rest as unprocessed; always makes progress unless `fraction` is 1. */
async function partially(operation: string, fraction: number, args: { input: Input }, next: Next) {
  const sent: Record<string, unknown> = {};
  const withheld: Record<string, unknown> = {};
  for (const [table, request] of Object.entries(args.input.RequestItems ?? {})) {
    const items = Array.isArray(request) ? request : request.Keys;
    const keep = Math.ceil(items.length * (1 - fraction));
    const [kept, rest] = [items.slice(0, keep), items.slice(keep)];
    if (kept.length > 0) sent[table] = Array.isArray(request) ? kept : { ...request, Keys: kept };
    if (rest.length > 0) withheld[table] = Array.isArray(request) ? rest : { ...request, Keys: rest };
  }
  const unprocessedName = operation === 'BatchGetItem' ? 'UnprocessedKeys' : 'UnprocessedItems';
  const result =
    Object.keys(sent).length > 0
      ? await next({ ...args, input: { ...args.input, RequestItems: sent } as Input })
      : { output: { $metadata: {}, ...(operation === 'BatchGetItem' ? { Responses: {} } : {}) } as Output };
  return { ...result, output: { ...result.output, [unprocessedName]: withheld } };
}

export function injectDynamoDbFaults(client: DynamoDBDocumentClient): DynamoFaults {
  let rules: { rule: FaultRule; calls: number }[] = [];
  let seen: Record<string, number> = {};
  const name = `dynamo-faults-${Math.random().toString(36).slice(2)}`;

  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      seen[operation] = (seen[operation] ?? 0) + 1;
      let fault: Fault | undefined;
      for (const entry of rules) {
        if (!entry.rule.operations.includes(operation)) continue;
        entry.calls += 1;
        if (!fault && (entry.rule.when?.(entry.calls) ?? true)) fault = entry.rule.fault;
      }
      if (!fault) return next(args);
      switch (fault.kind) {
        case 'error':
          throw fault.error();
        case 'hook':
          await fault.run();
          return next(args);
        case 'lost':
          await next(args);
          throw crash().error();
        case 'cancel': {
          const { code } = fault;
          const actions = (args.input as Input).TransactItems ?? [];
          throw new TransactionCanceledException({
            message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${code}]`,
            $metadata: {},
            CancellationReasons: actions.map((_, i) => ({ Code: i === 0 ? code : 'None' })),
          });
        }
        case 'unprocessed':
          // biome-ignore lint/suspicious/noExplicitAny: the SDK's handler types are generic over every command.
          return partially(operation, fault.fraction, args as { input: Input }, next as any) as any;
      }
    },
    { step: 'initialize', name, priority: 'low' },
  );

  return {
    add: (rule) => {
      rules.push({ rule, calls: 0 });
    },
    clear: () => {
      rules = [];
      seen = {};
    },
    calls: (operation) => seen[operation] ?? 0,
    detach: () => {
      client.middlewareStack.remove(name);
    },
  };
}
