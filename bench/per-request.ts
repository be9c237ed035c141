import { type Operation, routes } from '#lib/routes';
import { type Call, describe, replay, watch } from './dynamodb.ts';
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

/** The scenario's DynamoDB work, warm and with a caller never seen, after the first request and the warm-up. */
async function work(request: ReturnType<typeof requestOf>, keys: BenchKeys, warmup: number) {
  const { ms: firstRequestMs } = await timed(() => request.send());
  for (let n = 0; n < warmup; n++) await request.send();
  const warm = await watch(() => request.send());
  const coldCache = await watch(() => request.send(request.options(callerOf(request.scenario, keys, true))));
  return { firstRequestMs, warm: warm.work, calls: warm.calls, coldCache: coldCache.work };
}

/** Warm requests, each followed by its bare calls and by the same request to the do-nothing handler. */
async function timings(stack: Stack, request: ReturnType<typeof requestOf>, calls: Call[], requests: number) {
  const bare = () => replay(stack.bareClient, calls);
  await bare();
  const samples: [number[], number[], number[]] = [[], [], []];
  for (let n = 0; n < requests; n++) {
    const prepared = request.options();
    const marks = [performance.now()];
    for (const step of [() => request.send(prepared), bare, () => request.hop(prepared)]) {
      await step();
      marks.push(performance.now());
    }
    for (const [k, into] of samples.entries()) into.push((marks[k + 1] as number) - (marks[k] as number));
  }
  return samples.map(summarize) as [Summary, Summary, Summary];
}

/** Requests with never-seen credentials against warm ones of the same operation, interleaved. */
async function coldAuthentication(request: ReturnType<typeof requestOf>, keys: BenchKeys, samples: number) {
  const [cold, warm]: [number[], number[]] = [[], []];
  for (let n = 0; n < samples; n++)
    for (const [into, isCold] of [
      [cold, true],
      [warm, false],
    ] as const) {
      const authorization = callerOf(request.scenario, keys, isCold);
      into.push((await timed(() => request.send(request.options(authorization)))).ms);
    }
  return [summarize(cold), summarize(warm)];
}

export async function perRequestSection(
  bench: Bench,
  stack: Stack,
  keys: BenchKeys,
  settings: { requests: number; warmup: number; coldAuthSamples: number },
) {
  section(bench, 'DynamoDB work per request (SDK meter; capacity as DynamoDB Local reports it)', true);
  const measured = [];
  for (const operation of bench.available) {
    const request = requestOf(stack, operation, keys);
    const w = await part(bench, operation, () => work(request, keys, settings.warmup));
    if (!w) continue;
    measured.push({ operation, request, ...w });
    const { show, gate } = bench.figures.about(operation);
    const { budget, description } = request.scenario;
    show('request', description);
    gate('DynamoDB requests, warm', w.warm.requests, budget.requests, 'requests');
    show('by operation', describe(w.warm.byOperation));
    gate('read units, warm', w.warm.readUnits, budget.readUnits, 'RCU');
    gate('write units, warm', w.warm.writeUnits, budget.writeUnits, 'WCU');
    gate('DynamoDB requests, cold cache', w.coldCache.requests, budget.coldRequests, 'requests');
    show('cold cache, by operation', describe(w.coldCache.byOperation));
  }
  const { requests } = settings;
  section(
    bench,
    `Per request, warm: ${requests} requests each, interleaved with the bare calls and the HTTP hop`,
    true,
  );
  for (const { operation, request, calls, firstRequestMs } of measured) {
    const t = await part(bench, `${operation} timings`, () => timings(stack, request, calls, requests));
    if (!t) continue;
    const [requestMs, bareMs, hopMs] = t;
    const { show, timing } = bench.figures.about(operation);
    // The first request of the process loads the function module and fills the caches: shown, not judged.
    show('first request', ms(firstRequestMs));
    show('request median', ms(requestMs.median));
    show('request p99', ms(requestMs.p99));
    show('bare median', ms(bareMs.median));
    show('bare p99', ms(bareMs.p99));
    timing('request / bare calls (median)', round(requestMs.median / bareMs.median, 3), 1.3);
    show('HTTP hop', ms(hopMs.median));
    // The local HTTP hop is API Gateway's part in AWS: the handler's own time against the bare calls.
    show('× bare without the hop', times((requestMs.median - hopMs.median) / bareMs.median));
    show('bare calls', calls.map((call) => call.operation).join(' → '));
  }
  section(bench, 'Authentication on an empty cache (a credential never seen), against a warm one', true);
  const admin = bench.available.includes('set-dashboard-embedding')
    ? 'set-dashboard-embedding'
    : 'update-notification';
  for (const [credential, operation] of [
    ['API key (link + user read)', admin],
    ['embed JWT (tenant read + verifier)', 'get-embedded-dashboard'],
  ] as const) {
    if (!bench.available.includes(operation)) continue;
    const request = requestOf(stack, operation, keys);
    const a = await part(bench, credential, () =>
      coldAuthentication(request, keys, settings.coldAuthSamples),
    );
    if (!a) continue;
    const [coldMs, warmMs] = a as [Summary, Summary];
    const { show } = bench.figures.about(credential);
    show('operation', operation);
    show('cold median', ms(coldMs.median));
    show('warm median', ms(warmMs.median));
    show('authentication', ms(coldMs.median - warmMs.median));
  }
}
