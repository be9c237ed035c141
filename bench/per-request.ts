import { type Operation, routes } from '#lib/routes';
import { describe, replay, watch } from './dynamodb.ts';
import {
  ADMIN,
  type BenchKeys,
  COLD_ADMIN_KEYS,
  COLD_TENANTS,
  embedToken,
  platformToken,
} from './fixture.ts';
import { type Bench, part, section } from './report.ts';
import { type Scenario, scenarios } from './scenarios.ts';
import { expectStatus, type Stack } from './stack.ts';
import { ms, round, type Summary, summarize, timed, times } from './stats.ts';

/**
 * Per operation: its DynamoDB work (warm, and with the caller's lookup on an empty cache), then warm
 * requests over HTTP, each followed by the bare client sending the same DynamoDB calls and by the same
 * request to a do-nothing handler, so that all three see the same machine at the same moment. Then
 * what authenticating costs when the caller is not cached.
 */

const unused = { admin: [...COLD_ADMIN_KEYS], embed: [...COLD_TENANTS] };
const neverSeen = (kind: 'admin' | 'embed') => {
  const value = unused[kind].shift();
  if (value === undefined) throw new Error(`The bench fixture has too few cold ${kind} credentials`);
  return value;
};

/** The caller's Authorization header: a warm one (its lookup cached after the first), or one never seen. */
function callerOf({ caller = 'admin' }: Scenario, keys: BenchKeys, cold = false): string | undefined {
  if (caller === 'admin') return cold ? `Bearer ${neverSeen('admin')}` : ADMIN;
  if (caller === 'embed') return `Bearer ${embedToken(keys, cold ? neverSeen('embed') : 'acme')}`;
  return caller === 'platform' ? `Bearer ${platformToken(keys)}` : undefined;
}

/** A scenario's request, to send as often as needed; its caller signed once (signing is the client's cost). */
function requestOf(stack: Stack, operation: Operation, keys: BenchKeys) {
  const scenario = scenarios[operation];
  const route = routes.find((r) => r.operation === operation);
  if (!route) throw new Error(`No route for ${operation}`);
  const params = scenario.params ?? {};
  const query = scenario.query ? `?${scenario.query}` : '';
  const path = `${route.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? '')}${query}`;
  const warm = callerOf(scenario, keys);
  let i = 0;
  const options = (authorization = warm) => ({ authorization, body: scenario.body?.(i++) });
  const [status, what] = [scenario.status ?? 200, `${route.method} ${path}`];
  const send = async (prepared = options()) =>
    expectStatus(await stack.request(route.method, path, prepared), status, what);
  return { scenario, send, options, hop: (prepared = options()) => stack.hop(route.method, path, prepared) };
}

async function measure(
  stack: Stack,
  operation: Operation,
  keys: BenchKeys,
  requests: number,
  warmup: number,
) {
  const { scenario, send, options, hop } = requestOf(stack, operation, keys);
  const { ms: firstRequestMs } = await timed(() => send());
  for (let n = 0; n < warmup; n++) await send();
  const { work: warm, calls } = await watch(() => send());
  const { work: coldCache } = await watch(() => send(options(callerOf(scenario, keys, true))));
  const bare = () => replay(stack.bareClient, calls);
  await bare();
  const samples: [number[], number[], number[]] = [[], [], []];
  for (let n = 0; n < requests; n++) {
    const prepared = options();
    const marks = [performance.now()];
    for (const step of [() => send(prepared), bare, () => hop(prepared)]) {
      await step();
      marks.push(performance.now());
    }
    for (const [k, into] of samples.entries()) into.push((marks[k + 1] as number) - (marks[k] as number));
  }
  const [requestMs, bareMs, hopMs] = samples.map(summarize) as [Summary, Summary, Summary];
  return {
    operation,
    scenario,
    firstRequestMs,
    warm,
    coldCache,
    bareCalls: calls.map((c) => c.operation),
    requestMs,
    bareMs,
    hopMs,
  };
}

/** Requests with never-seen credentials against warm ones of the same operation, interleaved. */
async function coldAuthentication(stack: Stack, operation: Operation, keys: BenchKeys, samples: number) {
  const { scenario, send, options } = requestOf(stack, operation, keys);
  const cold: number[] = [];
  const warm: number[] = [];
  for (let n = 0; n < samples; n++)
    for (const [into, authorization] of [
      [cold, callerOf(scenario, keys, true)],
      [warm, callerOf(scenario, keys)],
    ] as const) {
      const started = performance.now();
      await send(options(authorization));
      into.push(performance.now() - started);
    }
  return { coldMs: summarize(cold), warmMs: summarize(warm) };
}

export async function perRequestSection(
  bench: Bench,
  stack: Stack,
  keys: BenchKeys,
  settings: { requests: number; warmup: number; coldAuthSamples: number },
) {
  const title = `2. Per request, warm: ${settings.requests} requests each, interleaved with the bare calls and the HTTP hop alone`;
  section(bench, title, true);
  const figures = [];
  for (const operation of bench.available) {
    const o = await part(bench, operation, () =>
      measure(stack, operation, keys, settings.requests, settings.warmup),
    );
    if (!o) continue;
    figures.push(o);
    const { show, timing } = bench.budgets.about(operation);
    // The first request of the process loads the function module and fills the caches: shown, not judged.
    show('first request', ms(o.firstRequestMs));
    show('request median', ms(o.requestMs.median));
    show('request p99', ms(o.requestMs.p99));
    show('bare median', ms(o.bareMs.median));
    show('bare p99', ms(o.bareMs.p99));
    timing('request / bare calls (median)', round(o.requestMs.median / o.bareMs.median, 3), 1.3);
    show('HTTP hop', ms(o.hopMs.median));
    // The local HTTP hop is API Gateway's part in AWS: the handler's own time against the bare calls.
    show('× bare without the hop', times((o.requestMs.median - o.hopMs.median) / o.bareMs.median));
    show('bare calls', o.bareCalls.join(' → '));
  }
  section(bench, '3. DynamoDB work per request (SDK meter; capacity as DynamoDB Local reports it)', true);
  for (const { operation, scenario, warm, coldCache } of figures) {
    const { show, gate } = bench.budgets.about(operation);
    show('request', scenario.description);
    gate('DynamoDB requests, warm', warm.requests, scenario.budget.requests, 'requests');
    show('by operation', describe(warm.byOperation));
    gate('read units, warm', warm.readUnits, scenario.budget.readUnits, 'RCU');
    gate('write units, warm', warm.writeUnits, scenario.budget.writeUnits, 'WCU');
    gate('DynamoDB requests, cold cache', coldCache.requests, scenario.budget.coldRequests, 'requests');
    show('cold cache, by operation', describe(coldCache.byOperation));
  }
  section(bench, 'Authentication on an empty cache (a credential never seen), against a warm one', true);
  const admin = bench.available.includes('set-dashboard-embedding')
    ? 'set-dashboard-embedding'
    : 'update-notification';
  const kinds = {
    'API key (link + user read)': admin,
    'embed JWT (tenant read + verifier)': 'get-embedded-dashboard',
  } as const;
  for (const [credential, operation] of Object.entries(kinds).filter(([, op]) =>
    bench.available.includes(op),
  )) {
    const n = settings.coldAuthSamples;
    const a = await part(bench, `cold ${credential}`, () => coldAuthentication(stack, operation, keys, n));
    if (!a) continue;
    const { show } = bench.budgets.about(credential);
    show('operation', operation);
    show('cold median', ms(a.coldMs.median));
    show('warm median', ms(a.warmMs.median));
    show('authentication', ms(a.coldMs.median - a.warmMs.median));
  }
}
