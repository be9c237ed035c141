import type { Notification } from '#lib/domain/notifications/notification';
import { generateSigningKey, type SigningKey, signJwt } from '#lib/local/sign-jwt';
import { dailyNotification } from '#test/support/domain-fixtures';
import { freshClaims } from '#test/support/tokens';
import demo from '../fixtures/demo.json' with { type: 'json' };

/**
 * The demo fixture, signing keys of this run's own, credentials each used once (so each meets an empty
 * cache) and notifications of deployment 7 for the sections that add recipients: 9000–9011 (runs of
 * 1000), 9100–9103 (sizes), 9200–9202 (concurrency).
 */

export const ADMIN_KEY = 'sk-demo-admin';
export const ADMIN = `Bearer ${ADMIN_KEY}`;
/** The key the bench's unsubscribe tokens are signed with (a fixed one: the bench mints its own tokens). */
export const BENCH_UNSUBSCRIBE_KEY = Buffer.alloc(32, 7);
const range = (first: number, length: number) => Array.from({ length }, (_, i) => first + i);
export const COLD_ADMIN_KEYS = range(1, 30).map((i) => `sk-bench-cold-${i}`);
/** Tenants that share acme's keys and dashboards, each used once, for the embed cold path. */
export const COLD_TENANTS = range(1, 6).map((i) => `acme-cold-${i}`);
/** Tenants that share acme's keys and dashboards, for the subscriptions at size (bench/self-service.ts). */
export const SCALE_TENANTS = { few: 'acme-scale-few', many: 'acme-scale-many' };
/**
 * Deployments of the webhook section (bench/webhooks.ts): one without endpoints, one whose endpoint's
 * subscriptions are cached, one per event type measured whose endpoint no container has read yet. Each
 * holds a dashboard and a notification per event type, with console users as recipients.
 */
export const WEBHOOK_DEPLOYMENTS = { none: 61, warm: 62, cold: range(63, 6) };
const WEBHOOK_CASES = 6;
export const webhookNotificationId = (deploymentId: number, index: number) =>
  30_000_000 + deploymentId * 100 + index + 1;

function webhookDeployments() {
  const ids = [WEBHOOK_DEPLOYMENTS.none, WEBHOOK_DEPLOYMENTS.warm, ...WEBHOOK_DEPLOYMENTS.cold];
  const dashboardOf = (deploymentId: number) => 600 + deploymentId;
  return {
    deployments: ids.map((id) => ({ id, name: `Webhooks ${id}` })),
    dashboards: ids.map((deploymentId) => ({
      id: dashboardOf(deploymentId),
      deploymentId,
      publicId: `webhooks-${deploymentId}`,
      title: 'Webhooks',
      published: true,
    })),
    notifications: ids.flatMap((deploymentId) =>
      range(0, WEBHOOK_CASES).map((index) => ({
        id: webhookNotificationId(deploymentId, index),
        deploymentId,
        dashboardId: dashboardOf(deploymentId),
        scheduleType: 'DAILY',
        hour: 9,
        timezone: 'UTC',
        isEnabled: true,
        // The failed report's notification has two: its run does not end with the one failure.
        recipients: index === 1 ? [{ userId: 1 }, { userId: 2 }] : [{ userId: 1 }],
      })),
    ),
  };
}

export const ISSUERS = {
  console: 'https://idp.bench.example',
  platform: 'https://platform.bench.example',
  embed: 'https://auth.acme.example',
};
export const EMBED_AUDIENCE = 'embed';

export type BenchKeys = Record<keyof typeof ISSUERS, SigningKey>;
export const generateKeys = (): BenchKeys => ({
  console: generateSigningKey('bench-console'),
  platform: generateSigningKey('bench-platform'),
  embed: generateSigningKey('bench-embed'),
});

export const jwksOf = (key: SigningKey) => ({ keys: [key.publicJwk] });
export const trustedIssuers = (keys: BenchKeys) =>
  (['console', 'platform'] as const).map((kind) => ({
    kind,
    issuer: ISSUERS[kind],
    audience: kind,
    jwks: jwksOf(keys[kind]),
  }));

export function benchFixture(keys: BenchKeys): unknown {
  const tenants = ['acme', ...COLD_TENANTS, ...Object.values(SCALE_TENANTS)];
  // Self-service on everywhere, with room for the scenarios' own subscriptions of one user.
  const selfService = { enabled: true, maxPerUser: 50, minIntervalMinutes: 60 };
  const daily = { deploymentId: 7, dashboardId: 70, scheduleType: 'DAILY', hour: 9, timezone: 'UTC' };
  const withColdKeys = (keys: string[]) => (keys.includes(ADMIN_KEY) ? [...keys, ...COLD_ADMIN_KEYS] : keys);
  const ids = [...range(9000, 12), ...range(9100, 4), ...range(9200, 3)];
  const webhooks = webhookDeployments();
  return {
    ...demo,
    deployments: [...demo.deployments, ...webhooks.deployments],
    users: demo.users.map((user) => ({ ...user, apiKeys: withColdKeys(user.apiKeys ?? []) })),
    dashboards: [
      ...demo.dashboards.map((dashboard) =>
        dashboard.sharedWithTenants.includes('acme')
          ? { ...dashboard, sharedWithTenants: tenants }
          : dashboard,
      ),
      ...webhooks.dashboards,
    ],
    embedTenants: tenants.map((name) => ({
      name,
      issuer: ISSUERS.embed,
      jwks: jwksOf(keys.embed),
      selfService,
    })),
    trustedIssuers: trustedIssuers(keys),
    notifications: [...demo.notifications, ...ids.map((id) => ({ id, ...daily })), ...webhooks.notifications],
  };
}

const claims = {
  console: { aud: 'console', sub: 'idp-sub-ada' },
  platform: { aud: 'platform', sub: 'screenshot-service', session: 'screenshot' },
  embed: { aud: EMBED_AUDIENCE, sub: 'user-1@example.com', tenant: 'acme' },
};
/** A token of `kind`, signed now with this run's key, valid for an hour. */
export const tokenOf = (keys: BenchKeys, kind: keyof typeof ISSUERS, more = {}) =>
  signJwt(freshClaims({ iss: ISSUERS[kind], ...claims[kind], ...more }), keys[kind]);

/** A DAILY 09:00 UTC notification on dashboard 70 of deployment 7, disabled unless `fields` say otherwise. */
export const notificationOf = (id: number, fields: Partial<Notification> = {}): Notification =>
  dailyNotification({ id, isEnabled: false, ...fields });
