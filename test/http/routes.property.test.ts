import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '#lib/clock';
import { config } from '#lib/config';
import { purgePass } from '#lib/domain/deletion/purge';
import { dispatchPass } from '#lib/domain/dispatch/dispatch-pass';
import { schedulePlanner } from '#lib/domain/schedules/schedule-planning';
import { unsubscribeToken } from '#lib/domain/unsubscribe/unsubscribe';
import { fanOutEvent } from '#lib/domain/webhooks/sender';
import { parseFixture } from '#lib/fixtures/fixture';
import { loadFixture } from '#lib/fixtures/load-fixture';
import type { ApiHandler } from '#lib/http/create-handler';
import { outboxSink } from '#lib/jobs/outbox-sink';
import { base64url } from '#lib/local/sign-jwt';
import { type Route, routes } from '#lib/routes';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { purgeStore } from '#lib/store/deletion/purge-store';
import { dispatchStore } from '#lib/store/dispatch/dispatch';
import { batchWriteAll } from '#lib/store/dynamo/batch';
import { documentClient } from '#lib/store/dynamo/client';
import { PURGE_GRACE_MS } from '#lib/store/notifications/notification-guard';
import { notificationItems } from '#lib/store/notifications/notification-items';
import { webhookEndpointStore } from '#lib/store/webhooks/endpoints';
import { webhookOutbox } from '#lib/store/webhooks/messages';
import { eventRecorder } from '#lib/store/webhooks/subscriptions';
import {
  ACME_ISSUER,
  ADMIN_KEY,
  acmeKey,
  consoleUsers,
  embeddableDashboardFixture,
  MEMBER_KEY,
} from '#test/support/fixtures';
import { type ApiResponse, startLocalApi } from '#test/support/local-api';
import { freshClaims, generateSigningKey, signJwt, unsignedJwt } from '#test/support/tokens';
import { journalWrites, type WriteJournal } from '#test/support/write-journal';
import { arbitraryFor, type FieldPools } from '#test/support/zod-arbitrary';

/**
 * Generated requests against every route of lib/routes.ts, through the local adapter and the real
 * engine. Bodies and path parameters come from the schemas each route's handler checks with (a new
 * route joins with its own), mixed with hostile ones: JSON the service cannot keep, deep nesting,
 * prototype keys, huge and multi-byte text, wrong types, junk ids, tokens and content types.
 * Invariants: never a 5xx; every 4xx in the error shape; a refused request leaves the table as it
 * was; an accepted write, sent again, leaves the table as the first one did.
 */

// Every accepted send-now is sent again at once, and a thousand of them reach the same notification:
// the send-now limit would refuse them (it has tests of its own). Read on first use, after this line.
process.env.SEND_NOW_MIN_INTERVAL_SECONDS = '0';

/** At least 1000 in every `npm test`; PROPERTY_RUNS raises it for a longer hunt. */
const RUNS_PER_ROUTE = Math.max(1000, Number(process.env.PROPERTY_RUNS ?? 0));
const SEED = Number(process.env.PROPERTY_SEED ?? Date.now() % 2 ** 31);

let api: Awaited<ReturnType<typeof startLocalApi>>;
/** What each request wrote, compared item by item rather than by scanning the table around each request. */
let journal: WriteJournal;

/** The renderer, whose platform token the outcome route wants. */
const PLATFORM_ISSUER = 'https://platform.property.example';
const platformKey = generateSigningKey('property-platform', 'ES256');
const rendererToken = signJwt(
  freshClaims({ iss: PLATFORM_ISSUER, aud: 'platform', sub: 'renderer', session: 'screenshot' }),
  platformKey,
);

/** An embed user of acme who subscribes themselves (self-service on for acme in this file's fixture). */
const subscriberToken = signJwt(
  freshClaims({
    iss: ACME_ISSUER,
    aud: 'embed',
    sub: 'alice@acme.example',
    tenant: 'acme',
    email: 'alice@acme.example',
  }),
  acmeKey,
);
/**
 * Another embed user of acme, whose subscription the routes of one subscription name: made afresh before
 * each of them (a generated delete elsewhere may have taken an earlier one), never near the limit.
 */
const ownerToken = signJwt(
  freshClaims({
    iss: ACME_ISSUER,
    aud: 'embed',
    sub: 'bob@acme.example',
    tenant: 'acme',
    email: 'bob@acme.example',
  }),
  acmeKey,
);
let subscriptionId: number;
const subscribe = async () =>
  (
    await api.request('POST', '/v1/embed/notifications', {
      token: ownerToken,
      body: { dashboardPublicId: 'ops-kpis', scheduleType: 'DAILY', hour: 9 },
    })
  ).body.id as number;

/** The webhook routes that name an endpoint (and a message of it) find one made afresh before them. */
let webhookId = '';
let messageId = '';
const WEBHOOKS = '/v1/deployments/7/webhooks';
const namesWebhook = (route: Route) => route.path.includes('{webhookId}');
/** The deployment's endpoints start over, so the ten-endpoint limit is never what refuses a request. */
async function clearWebhooks() {
  const listed = await api.request('GET', `${WEBHOOKS}?first=100`, { token: ADMIN_KEY });
  for (const { id } of listed.body.items)
    await api.request('DELETE', `${WEBHOOKS}/${id}`, { token: ADMIN_KEY });
}
async function freshWebhook() {
  await clearWebhooks();
  // A public address literal: decided without DNS.
  const created = await api.request('POST', WEBHOOKS, {
    token: ADMIN_KEY,
    body: { url: 'https://93.184.215.14/hook', events: ['*'] },
  });
  webhookId = created.body.id;
  // One message of it, as a sender's fan-out leaves it (nothing here sends it).
  const [message] = await fanOutEvent(
    { outbox: webhookOutbox, endpoints: webhookEndpointStore },
    {
      eventId: eventRecorder.newEventId(Date.now()),
      deploymentId: 7,
      type: 'run.skipped',
      createdAt: new Date().toISOString(),
      data: {},
    },
    Date.now() + 3_600_000,
  );
  messageId = message?.messageId ?? '';
}

beforeAll(async () => {
  const fixture = embeddableDashboardFixture(consoleUsers.slice(0, 2));
  api = await startLocalApi({
    ...fixture,
    embedTenants: fixture.embedTenants.map((tenant) => ({
      ...tenant,
      selfService: { enabled: true, maxPerUser: 50, minIntervalMinutes: 60 },
    })),
    trustedIssuers: [
      {
        kind: 'platform',
        issuer: PLATFORM_ISSUER,
        audience: 'platform',
        jwks: { keys: [platformKey.publicJwk] },
      },
    ],
  });
  journal = journalWrites(documentClient());
});
afterAll(async () => {
  journal.detach();
  await api.close();
});

/**
 * The run of notification 700's firing at 09:00 UTC on 2026-11-23, made by a dispatcher pass, with one
 * delivery (to user 1) whose job the outcome route can be told about; made again after the delete.
 */
const FIRED_RUN = '20261123T090000000Z-s';
const FIRED_JOB = `7.700.${FIRED_RUN}.9da9a3a0822aacb39c1f7ed387746e3b`;
async function fireRun() {
  const [notification] = parseFixture({
    notifications: [{ id: 700, deploymentId: 7, dashboardId: 70, scheduleType: 'DAILY', hour: 9 }],
  }).notifications;
  await batchWriteAll([
    ...notificationItems(notification as never, Date.parse('2026-11-23T08:00:00.000Z')).map((item) => ({
      PutRequest: { Item: item },
    })),
    { PutRequest: { Item: encodeRecipient(notification as never, { type: 'USER', userId: 1 }) } },
  ]);
  const firing = Date.parse('2026-11-23T09:00:30Z');
  await dispatchPass(dispatchStore, outboxSink(config().outboxDir), {
    randomHex,
    now: firing,
    planner: schedulePlanner,
    misfireGraceMinutes: 60,
  });
}
beforeAll(fireRun);

const unsubscribeKey = () => Buffer.from(config().unsubscribeSigningKey as string, 'base64');

/** Mostly values the fixture holds, so that generated requests also reach existing rows; some hostile. */
const mostly = <T>(valid: readonly T[], hostile: readonly T[]) =>
  fc.oneof(
    { weight: 19, arbitrary: fc.constantFrom(...valid) },
    { weight: 1, arbitrary: fc.constantFrom(...hostile) },
  );

const pools: FieldPools = {
  deploymentId: mostly(['7'], ['8', '0', '-7', '07', '7.0', '1e3', '9'.repeat(16), 'x']),
  id: mostly(['700'], ['701', '0', '-1', '7e2', '9'.repeat(16), '%F0%9F%98%80']),
  publicId: mostly(['ops-kpis'], ['missing', '..', '%ED%A0%80', 'a'.repeat(129), '%00']),
  userId: mostly([1, 2], [99, 0, -1, 2 ** 53]),
  email: mostly(['ada@example.com', 'BOB@example.com'], ['nobody@example.com', '€'.repeat(227)]),
  embedTenantName: mostly(['acme'], ['globex', '', '€'.repeat(100)]),
  externalId: mostly(['u-1', 'U-1 ', 'u-2'], [' ', '€'.repeat(300)]),
  member: mostly(['Orders.status', 'A.b'], ['nodot', '']),
  // A create names a dashboard of the fixture, or one that is not there.
  dashboardId: mostly([70], [71, 0, -1, 2 ** 53]),
  dashboardPublicId: mostly(['ops-kpis'], ['missing', 'a'.repeat(129), '\ud800']),
  timezone: mostly(['UTC', 'Europe/Berlin'], ['Mars/Base', '']),
  // Lists of recipients that resolve, so that add-recipients also gets past its checks.
  recipients: fc.array(
    fc.constantFrom(
      { userId: 1 },
      { email: 'BOB@example.com' },
      { type: 'USER', userId: 2 },
      { embedTenantName: 'acme', externalId: 'u-1', securityContext: { region: 'EU', n: 1e20 } },
      { embedTenantName: 'acme', externalId: 'u-2@example.com', groups: ['€'.repeat(100)] },
      { embedTenantName: 'acme', externalId: 'U-1 ', userAttributes: [{ name: 'a', value: 'b' }] },
    ),
    { minLength: 1, maxLength: 3 },
  ),
  runId: mostly([FIRED_RUN], ['20200101T000000000Z-s', 'x', '..', '%00']),
  jobId: mostly([FIRED_JOB], [`7.700.${FIRED_RUN}.${'0'.repeat(32)}`, 'x', '..', '%00', '7.700']),
  attempt: mostly([1], [2, 0, -1, 2 ** 53]),
  customCron: mostly(
    ['0 9 * * 1', '0 */2 * * *'],
    ['*/5 * * * *', '5,55 23,0 1,L * *', '0 9 * * 1#2', '* *'],
  ),
};

/** Remove-recipients names recipients by id: items that are subscribed, or not, or duplicated. */
const removalPools: FieldPools = {
  ...pools,
  recipients: fc.array(
    fc.constantFrom(
      { type: 'USER', id: 1 },
      { type: 'USER', id: 2 },
      { type: 'EMBED_USER', id: 1, embedTenantName: 'acme' },
      { type: 'SLACK', id: 'C0123' },
    ),
    { minLength: 1, maxLength: 3 },
  ),
};
/** The embed user's own routes name the subscriber's subscription, mostly. */
const embedPools = (): FieldPools => ({
  ...pools,
  id: mostly([String(subscriptionId)], ['700', '0', '-1', '9'.repeat(16)]),
});
/** The webhook routes name the endpoint and message made before them, mostly; URLs are address literals. */
const webhookPools = (): FieldPools => ({
  ...pools,
  webhookId: mostly([webhookId], ['wh_missing', 'x', '..', '%00', 'a'.repeat(201)]),
  messageId: mostly([messageId], ['msg_missing', 'x', '..', '%00']),
  url: mostly(
    ['https://93.184.215.14/hook', 'https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/x?y=1'],
    [
      'http://93.184.215.14/',
      'https://127.0.0.1/',
      'https://10.1.2.3/',
      'https://169.254.169.254/latest',
      'https://[::1]/',
      'ftp://93.184.215.14/',
      `https://93.184.215.14/${'a'.repeat(2100)}`,
      '',
    ],
  ),
});
const isEmbedUserRoute = (route: Route) => route.path.startsWith('/v1/embed/notifications');
const poolsOf = (route: Route) =>
  route.operation === 'remove-recipients'
    ? removalPools
    : isEmbedUserRoute(route)
      ? embedPools()
      : route.path.includes('/webhooks')
        ? webhookPools()
        : pools;

const embedClaims = { iss: ACME_ISSUER, aud: 'embed', sub: 'alice', tenant: 'acme' };
const loneSurrogate = `${base64url('{"alg":"RS256","kid":"x"}')}.${base64url(
  '{"tenant":"\\ud800","iss":"x","aud":"embed","sub":"a","exp":9999999999}',
)}.AAAA`;

/** Unsubscribe tokens: of subscribed recipients, of others, and forged or altered ones. */
const tokenQuery = () =>
  mostly(
    [
      unsubscribeToken(
        { deploymentId: 7, id: 700, recipient: { type: 'USER', userId: 2 } },
        unsubscribeKey(),
      ),
      unsubscribeToken(
        { deploymentId: 7, id: 799, recipient: { type: 'USER', userId: 1 } },
        unsubscribeKey(),
      ),
    ],
    ['x', '', 'a.b', `${'A'.repeat(40)}.${'B'.repeat(43)}`, '%00'],
  ).map((token) => `?token=${encodeURIComponent(token)}`);

/** Authorization header values: good credentials of each kind, and broken or forged ones. */
const authorization = fc.oneof(
  { weight: 6, arbitrary: fc.constant(`Bearer ${ADMIN_KEY}`) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      `Bearer ${MEMBER_KEY}`,
      `Bearer ${signJwt(freshClaims(embedClaims), acmeKey)}`,
      `Bearer ${signJwt(freshClaims(embedClaims), acmeKey, { crit: ['urn:x-unknown'] })}`,
      `Bearer ${signJwt(freshClaims({ ...embedClaims, tenant: '€'.repeat(300) }), acmeKey)}`,
      `Bearer ${unsignedJwt(freshClaims(embedClaims))}`,
      `Bearer ${loneSurrogate}`,
      `Basic ${Buffer.from('a:b').toString('base64')}`,
      'Bearer ',
      `Bearer ${'a'.repeat(9000)}`,
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((text) => `Bearer ${text}`) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** JSON text no JSON.stringify writes: each replaces a placeholder inside a generated body. */
const rawHostile = fc.constantFrom(
  '1e309',
  '-1e400',
  '1e-400',
  '9007199254740993',
  '"\\ud800"',
  '{"\\udfff":1}',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
  `${'['.repeat(40)}${']'.repeat(40)}`,
  `"${'€'.repeat(2000)}"`,
  '{"":""}',
  '-0',
  'true',
  '[]',
);
const placeholder = '\u0000hostile\u0000';
/** How JSON.stringify writes the placeholder, to be replaced by the hostile text. */
const PLACEHOLDER = JSON.stringify(placeholder);

/** Sets one field of a generated body, at any depth, to a placeholder for hostile JSON text. */
function plant(value: unknown, path: number[]): unknown {
  if (path.length === 0 || value === null || typeof value !== 'object') return placeholder;
  const [step = 0, ...rest] = path;
  if (Array.isArray(value)) {
    if (value.length === 0) return [placeholder];
    const copy = [...value];
    copy[step % copy.length] = plant(copy[step % copy.length], rest);
    return copy;
  }
  const keys = Object.keys(value);
  const key = keys.length === 0 ? 'extra' : (keys[step % (keys.length + 1)] ?? 'unknownField');
  return { ...value, [key]: plant((value as Record<string, unknown>)[key], rest) };
}

function bodyArbitrary(schema: unknown, fieldPools: FieldPools): fc.Arbitrary<string | undefined> {
  const valid = schema ? arbitraryFor(schema, fieldPools) : fc.jsonValue({ maxDepth: 2 });
  return fc.oneof(
    { weight: 6, arbitrary: valid.map((value) => JSON.stringify(value)) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(valid, fc.array(fc.nat(6), { maxLength: 4 }), rawHostile)
        .map(([value, path, raw]) => JSON.stringify(plant(value, path)).replace(PLACEHOLDER, raw)),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/merge-patch+json', '') },
);

/** The route's path with each `{name}` filled from its pool, or from the route's own path schema. */
function pathArbitrary(route: Route, paramsSchema: unknown): fc.Arbitrary<string> {
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
  const fromSchema = paramsSchema
    ? (arbitraryFor(paramsSchema) as fc.Arbitrary<Record<string, unknown>>)
    : undefined;
  const values = fc.record(
    Object.fromEntries(
      names.map((name) => [
        name,
        fc.oneof(
          { weight: 8, arbitrary: poolsOf(route)[name] ?? fc.string({ minLength: 1, maxLength: 8 }) },
          fromSchema ? fromSchema.map((params) => String(params[name] ?? 'x')) : fc.constant('x'),
          fc.string({ minLength: 1, maxLength: 12 }).map(encodeURIComponent),
        ),
      ]),
    ),
  );
  return values.map((params) => route.path.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name])));
}

/** Write counters: `version`, and `scheduleVersion` (the version of the schedule's last write) on the item and its entry. */
const withoutVersions = (snapshot: string[]) =>
  snapshot.map((item) => item.replace(/"(?:version|scheduleVersion)":\d+,?/g, '')).sort();

function expectErrorShape(response: ApiResponse) {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.body).toMatchObject({
    message: expect.any(String),
    code: expect.stringMatching(/^[a-z_]+$/),
    requestId: expect.any(String),
  });
}

/** Each field sent with a value, when the answer carries that field, comes back exactly as sent. */
function expectReadBack(body: string | undefined, response: ApiResponse) {
  let sent: unknown;
  try {
    sent = body ? JSON.parse(body) : undefined;
  } catch {
    // Accepted with a body that is no JSON: a route that takes no body (a delete) ignored it.
    return;
  }
  // A 204 carries nothing to read back.
  if (!sent || typeof sent !== 'object' || Array.isArray(sent) || response.body === undefined) return;
  for (const [field, value] of Object.entries(sent)) {
    if (value !== null && field in response.body) expect(response.body[field], field).toEqual(value);
  }
}

/** Routes whose every accepted request makes something new (send-now: a run each time). */
const notIdempotent = new Set<string>([
  'send-notification',
  // A repeat makes a second endpoint, or a second new secret: their repeat advice is to look first.
  'create-webhook',
  'rotate-webhook-secret',
  // Due now again: the message's due instant is the repeat's own now.
  'retry-webhook-message',
]);
/** Routes whose accepted request is gone once done: its repeat finds nothing (404) and changes nothing. */
const deletes = new Set<string>([
  'delete-notification',
  'delete-embed-notification',
  'remove-suppression',
  'delete-webhook',
]);
/** Routes whose answer uses a field name of the request for something else (send's `recipients`: counts). */
const noReadBack = new Set<string>(['send-notification', 'configure-embed-tenant']);
/** The renderer's route: its callers are the renderer, mostly, and the usual others. */
const rendererAuthorization = fc.oneof(
  { weight: 3, arbitrary: fc.constant(`Bearer ${rendererToken}`) },
  { weight: 1, arbitrary: authorization },
);
/** An embed user's own routes: their embed token, mostly, and the usual others. */
const subscriberAuthorization = (route: Route) =>
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constant(`Bearer ${route.path.includes('{id}') ? ownerToken : subscriberToken}`),
    },
    { weight: 1, arbitrary: authorization },
  );

const handlerOf = async (route: Route) =>
  (await import(`../../functions/${route.operation}.ts`)).handler as ApiHandler;

describe.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))(
  '%s under generated requests',
  (_name, route) => {
    it(`${RUNS_PER_ROUTE} requests: no 5xx, errors in shape, refused ones write nothing`, async () => {
      const handler = await handlerOf(route);
      if (isEmbedUserRoute(route) && route.path.includes('{id}')) subscriptionId = await subscribe();
      if (namesWebhook(route) || route.operation === 'create-webhook') await freshWebhook();
      // Addresses the removal's generated requests mostly name: it finds them at first (and they are
      // lifted again after it, so that no later run skips them).
      const suppressed = ['ada@example.com', 'BOB@example.com'];
      if (route.operation === 'remove-suppression') {
        for (const email of suppressed)
          await api.request('POST', '/v1/deployments/7/suppressions', { token: ADMIN_KEY, body: { email } });
      }
      const schemas = handler.definition;
      const takesToken = route.path === '/v1/unsubscribe';
      const request = fc.record({
        path: takesToken
          ? tokenQuery().map((query) => `${route.path}${query}`)
          : pathArbitrary(route, schemas?.params),
        authorization:
          route.operation === 'report-delivery-outcome'
            ? rendererAuthorization
            : isEmbedUserRoute(route)
              ? subscriberAuthorization(route)
              : authorization,
        body:
          route.method === 'GET'
            ? fc.constant(undefined)
            : bodyArbitrary(schemas?.body?.schema, poolsOf(route)),
        contentType,
        // A create is repeated safely only with a key: each generated create has its own.
        idempotencyKey: fc.uuid(),
      });
      type Generated = typeof request extends fc.Arbitrary<infer T> ? T : never;
      const send = (generated: Generated) => {
        const headers: Record<string, string> = {};
        if (generated.authorization !== undefined) headers.authorization = generated.authorization;
        if (generated.body !== undefined) headers['content-type'] = generated.contentType;
        if (route.operation === 'create-notification' || route.operation === 'create-embed-notification')
          headers['idempotency-key'] = generated.idempotencyKey;
        return api.request(route.method, generated.path, { headers, body: generated.body });
      };
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(request, async (generated) => {
          if (route.operation === 'create-webhook') await clearWebhooks();
          journal.start();
          const response = await send(generated);
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          expect(response.status, response.text.slice(0, 300)).toBeLessThan(500);
          if (response.status >= 400) expectErrorShape(response);
          // Reads write nothing, and are not sent twice.
          if (route.method === 'GET') {
            expect((await journal.changes()).after).toEqual([]);
            return;
          }
          if (response.status >= 400) {
            const { before, after } = await journal.changes();
            expect(after).toEqual(before);
          } else {
            // A route that takes no body ignores whatever was sent: there is nothing to read back.
            if (schemas?.body && !noReadBack.has(route.operation)) expectReadBack(generated.body, response);
            journal.start();
            const again = await send(generated);
            // A delete done is done: its repeat finds nothing (404) and changes nothing.
            expect(again.status).toBe(deletes.has(route.operation) ? 404 : response.status);
            if (!notIdempotent.has(route.operation)) {
              const { before, after } = await journal.changes();
              expect(withoutVersions(after)).toEqual(withoutVersions(before));
            }
          }
        }),
        { seed: SEED, numRuns: RUNS_PER_ROUTE, endOnFailure: true },
      );
      // Both sides were reached: some requests got through, and some were refused (a public route
      // without parameters or body has nothing to refuse).
      expect(
        [...statuses].filter(([status]) => status < 300).length,
        JSON.stringify([...statuses]),
      ).toBeGreaterThan(0);
      if (schemas?.params || schemas?.body || handler.definition.access !== 'public') {
        expect([...statuses.keys()].some((status) => status >= 400)).toBe(true);
      }
      // No address stays suppressed for the routes after the suppression routes.
      if (route.operation === 'add-suppression' || route.operation === 'remove-suppression') {
        for (const email of suppressed)
          await api.request('DELETE', `/v1/deployments/7/suppressions/${encodeURIComponent(email)}`, {
            token: ADMIN_KEY,
          });
      }
      // The tenant's self-service setting, as the embed user's routes after it need it.
      if (route.operation === 'configure-embed-tenant') {
        await api.request('PATCH', '/v1/embed/tenants/acme', {
          token: ADMIN_KEY,
          body: { selfService: { enabled: true, maxPerUser: 50, minIntervalMinutes: 60 } },
        });
      }
      // What a delete took, the routes after it still need: once purged (the loader refuses an id still
      // being purged), the fixture is loaded again.
      if (route.operation === 'delete-notification') {
        for (let pass = 0; pass < 100; pass++) {
          const summary = await purgePass(purgeStore, { now: Date.now() + PURGE_GRACE_MS + 1_000 });
          if (summary.pending === 0) break;
        }
        await loadFixture(api.fixture);
        await fireRun();
      }
    }, 600_000);
  },
);
