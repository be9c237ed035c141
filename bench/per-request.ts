import { meterDynamoDb } from '#lib/local/dynamodb-meter';
import { type Route, routes } from '#lib/routes';
import { documentClient } from '#lib/store/client';
import type { BenchKeys } from './fixture.ts';
import type { LocalStack, Reply } from './local-stack.ts';
import { type RecordedCall, recordDynamoDb, replay } from './recorder.ts';
import type { Scenario } from './scenarios.ts';
import { type Summary, summarize } from './stats.ts';

/** DynamoDB work of one request, as the SDK meter counted it. */
export interface DynamoWork {
  requests: number;
  writeRequests: number;
  byOperation: Record<string, number>;
  readUnits: number;
  writeUnits: number;
}

export interface OperationFigures {
  operation: string;
  description: string;
  /** The first request of the process: loads the function module and fills the caches. */
  firstRequestMs: number;
  warm: DynamoWork;
  coldCache: DynamoWork;
  /** The calls the bare client repeats, in order. */
  bareCalls: string[];
  requestMs: Summary;
  bareMs: Summary;
  /** The same request to a do-nothing handler behind the same adapter: the local HTTP hop alone. */
  transportMs: Summary;
}

export const routeOf = (operation: string) => routes.find((route) => route.operation === operation) as Route;

export const pathOf = (route: Route, params: Record<string, string>) =>
  route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));

/** Counts the DynamoDB work of `work` with the test suite's SDK meter on the handlers' own client. */
export async function metered<T>(work: () => Promise<T>): Promise<{ result: T; work: DynamoWork }> {
  const meter = meterDynamoDb(documentClient());
  try {
    const result = await work();
    const byOperation = Object.fromEntries(
      Object.entries(meter.byOperation).map(([operation, count]) => [operation, count.requests]),
    );
    const readUnits = Object.values(meter.byOperation).reduce(
      (sum, count) => sum + count.readCapacityUnits,
      0,
    );
    return {
      result,
      work: {
        requests: meter.totalRequests(),
        writeRequests: meter.writeRequests(),
        byOperation,
        readUnits,
        writeUnits: meter.writeCapacityUnits(),
      },
    };
  } finally {
    meter.detach();
  }
}

export function expectStatus(reply: Reply, expected: number, what: string): void {
  if (reply.status !== expected)
    throw new Error(`${what} answered ${reply.status}, expected ${expected}: ${reply.text.slice(0, 300)}`);
}

/**
 * Items 2 and 3 of the bench for one operation: its DynamoDB work (warm, and with the caller's lookup
 * on an empty cache), then `iterations` warm requests over HTTP, each followed by the bare client
 * sending the same DynamoDB calls and by the same request to a do-nothing handler, so that all three
 * see the same machine at the same moment.
 */
export async function measureOperation(
  stack: LocalStack,
  scenario: Scenario,
  keys: BenchKeys,
  options: { iterations: number; warmup: number },
): Promise<OperationFigures> {
  const route = routeOf(scenario.operation);
  const path = `${pathOf(route, scenario.params)}${scenario.query ? `?${scenario.query}` : ''}`;
  // Signed once: signing a JWT takes longer than verifying it and is the client's cost, not ours.
  const warmAuthorization = scenario.authorization(keys);
  let i = 0;
  const prepare = (authorization = warmAuthorization) => ({ authorization, body: scenario.body?.(i++) });
  const sendExpecting = async (prepared = prepare()) => {
    const reply = await stack.request(route.method, path, prepared);
    expectStatus(reply, scenario.expectedStatus, `${route.method} ${path}`);
    return reply;
  };

  const started = performance.now();
  await sendExpecting();
  const firstRequestMs = performance.now() - started;
  for (let n = 0; n < options.warmup; n++) await sendExpecting();

  const { work: warm } = await metered(() => sendExpecting());
  const { work: coldCache } = await metered(() => sendExpecting(prepare(scenario.coldAuthorization(keys))));

  const recorder = recordDynamoDb(documentClient());
  let calls: RecordedCall[];
  try {
    ({ calls } = await recorder.record(() => sendExpecting()));
  } finally {
    recorder.detach();
  }
  const bare = () => replay(stack.bareClient, calls, scenario.adjustReplay);
  await bare();

  const requestMs: number[] = [];
  const bareMs: number[] = [];
  const transportMs: number[] = [];
  for (let n = 0; n < options.iterations; n++) {
    const prepared = prepare();
    const t0 = performance.now();
    await sendExpecting(prepared);
    const t1 = performance.now();
    await bare();
    const t2 = performance.now();
    await stack.transport(route.method, path, prepared);
    const t3 = performance.now();
    requestMs.push(t1 - t0);
    bareMs.push(t2 - t1);
    transportMs.push(t3 - t2);
  }

  return {
    operation: scenario.operation,
    description: scenario.description,
    firstRequestMs,
    warm,
    coldCache,
    bareCalls: calls.map((call) => call.operation),
    requestMs: summarize(requestMs),
    bareMs: summarize(bareMs),
    transportMs: summarize(transportMs),
  };
}

/**
 * What authenticating costs when the caller is not cached: requests with never-seen credentials
 * against warm ones of the same operation, interleaved.
 */
export async function measureColdAuthentication(
  stack: LocalStack,
  scenario: Scenario,
  keys: BenchKeys,
  samples: number,
): Promise<{ coldMs: Summary; warmMs: Summary }> {
  const route = routeOf(scenario.operation);
  const path = `${pathOf(route, scenario.params)}${scenario.query ? `?${scenario.query}` : ''}`;
  const warmAuthorization = scenario.authorization(keys);
  const coldMs: number[] = [];
  const warmMs: number[] = [];
  for (let n = 0; n < samples; n++) {
    for (const [authorization, into] of [
      [scenario.coldAuthorization(keys), coldMs],
      [warmAuthorization, warmMs],
    ] as const) {
      const body = scenario.body?.(n);
      const t0 = performance.now();
      const reply = await stack.request(route.method, path, { authorization, body });
      into.push(performance.now() - t0);
      expectStatus(reply, scenario.expectedStatus, `${route.method} ${path}`);
    }
  }
  return { coldMs: summarize(coldMs), warmMs: summarize(warmMs) };
}
