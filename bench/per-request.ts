import { type Operation, routes } from '#lib/routes';
import type { ApiResponse } from '#test/support/local-api';
import { describe, inFlight, watch } from './dynamodb.ts';
import * as fixture from './fixture.ts';
import { type Bench, median, ms, part, round, section, timed } from './report.ts';
import { coldLookups, type Scenario, type ScenarioContext, scenarios } from './scenarios.ts';
import { expectStatus, type Stack } from './stack.ts';

/**
 * Per operation: its DynamoDB work, warm and with the caller's lookup on an empty cache; then warm
 * requests timed over HTTP, in their handler's invocation (what Lambda runs: the local HTTP hop is API
 * Gateway's when deployed) and in their DynamoDB calls (the time with one in flight: the floor, "bare
 * calls"). The invocation is judged against the floor.
 */

const unused = { admin: [...fixture.COLD_ADMIN_KEYS], embed: [...fixture.COLD_TENANTS] };
const neverSeen = (kind: 'admin' | 'embed') => {
  const value = unused[kind].shift();
  if (value === undefined) throw new Error(`The bench fixture has too few cold ${kind} credentials`);
  return value;
};

/** The caller's Authorization header: a warm one (its lookup cached after the first), or one never seen. */
function callerOf({ caller = 'admin' }: Scenario, keys: fixture.BenchKeys, cold = false) {
  if (caller === 'admin') return cold ? `Bearer ${neverSeen('admin')}` : fixture.ADMIN;
  if (caller === 'embed')
    return `Bearer ${fixture.tokenOf(keys, 'embed', cold ? { tenant: neverSeen('embed') } : {})}`;
  return caller === 'platform' ? `Bearer ${fixture.tokenOf(keys, 'platform')}` : undefined;
}

/** A scenario's request, to send as often as needed; its caller signed once (signing is the client's cost). */
function requestOf(stack: Stack, operation: Operation, keys: fixture.BenchKeys) {
  const scenario = scenarios[operation];
  const route = routes.find((r) => r.operation === operation);
  if (!route) throw new Error(`No route for ${operation}`);
  const { method, path: template } = route;
  const query = scenario.query ? `?${scenario.query}` : '';
  const pathOf = (params: Record<string, string>) =>
    `${template.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? '')}${query}`;
  const warm = callerOf(scenario, keys);
  const context: ScenarioContext = {
    asCaller: async (method, path, status, body) =>
      expectStatus(
        await stack.request(method, path, { authorization: warm, body }),
        status,
        `${method} ${path}`,
      ),
    asAdmin: stack.call,
  };
  let i = 0;
  /** The next request: its hook run (untimed), its path, caller and body. */
  const prepare = async (cold = false) => {
    const params = { ...scenario.params, ...(await scenario.before?.(context)) };
    const authorization = cold ? callerOf(scenario, keys, true) : warm;
    const status = (cold ? scenario.coldStatus : undefined) ?? scenario.status ?? 200;
    return { path: pathOf(params), status, authorization, body: scenario.body?.(i++) };
  };
  type Prepared = Awaited<ReturnType<typeof prepare>>;
  const send = async (prepared: Prepared) =>
    expectStatus(
      await stack.request(method, prepared.path, prepared),
      prepared.status,
      `${method} ${prepared.path}`,
    );
  const settle = async (reply: ApiResponse) => {
    await scenario.after?.(context, reply);
  };
  return { scenario, prepare, send, settle, lastInvocationMs: stack.lastInvocationMs };
}
type Request = ReturnType<typeof requestOf>;

/** One request, prepared and settled by its hooks outside `measure`, which sends it. */
async function sendOne<T>(
  request: Request,
  measure: (send: () => Promise<ApiResponse>) => Promise<T>,
  cold = false,
) {
  const prepared = await request.prepare(cold);
  let reply: ApiResponse | undefined;
  const measured = await measure(async () => {
    reply = await request.send(prepared);
    return reply;
  });
  if (reply) await request.settle(reply);
  return measured;
}

/** The scenario's DynamoDB work, warm and with a caller never seen, after the first request and the warm-up. */
async function work(request: Request, warmup: number) {
  const { ms: firstRequestMs } = await sendOne(request, timed);
  for (let n = 0; n < warmup; n++) await sendOne(request, (send) => send());
  const warm = await sendOne(request, watch);
  const coldCache = await sendOne(request, watch, true);
  return { firstRequestMs, warm: warm.work, calls: warm.calls, coldCache: coldCache.work };
}

/** Warm requests, each timed over HTTP, in its handler's invocation and in its DynamoDB calls: the medians. */
async function timings(request: Request, requests: number) {
  const [whole, invocations, calls] = [[] as number[], [] as number[], [] as number[]];
  for (let n = 0; n < requests; n++) {
    // The invocation's time read before the hook after it sends requests of its own.
    const sent = await sendOne(request, async (send) => ({
      ...(await watch(() => timed(send))),
      invocationMs: request.lastInvocationMs(),
    }));
    whole.push(sent.result.ms);
    invocations.push(sent.invocationMs);
    calls.push(inFlight(sent.calls));
  }
  return { requestMs: median(whole), invocationMs: median(invocations), bareMs: median(calls) };
}

export async function perRequestSection(
  bench: Bench,
  stack: Stack,
  keys: fixture.BenchKeys,
  settings: { requests: number; warmup: number },
) {
  await section(bench, 'DynamoDB work per request (SDK meter; capacity as DynamoDB Local reports it)');
  const measured = [];
  for (const { operation } of routes) {
    const request = requestOf(stack, operation, keys);
    const w = await part(bench, operation, () => work(request, settings.warmup));
    if (!w) continue;
    measured.push({ operation, request, ...w });
    const { show, gate } = bench.figures.about(operation);
    const { budget, description, caller = 'admin' } = request.scenario;
    show('request', description);
    gate('DynamoDB requests, warm', w.warm.requests, budget.requests, 'requests');
    show('by operation', describe(w.warm.byOperation));
    gate('read units, warm', w.warm.readUnits, budget.readUnits, 'RCU');
    gate('write units, warm', w.warm.writeUnits, budget.writeUnits, 'WCU');
    const coldRequests = request.scenario.coldRequests ?? budget.requests + coldLookups[caller];
    gate('DynamoDB requests, cold cache', w.coldCache.requests, coldRequests, 'requests');
    show('cold cache, by operation', describe(w.coldCache.byOperation));
  }
  const { requests } = settings;
  await section(
    bench,
    `Per request, warm: ${requests} requests each, against the time of their DynamoDB calls`,
  );
  for (const { operation, request, calls, firstRequestMs } of measured) {
    const medians = await part(bench, operation, () => timings(request, requests));
    if (!medians) continue;
    const { requestMs, invocationMs, bareMs } = medians;
    const { show, timing } = bench.figures.about(operation);
    // The first request of the process loads the function module and fills the caches: shown, not judged.
    show('first request', ms(firstRequestMs));
    show('request median (HTTP)', ms(requestMs));
    show('invocation median', ms(invocationMs));
    show('bare median', ms(bareMs));
    // A route that makes no DynamoDB call has no floor of its own to be judged against.
    if (calls.length === 0) show('invocation / bare calls (median)', 'no DynamoDB call');
    else timing('invocation / bare calls (median)', round(invocationMs / bareMs, 3), 1.3);
    show('bare calls', calls.map((call) => call.operation).join(' → '));
  }
}
