import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '#lib/clock';
import { dispatchPass } from '#lib/domain/dispatch/dispatch-pass';
import { schedulePlanner } from '#lib/domain/schedules/schedule-planning';
import { unsubscribeToken } from '#lib/domain/unsubscribe/unsubscribe';
import { fanOutEvent } from '#lib/domain/webhooks/sender';
import { ensureTable, loadFixture } from '#lib/fixtures/load-fixture';
import { outboxSink } from '#lib/jobs/outbox-sink';
import { routeKey, routes } from '#lib/routes';
import { dispatchStore } from '#lib/store/dispatch/dispatch';
import { batchWriteAll } from '#lib/store/dynamo/batch';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem } from '#lib/store/dynamo/items';
import { notificationItems } from '#lib/store/notifications/notification-items';
import { webhookEndpointStore } from '#lib/store/webhooks/endpoints';
import { webhookOutbox } from '#lib/store/webhooks/messages';
import { freshClaims, generateSigningKey, signJwt } from '#test/support/tokens';
import { invoke, printable, readEvent } from '../../scripts/invoke.ts';
import { DEMO_FIXTURE, readFixture } from '../../scripts/local-env.ts';

const successStatus: Record<string, number> = {
  'create-notification': 201,
  'delete-notification': 204,
  'remove-recipients': 204,
  'send-notification': 202,
  'retry-run': 202,
  'report-delivery-outcome': 204,
  'add-suppression': 201,
  'remove-suppression': 204,
  'create-embed-notification': 201,
  'delete-embed-notification': 204,
  'create-webhook': 201,
  'delete-webhook': 204,
  'retry-webhook-message': 202,
};

/** The endpoints the webhook events name (one of them for the delete), and a message of the first. */
async function exampleWebhooks() {
  const endpoint = (id: string) => ({
    id,
    deploymentId: 7,
    url: 'https://93.184.215.14/hooks/notifications',
    events: ['*' as const],
    description: null,
    status: 'enabled' as const,
    createdAt: '2026-11-23T08:00:00.000Z',
    updatedAt: '2026-11-23T08:00:00.000Z',
    secrets: [{ secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`, expiresAt: null }],
    failingSince: null,
    version: 1,
  });
  for (const id of ['wh_0123456789abcdef01234567', 'wh_0123456789abcdef0123dead'])
    await webhookEndpointStore.add(endpoint(id), 10);
  await fanOutEvent(
    { outbox: webhookOutbox, endpoints: webhookEndpointStore },
    {
      eventId: 'evt_000000000000000000000000a',
      deploymentId: 7,
      type: 'run.skipped',
      createdAt: '2026-11-23T08:00:00.000Z',
      data: {},
    },
    Date.parse('2026-11-23T08:00:00Z'),
  );
}

/**
 * Two events hold a placeholder for what only a running stage has: the renderer's platform JWT and an
 * unsubscribe token signed with the stage's key. This file fills them in, as a caller would.
 */
const PLATFORM_ISSUER = 'https://platform.events.example';
const platformKey = generateSigningKey('events-platform', 'ES256');
process.env.TRUSTED_ISSUERS = JSON.stringify([
  {
    kind: 'platform',
    issuer: PLATFORM_ISSUER,
    audience: 'platform',
    jwks: { keys: [platformKey.publicJwk] },
  },
]);
const placeholders: Partial<Record<string, (event: Awaited<ReturnType<typeof readEvent>>) => void>> = {
  'report-delivery-outcome': (event) => {
    event.headers.authorization = `Bearer ${signJwt(
      freshClaims({ iss: PLATFORM_ISSUER, aud: 'platform', sub: 'renderer', session: 'screenshot' }),
      platformKey,
    )}`;
  },
  unsubscribe: (event) => fillToken(event),
  'list-embed-notifications': (event) => fillEmbedToken(event),
  'create-embed-notification': (event) => fillEmbedToken(event),
  'get-embed-notification': (event) => fillSubscription(event),
  'update-embed-notification': (event) => fillSubscription(event),
  'delete-embed-notification': (event) => fillSubscription(event),
  'get-unsubscribe-page': (event) => fillToken(event),
};
/**
 * The embed user's events hold a placeholder for a token of acme (made by `npm run embed-token` with the
 * demo's key) and for the id of one of their subscriptions: this file signs with a key of its own, which
 * it registers for acme, and subscribes them once.
 */
const acmeEventsKey = generateSigningKey('events-acme', 'RS256');
const embedToken = () =>
  signJwt(
    freshClaims({
      iss: 'https://auth.acme.example',
      aud: 'embed',
      sub: 'alice@acme.example',
      tenant: 'acme',
      email: 'alice@acme.example',
    }),
    acmeEventsKey,
  );
function fillEmbedToken(event: Awaited<ReturnType<typeof readEvent>>) {
  event.headers.authorization = `Bearer ${embedToken()}`;
}
let subscriptionId: number;
function fillSubscription(event: Awaited<ReturnType<typeof readEvent>>) {
  fillEmbedToken(event);
  event.rawPath = event.rawPath.replace('<id>', String(subscriptionId));
  event.requestContext.http.path = event.rawPath;
  event.pathParameters = { id: String(subscriptionId) };
}

/** The demo fixture's subscription of user 1 to notification 700, which the example events unsubscribe. */
let subscriptionNonce: string | undefined;
function fillToken(event: Awaited<ReturnType<typeof readEvent>>) {
  const key = Buffer.from(process.env.UNSUBSCRIBE_SIGNING_KEY as string, 'base64');
  const token = unsubscribeToken(
    {
      deploymentId: 7,
      id: 700,
      recipient: { type: 'USER', userId: 1 },
      ...(subscriptionNonce && { subscriptionNonce }),
    },
    key,
  );
  event.rawQueryString = `token=${token}`;
  event.queryStringParameters = { token };
}

/** The example events are documentation (`npm run invoke`, `sam local invoke -e`): they must keep working. */
describe('the example events in events/', () => {
  beforeAll(async () => {
    await ensureTable();
    const demo = await readFixture(DEMO_FIXTURE);
    await loadFixture({
      ...demo,
      embedTenants: demo.embedTenants.map((tenant) =>
        tenant.name === 'acme'
          ? {
              ...tenant,
              jwks: { keys: [acmeEventsKey.publicJwk] },
              selfService: { enabled: true, maxPerUser: 50 },
            }
          : tenant,
      ),
    });
    // The run events/list-deliveries.json names: the 09:00 Berlin firing of 2026-11-23, dispatched.
    const { recipients: _, ...notification } = demo.notifications.find((n) => n.id === 700) ?? {};
    subscriptionNonce = (await getItem(keys.userRecipient(7, 700, 1)))?.subscriptionNonce as string;
    const firing = Date.parse('2026-11-23T08:00:00Z');
    await batchWriteAll(
      notificationItems(notification as never, firing - 60_000).map((item) => ({
        PutRequest: { Item: item },
      })),
    );
    await dispatchPass(dispatchStore, outboxSink(await mkdtemp(join(tmpdir(), 'events-outbox-'))), {
      randomHex,
      now: firing,
      planner: schedulePlanner,
      misfireGraceMinutes: 60,
    });
    const createRoute = routes.find((route) => route.operation === 'create-embed-notification');
    if (!createRoute) throw new Error('no create-embed-notification route');
    const create = await readEvent('events/create-embed-notification.json', createRoute);
    fillEmbedToken(create);
    const created = await invoke(createRoute, create);
    subscriptionId = JSON.parse(String(created.body)).id;
    await exampleWebhooks();
  });

  it.each(routes.map((route) => [route.operation, route] as const))(
    'events/%s.json is a request its route serves and the demo fixture answers with success',
    async (operation, route) => {
      const event = await readEvent(`events/${operation}.json`, route);
      placeholders[operation]?.(event);
      expect(event.routeKey).toBe(routeKey(route));
      expect(event.requestContext.http.method).toBe(route.method);
      const response = printable(await invoke(route, event));
      const status = successStatus[operation] ?? 200;
      const contentType =
        operation === 'get-unsubscribe-page' ? 'text/html; charset=utf-8' : 'application/json';
      expect(response).toMatchObject(
        status === 204
          ? { statusCode: 204 }
          : { statusCode: status, headers: { 'content-type': contentType } },
      );
    },
  );
});
