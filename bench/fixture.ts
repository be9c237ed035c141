import { generateSigningKey, type SigningKey, signJwt } from '#lib/local/sign-jwt';
import demo from '../fixtures/demo.json' with { type: 'json' };

/**
 * The bench's data: the demo fixture (deployments 7 and 8, dashboards shared with embed tenant `acme`,
 * notifications 700, 701, 800), with signing keys made for this run and credentials set aside for
 * measuring the cold authentication path (each used once, so each meets an empty cache).
 */

export const ADMIN_KEY = 'sk-demo-admin';
/** The key the bench's unsubscribe tokens are signed with (a fixed one: the bench mints its own tokens). */
export const BENCH_UNSUBSCRIBE_KEY = Buffer.alloc(32, 7);
export const COLD_ADMIN_KEYS = Array.from({ length: 20 }, (_, i) => `sk-bench-cold-${i + 1}`);
/** Tenants that share acme's keys and dashboards, each used once, for the embed cold path. */
export const COLD_TENANTS = Array.from({ length: 6 }, (_, i) => `acme-cold-${i + 1}`);

export const CONSOLE_ISSUER = 'https://idp.bench.example';
export const PLATFORM_ISSUER = 'https://platform.bench.example';
export const EMBED_ISSUER = 'https://auth.acme.example';
export const EMBED_AUDIENCE = 'embed';
const ADMIN_SUBJECT = 'idp-sub-ada';

/** Notifications the add-recipients scenarios fill, one per run of 1000 (ids far from the demo's). */
export const RECIPIENT_NOTIFICATION_IDS = Array.from({ length: 12 }, (_, i) => 9000 + i);

/** Notifications filled to each size of the cost-at-size scenario. */
export const SCALE_NOTIFICATION_IDS = [9100, 9101, 9102, 9103];
/** The concurrency scenario's PUT target, add target, and a notification holding an embed user that exists. */
export const CONCURRENCY_NOTIFICATION_IDS = [9200, 9201, 9202];

export interface BenchKeys {
  console: SigningKey;
  platform: SigningKey;
  embed: SigningKey;
}

export function generateKeys(): BenchKeys {
  return {
    console: generateSigningKey('bench-console'),
    platform: generateSigningKey('bench-platform'),
    embed: generateSigningKey('bench-embed'),
  };
}

export function benchFixture(keys: BenchKeys): unknown {
  const jwks = (key: SigningKey) => ({ keys: [key.publicJwk] });
  const tenants = ['acme', ...COLD_TENANTS];
  return {
    ...demo,
    users: demo.users.map((user) =>
      user.apiKeys?.includes(ADMIN_KEY) ? { ...user, apiKeys: [...user.apiKeys, ...COLD_ADMIN_KEYS] } : user,
    ),
    dashboards: demo.dashboards.map((dashboard) =>
      dashboard.sharedWithTenants.includes('acme') ? { ...dashboard, sharedWithTenants: tenants } : dashboard,
    ),
    embedTenants: tenants.map((name) => ({ name, issuer: EMBED_ISSUER, jwks: jwks(keys.embed) })),
    trustedIssuers: [
      { kind: 'console', issuer: CONSOLE_ISSUER, audience: 'console', jwks: jwks(keys.console) },
      { kind: 'platform', issuer: PLATFORM_ISSUER, audience: 'platform', jwks: jwks(keys.platform) },
    ],
    notifications: [
      ...demo.notifications,
      ...[...RECIPIENT_NOTIFICATION_IDS, ...SCALE_NOTIFICATION_IDS, ...CONCURRENCY_NOTIFICATION_IDS].map(
        (id) => ({
          id,
          deploymentId: 7,
          dashboardId: 70,
          scheduleType: 'DAILY',
          hour: 9,
          timezone: 'UTC',
        }),
      ),
    ],
  };
}

const now = () => Math.floor(Date.now() / 1000);

export const consoleToken = (keys: BenchKeys) =>
  signJwt(
    { iss: CONSOLE_ISSUER, aud: 'console', sub: ADMIN_SUBJECT, iat: now(), exp: now() + 3600 },
    keys.console,
  );

export const platformToken = (keys: BenchKeys) =>
  signJwt(
    {
      iss: PLATFORM_ISSUER,
      aud: 'platform',
      sub: 'screenshot-service',
      session: 'screenshot',
      iat: now(),
      exp: now() + 3600,
    },
    keys.platform,
  );

export const embedToken = (keys: BenchKeys, tenant = 'acme', externalId = 'user-1@example.com') =>
  signJwt(
    { iss: EMBED_ISSUER, aud: EMBED_AUDIENCE, sub: externalId, tenant, iat: now(), exp: now() + 3600 },
    keys.embed,
  );
