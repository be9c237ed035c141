import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '#lib/config';
import { unsubscribeToken } from '#lib/domain/unsubscribe/unsubscribe';
import { fanOutEvent } from '#lib/domain/webhooks/sender';
import { type Operation, type RepeatEffect, type Route, routes } from '#lib/routes';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem } from '#lib/store/dynamo/items';
import { webhookEndpointStore } from '#lib/store/webhooks/endpoints';
import { webhookOutbox } from '#lib/store/webhooks/messages';
import { type EngineMode, type EngineProxy, startEngineProxy } from '#test/support/engine-proxy';
import {
  ACME_ISSUER,
  ADMIN_KEY,
  acmeKey,
  consoleUsers,
  embeddableDashboardFixture,
} from '#test/support/fixtures';
import { type ApiResponse, type LocalApi, startLocalApi } from '#test/support/local-api';
import { tableSnapshot } from '#test/support/table-snapshot';
import { freshClaims, generateSigningKey, signJwt } from '#test/support/tokens';

/**
 * Storage that does not answer, through the real HTTP server, for every route: the engine refusing
 * connections, holding them without a word, resetting them. Each route that reads storage answers
 * 503 with Retry-After and a message that says what a repeat does; nothing is written; and the
 * service answers again as soon as the engine does. The engine sits behind a TCP proxy
 * (test/support/engine-proxy.ts) that the tests switch.
 */

// The send made below for the routes that need a run, and the one of the last test, follow each other.
process.env.SEND_NOW_MIN_INTERVAL_SECONDS = '0';

/** Every function's timeout here: a stalled engine holds each request this long at most. */
const FUNCTION_TIMEOUT_MS = 8_000;

const PLATFORM_ISSUER = 'https://platform.outages.example';
const platformKey = generateSigningKey('platform-outages', 'ES256');
const rendererToken = () =>
  signJwt(
    freshClaims({ iss: PLATFORM_ISSUER, aud: 'platform', sub: 'renderer', session: 'screenshot' }),
    platformKey,
  );

const NOTIFICATION = '/v1/deployments/7/notifications/700';
/** A webhook endpoint and one of its messages, made before any outage. */
let WEBHOOK: string;
let MESSAGE: string;

let proxy: EngineProxy;
let api: LocalApi;
/** A run of notification 700 and its one delivery's job, made before any outage. */
let runId: string;
let jobId: string;

interface Sent {
  path: string;
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A request each route accepts when storage answers (the last test holds them to it). */
const validRequests: Record<Operation, () => Sent> = {
  'update-notification': () => ({ path: NOTIFICATION, token: ADMIN_KEY, body: { hour: 3 } }),
  'add-recipients': () => ({
    path: `${NOTIFICATION}/recipients`,
    token: ADMIN_KEY,
    body: { recipients: [{ userId: 2 }] },
  }),
  'set-dashboard-embedding': () => ({
    path: '/v1/embed/dashboard/ops-kpis',
    token: ADMIN_KEY,
    body: { allowEmbed: true },
  }),
  'get-embedded-dashboard': () => ({ path: '/v1/embed/dashboard/ops-kpis', token: ADMIN_KEY }),
  'send-notification': () => ({ path: `${NOTIFICATION}/send`, token: ADMIN_KEY }),
  'list-runs': () => ({ path: `${NOTIFICATION}/runs`, token: ADMIN_KEY }),
  'list-deliveries': () => ({ path: `${NOTIFICATION}/runs/${runId}/deliveries`, token: ADMIN_KEY }),
  'list-notifications': () => ({ path: '/v1/deployments/7/notifications', token: ADMIN_KEY }),
  'create-notification': () => ({
    path: '/v1/deployments/7/notifications',
    token: ADMIN_KEY,
    body: { dashboardId: 70, scheduleType: 'DAILY', hour: 9 },
    headers: { 'idempotency-key': crypto.randomUUID() },
  }),
  'get-notification': () => ({ path: NOTIFICATION, token: ADMIN_KEY }),
  'delete-notification': () => ({ path: NOTIFICATION, token: ADMIN_KEY }),
  'list-recipients': () => ({ path: `${NOTIFICATION}/recipients`, token: ADMIN_KEY }),
  'remove-recipients': () => ({
    path: `${NOTIFICATION}/recipients`,
    token: ADMIN_KEY,
    body: { recipients: [{ type: 'USER', id: 2 }] },
  }),
  'get-api-spec': () => ({ path: '/v1/spec' }),
  'retry-run': () => ({ path: `${NOTIFICATION}/runs/${runId}/retry`, token: ADMIN_KEY }),
  'report-delivery-outcome': () => ({
    path: `/v1/deliveries/${encodeURIComponent(jobId)}/outcome`,
    token: rendererToken(),
    body: { status: 'failed', attempt: 1, error: 'mailbox full' },
  }),
  'preview-schedule': () => ({
    path: '/v1/schedules/preview',
    token: ADMIN_KEY,
    body: { scheduleType: 'DAILY', hour: 9 },
  }),
  unsubscribe: () => ({ path: `/v1/unsubscribe?token=${unsubscribeTokenOfUser1()}` }),
  'get-unsubscribe-page': () => ({ path: `/v1/unsubscribe?token=${unsubscribeTokenOfUser1()}` }),
  'configure-embed-tenant': () => ({
    path: '/v1/embed/tenants/acme',
    token: ADMIN_KEY,
    body: { selfService: { enabled: true, maxPerUser: 50 } },
  }),
  'list-embed-notifications': () => ({ path: '/v1/embed/notifications', token: embedToken }),
  'create-embed-notification': () => ({
    path: '/v1/embed/notifications',
    token: embedToken,
    body: { dashboardPublicId: 'ops-kpis', scheduleType: 'DAILY', hour: 9 },
  }),
  'get-embed-notification': () => ({ path: `/v1/embed/notifications/${subscriptionId}`, token: embedToken }),
  'update-embed-notification': () => ({
    path: `/v1/embed/notifications/${subscriptionId}`,
    token: embedToken,
    body: { hour: 4 },
  }),
  'delete-embed-notification': () => ({
    path: `/v1/embed/notifications/${subscriptionId}`,
    token: embedToken,
  }),
  'list-suppressions': () => ({ path: '/v1/deployments/7/suppressions', token: ADMIN_KEY }),
  'add-suppression': () => ({
    path: '/v1/deployments/7/suppressions',
    token: ADMIN_KEY,
    body: { email: 'bounced@example.com' },
  }),
  // After the add above (routes are sent in their table's order): the suppression it made.
  'remove-suppression': () => ({
    path: '/v1/deployments/7/suppressions/bounced%40example.com',
    token: ADMIN_KEY,
  }),
  'pause-notification': () => ({
    path: `${NOTIFICATION}/pause`,
    token: ADMIN_KEY,
    body: { reason: 'outage' },
  }),
  'resume-notification': () => ({ path: `${NOTIFICATION}/resume`, token: ADMIN_KEY }),
  'create-webhook': () => ({
    path: '/v1/deployments/7/webhooks',
    token: ADMIN_KEY,
    // A public address literal: decided without DNS, so storage is the first thing the request needs.
    body: { url: 'https://93.184.215.14/hook', events: ['run.completed'] },
  }),
  'list-webhooks': () => ({ path: '/v1/deployments/7/webhooks', token: ADMIN_KEY }),
  'get-webhook': () => ({ path: WEBHOOK, token: ADMIN_KEY }),
  'update-webhook': () => ({ path: WEBHOOK, token: ADMIN_KEY, body: { description: 'x' } }),
  'delete-webhook': () => ({ path: WEBHOOK, token: ADMIN_KEY }),
  'rotate-webhook-secret': () => ({ path: `${WEBHOOK}/rotate-secret`, token: ADMIN_KEY }),
  'list-webhook-messages': () => ({ path: `${WEBHOOK}/messages`, token: ADMIN_KEY }),
  'retry-webhook-message': () => ({ path: `${WEBHOOK}/messages/${MESSAGE}/retry`, token: ADMIN_KEY }),
  'list-notification-events': () => ({ path: `${NOTIFICATION}/events`, token: ADMIN_KEY }),
  'list-deployment-events': () => ({ path: '/v1/deployments/7/events', token: ADMIN_KEY }),
};

/** An embed user of acme with a self-service subscription, made before any outage. */
const embedToken = signJwt(
  freshClaims({ iss: ACME_ISSUER, aud: 'embed', sub: 'outage@acme.example', tenant: 'acme' }),
  acmeKey,
);
let subscriptionId: number;

let subscriptionNonceOfUser1: string;
const unsubscribeTokenOfUser1 = () =>
  encodeURIComponent(
    unsubscribeToken(
      {
        deploymentId: 7,
        id: 700,
        recipient: { type: 'USER', userId: 1 },
        subscriptionNonce: subscriptionNonceOfUser1,
      },
      Buffer.from(config().unsubscribeSigningKey as string, 'base64'),
    ),
  );

const send = (route: Route): Promise<ApiResponse> => {
  const { path, ...options } = validRequests[route.operation]();
  return api.request(route.method, path, options);
};

/** What each route's 503 must say about a repeat, written out here rather than taken from the code. */
const adviceOf: Record<RepeatEffect | 'keyed', RegExp> = {
  safe: /; the request is safe to repeat$/,
  // A request of a with-key route that carried its key.
  keyed: /; the request is safe to repeat with the same Idempotency-Key header$/,
  'safe-then-not-found': /; the request is safe to repeat \(a repeat answers 404 if this one was done\)$/,
  'with-key':
    /; it may have been done: repeat it with the same Idempotency-Key header so that it is not done twice/,
  'look-first': /; it may have been done: look before repeating it \(a repeat does it again\)$/,
};

async function outboxJobIds(run: string): Promise<string[]> {
  const dir = config().outboxDir;
  const jobs = await Promise.all(
    (await readdir(dir)).map(async (file) => JSON.parse(await readFile(join(dir, file), 'utf8'))),
  );
  return jobs.filter((job) => job.runId === run).map((job) => job.jobId as string);
}

beforeAll(async () => {
  proxy = await startEngineProxy(process.env.DYNAMODB_ENDPOINT as string);
  // Before anything builds the table client: every storage call of this file goes through the proxy.
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  const fixture = embeddableDashboardFixture(consoleUsers.slice(0, 2));
  api = await startLocalApi(
    {
      ...fixture,
      embedTenants: fixture.embedTenants.map((tenant) => ({ ...tenant, selfService: { enabled: true } })),
      notifications: fixture.notifications.map((notification) => ({
        ...notification,
        recipients: [{ userId: 1 }],
      })),
      trustedIssuers: [
        {
          kind: 'platform',
          issuer: PLATFORM_ISSUER,
          audience: 'platform',
          jwks: { keys: [platformKey.publicJwk] },
        },
      ],
    },
    undefined,
    FUNCTION_TIMEOUT_MS,
  );
  // Links name the subscription they were made for: the fixture's row drew its nonce when loaded.
  const row = await getItem(keys.userRecipient(7, 700, 1));
  subscriptionNonceOfUser1 = row?.subscriptionNonce as string;
  const sent = await api.request('POST', `${NOTIFICATION}/send`, { token: ADMIN_KEY });
  expect(sent.status, sent.text).toBe(202);
  runId = sent.body.runId;
  [jobId = ''] = await outboxJobIds(runId);
  const subscribed = await api.request('POST', '/v1/embed/notifications', {
    token: embedToken,
    body: { dashboardPublicId: 'ops-kpis', scheduleType: 'DAILY', hour: 9 },
  });
  expect(subscribed.status, subscribed.text).toBe(201);
  subscriptionId = subscribed.body.id;
  const webhook = await api.request('POST', '/v1/deployments/7/webhooks', {
    token: ADMIN_KEY,
    body: { url: 'https://93.184.215.14/hook', events: ['*'] },
  });
  WEBHOOK = `/v1/deployments/7/webhooks/${webhook.body.id}`;
  // One message of it, as a sender's fan-out leaves it (nothing here sends it).
  const [message] = await fanOutEvent(
    { outbox: webhookOutbox, endpoints: webhookEndpointStore },
    {
      eventId: `evt_${'0'.repeat(25)}`,
      deploymentId: 7,
      type: 'run.skipped',
      createdAt: new Date().toISOString(),
      data: {},
    },
    Date.now() + 3_600_000,
  );
  MESSAGE = message?.messageId ?? '';
});
afterAll(async () => {
  await api.close();
  await proxy.close();
});

describe.each<[string, EngineMode]>([
  ['refuses connections', 'refuse'],
  ['holds connections without answering', 'stall'],
  ['resets connections', 'reset'],
])('while the engine %s', (_name, mode) => {
  it('every route that reads storage answers 503 with Retry-After and what a repeat does; nothing is written', async () => {
    const before = await tableSnapshot();
    await proxy.set(mode);
    const answers = await Promise.all(
      routes.map(async (route) => ({ route, answer: await send(route) })),
    ).finally(() => proxy.set('pass'));

    for (const { route, answer } of answers) {
      const what = `${route.operation}: ${answer.text.slice(0, 300)}`;
      if (route.tableActions.length === 0) {
        // A route that never reads the table (the description, the unsubscribe page) is not touched.
        expect(answer.status, what).toBe(200);
        continue;
      }
      expect(answer.status, what).toBe(503);
      expect(answer.headers.get('retry-after'), what).toBe('1');
      expect(answer.body.code, what).toBe('unavailable');
      // The function answered itself, within its time: not the server's cut-off of an unanswered request.
      expect(answer.body.message, what).toMatch(/^Storage /);
      const keyed = validRequests[route.operation]().headers?.['idempotency-key'] !== undefined;
      expect(answer.body.message, what).toMatch(adviceOf[keyed ? 'keyed' : route.repeat]);
      if (route.repeat === 'with-key' && !keyed) {
        expect(answer.body.message, what).not.toContain('safe to repeat');
      }
    }
    expect(await tableSnapshot()).toEqual(before);
    // Once the engine answers again, so does the service.
    expect((await api.request('GET', NOTIFICATION, { token: ADMIN_KEY })).status).toBe(200);
  });
});

describe('the requests above', () => {
  it('are each accepted when storage answers (so an outage, not the request, made each 503)', async () => {
    // The deletes go last: the others need the notification and the webhook.
    const ordered = [...routes].sort(
      (a, b) => Number(a.operation.startsWith('delete-')) - Number(b.operation.startsWith('delete-')),
    );
    for (const route of ordered) {
      const answer = await send(route);
      expect(answer.status, `${route.operation}: ${answer.text.slice(0, 300)}`).toBeLessThan(300);
    }
  });
});
