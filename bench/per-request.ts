import { type Operation, routes } from '#lib/routes';
import { REQUEST_RATIO } from './budgets.ts';
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
import { ms, round, summarize, times } from './stats.ts';

/**
 * Per operation: its DynamoDB work (warm, and with the caller's lookup on an empty cache), then warm
 * requests over HTTP, each followed by the bare client sending the same DynamoDB calls and by the same
 * request to a do-nothing handler, so that all three see the same machine at the same moment. Then
 * what authenticating costs when the caller is not cached.
 */

const coldAdminKeys = [...COLD_ADMIN_KEYS];
const coldTenants = [...COLD_TENANTS];
const next = (pool: string[], what: string) => {
  const value = pool.shift();
  if (value === undefined) throw new Error(`The bench fixture has too few ${what}`);
  return value;
};

/** The caller's Authorization header: a warm one (its lookup cached after the first), or one never seen. */
function callerOf(scenario: Scenario, keys: BenchKeys, cold: boolean): string | undefined {
  if (scenario.caller === 'admin') return cold ? `Bearer ${next(coldAdminKeys, 'cold API keys')}` : ADMIN;
  if (scenario.caller === 'embed')
    return `Bearer ${cold ? embedToken(keys, next(coldTenants, 'cold embed tenants')) : embedToken(keys)}`;
  if (scenario.caller === 'platform') return `Bearer ${platformToken(keys)}`;
  return undefined;
}

/** A scenario's request, ready to send as often as needed. */
function requestOf(stack: Stack, operation: Operation, keys: BenchKeys) {
  const scenario = scenarios[operation];
  const route = routes.find((r) => r.operation === operation);
  if (!route) throw new Error(`No route for ${operation}`);
  const params = scenario.params ?? {};
  const path = `${route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''))}${scenario.query ? `?${scenario.query}` : ''}`;
  // Signed once: signing a JWT takes longer than verifying it and is the client's cost, not ours.
  const warm = callerOf(scenario, keys, false);
  let i = 0;
  const options = (authorization = warm) => ({ authorization, body: scenario.body?.(i++) });
  const send = async (prepared = options()) => {
    const reply = await stack.request(route.method, path, prepared);
    expectStatus(reply, scenario.status, `${route.method} ${path}`);
  };
  return { scenario, send, options, hop: (prepared = options()) => stack.hop(route.method, path, prepared) };
}

async function measureOperation(
  stack: Stack,
  operation: Operation,
  keys: BenchKeys,
  requests: number,
  warmup: number,
) {
  const { scenario, send, options, hop } = requestOf(stack, operation, keys);
  const first = performance.now();
  await send();
  const firstRequestMs = performance.now() - first;
  for (let n = 0; n < warmup; n++) await send();
  const { work: warmWork, calls } = await watch(() => send());
  const { work: coldWork } = await watch(() => send(options(callerOf(scenario, keys, true))));
  const bare = (recorded: readonly Call[]) => replay(stack.bareClient, recorded);
  await bare(calls);
  const samples = { request: [] as number[], bare: [] as number[], hop: [] as number[] };
  for (let n = 0; n < requests; n++) {
    const prepared = options();
    const t0 = performance.now();
    await send(prepared);
    const t1 = performance.now();
    await bare(calls);
    const t2 = performance.now();
    await hop(prepared);
    samples.request.push(t1 - t0);
    samples.bare.push(t2 - t1);
    samples.hop.push(performance.now() - t2);
  }
  const [requestMs, bareMs, hopMs] = [samples.request, samples.bare, samples.hop].map(summarize) as [
    ReturnType<typeof summarize>,
    ReturnType<typeof summarize>,
    ReturnType<typeof summarize>,
  ];
  return {
    operation,
    scenario,
    firstRequestMs,
    warm: warmWork,
    coldCache: coldWork,
    bareCalls: calls.map((c) => c.operation),
    requestMs,
    bareMs,
    hopMs,
  };
}

/** Requests with never-seen credentials against warm ones of the same operation, interleaved. */
async function measureColdAuthentication(
  stack: Stack,
  operation: Operation,
  keys: BenchKeys,
  samples: number,
) {
  const { scenario, send, options } = requestOf(stack, operation, keys);
  const cold: number[] = [];
  const warm: number[] = [];
  for (let n = 0; n < samples; n++) {
    for (const [authorization, into] of [
      [callerOf(scenario, keys, true), cold],
      [callerOf(scenario, keys, false), warm],
    ] as const) {
      const prepared = options(authorization);
      const t0 = performance.now();
      await send(prepared);
      into.push(performance.now() - t0);
    }
  }
  return { coldMs: summarize(cold), warmMs: summarize(warm) };
}

export async function perRequestSection(
  bench: Bench,
  stack: Stack,
  keys: BenchKeys,
  settings: { requests: number; warmup: number; coldAuthSamples: number },
) {
  const { budgets } = bench;
  const figures = [];
  section(
    bench,
    `2. Per request, warm: ${settings.requests} requests each, alternating with the bare calls and the HTTP hop alone`,
    { grid: true },
  );
  for (const operation of bench.available) {
    const o = await part(bench, operation, () =>
      measureOperation(stack, operation, keys, settings.requests, settings.warmup),
    );
    if (!o) continue;
    figures.push(o);
    const { requestMs, bareMs, hopMs } = o;
    budgets.show(`${operation}: request median`, ms(requestMs.median));
    budgets.show(`${operation}: request p99`, ms(requestMs.p99));
    budgets.show(`${operation}: bare median`, ms(bareMs.median));
    budgets.show(`${operation}: bare p99`, ms(bareMs.p99));
    budgets.timing(
      `${operation}: request / bare calls (median)`,
      round(requestMs.median / bareMs.median, 3),
      REQUEST_RATIO,
    );
    budgets.show(`${operation}: HTTP hop`, ms(hopMs.median));
    // The local HTTP hop is API Gateway's part in AWS: the handler's own time against the bare calls.
    budgets.show(
      `${operation}: × bare without the hop`,
      times((requestMs.median - hopMs.median) / bareMs.median),
    );
    budgets.show(`${operation}: bare calls`, o.bareCalls.join(' → '));
  }
  section(bench, '3. DynamoDB work per request (SDK meter; capacity as DynamoDB Local reports it)', {
    grid: true,
  });
  for (const { operation, scenario, warm, coldCache } of figures) {
    budgets.show(`${operation}: request`, scenario.description);
    budgets.gate(
      `${operation}: DynamoDB requests, warm`,
      warm.requests,
      scenario.budget.requests,
      'requests',
    );
    budgets.show(`${operation}: by operation`, describe(warm.byOperation));
    budgets.gate(`${operation}: read units, warm`, warm.readUnits, scenario.budget.readUnits, 'RCU');
    budgets.gate(`${operation}: write units, warm`, warm.writeUnits, scenario.budget.writeUnits, 'WCU');
    budgets.gate(
      `${operation}: DynamoDB requests, cold cache`,
      coldCache.requests,
      scenario.budget.coldRequests,
      'requests',
    );
    budgets.show(`${operation}: cold cache, by operation`, describe(coldCache.byOperation));
  }
  section(
    bench,
    'Authentication on an empty cache (a credential never seen), against a warm one, same operation',
    { grid: true },
  );
  const coldAuthentication = [];
  for (const [credential, operation] of [
    [
      'API key (link + user read)',
      bench.available.includes('set-dashboard-embedding') ? 'set-dashboard-embedding' : 'update-notification',
    ],
    ['embed JWT (tenant read + verifier)', 'get-embedded-dashboard'],
  ] as const) {
    if (!bench.available.includes(operation)) continue;
    const a = await part(bench, `cold authentication, ${credential}`, () =>
      measureColdAuthentication(stack, operation, keys, settings.coldAuthSamples),
    );
    if (!a) continue;
    coldAuthentication.push({ credential, operation, ...a });
    budgets.show(`${credential}: operation`, operation);
    budgets.show(`${credential}: cold median`, ms(a.coldMs.median));
    budgets.show(`${credential}: warm median`, ms(a.warmMs.median));
    budgets.show(`${credential}: authentication`, ms(a.coldMs.median - a.warmMs.median));
  }
  return { perRequest: figures.map(({ scenario: _, ...o }) => o), coldAuthentication };
}
