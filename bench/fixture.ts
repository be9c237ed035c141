import type { Notification } from '#lib/domain/notification';
import type { StoredEmbedRecipient } from '#lib/domain/recipients-resolution';
import { generateSigningKey, type SigningKey, signJwt } from '#lib/local/sign-jwt';
import { batchWriteAll } from '#lib/store/batch';
import type { Item } from '#lib/store/items';
import demo from '../fixtures/demo.json' with { type: 'json' };

/**
 * The bench's data: the demo fixture (deployments 7 and 8, dashboards shared with embed tenant `acme`,
 * notifications 700, 701, 800), signing keys made for this run, credentials set aside for the cold
 * authentication path (each used once, so each meets an empty cache), and what the sections write
 * straight into the table, each under ids of its own.
 */

export const ADMIN_KEY = 'sk-demo-admin';
export const ADMIN = `Bearer ${ADMIN_KEY}`;
/** The key the bench's unsubscribe tokens are signed with (a fixed one: the bench mints its own tokens). */
export const BENCH_UNSUBSCRIBE_KEY = Buffer.alloc(32, 7);
export const COLD_ADMIN_KEYS = Array.from({ length: 20 }, (_, i) => `sk-bench-cold-${i + 1}`);
/** Tenants that share acme's keys and dashboards, each used once, for the embed cold path. */
export const COLD_TENANTS = Array.from({ length: 6 }, (_, i) => `acme-cold-${i + 1}`);
export const ISSUERS = {
  console: 'https://idp.bench.example',
  platform: 'https://platform.bench.example',
  embed: 'https://auth.acme.example',
};
export const EMBED_AUDIENCE = 'embed';
/** Notifications of deployment 7 for the add-recipients sections: runs of 1000, sizes, concurrency. */
export const RECIPIENT_NOTIFICATION_IDS = Array.from({ length: 12 }, (_, i) => 9000 + i);
export const SCALE_NOTIFICATION_IDS = [9100, 9101, 9102, 9103];
/** The concurrency scenario's PUT target, add target, and a notification holding an embed user that exists. */
export const CONCURRENCY_NOTIFICATION_IDS = [9200, 9201, 9202] as const;

export type BenchKeys = Record<keyof typeof ISSUERS, SigningKey>;
export const generateKeys = (): BenchKeys => ({
  console: generateSigningKey('bench-console'),
  platform: generateSigningKey('bench-platform'),
  embed: generateSigningKey('bench-embed'),
});

const jwks = (key: SigningKey) => ({ keys: [key.publicJwk] });
/** The console and platform issuers the bench's tokens come from. */
export const trustedIssuers = (keys: BenchKeys) =>
  (['console', 'platform'] as const).map((kind) => ({
    kind,
    issuer: ISSUERS[kind],
    audience: kind,
    jwks: jwks(keys[kind]),
  }));

export function benchFixture(keys: BenchKeys): unknown {
  const tenants = ['acme', ...COLD_TENANTS];
  const ids = [...RECIPIENT_NOTIFICATION_IDS, ...SCALE_NOTIFICATION_IDS, ...CONCURRENCY_NOTIFICATION_IDS];
  const daily = { deploymentId: 7, dashboardId: 70, scheduleType: 'DAILY', hour: 9, timezone: 'UTC' };
  const withColdKeys = (keys: string[]) => (keys.includes(ADMIN_KEY) ? [...keys, ...COLD_ADMIN_KEYS] : keys);
  return {
    ...demo,
    users: demo.users.map((user) => ({ ...user, apiKeys: withColdKeys(user.apiKeys ?? []) })),
    dashboards: demo.dashboards.map((dashboard) =>
      dashboard.sharedWithTenants.includes('acme') ? { ...dashboard, sharedWithTenants: tenants } : dashboard,
    ),
    embedTenants: tenants.map((name) => ({ name, issuer: ISSUERS.embed, jwks: jwks(keys.embed) })),
    trustedIssuers: trustedIssuers(keys),
    notifications: [...demo.notifications, ...ids.map((id) => ({ id, ...daily }))],
  };
}

const signed = (claims: Record<string, unknown>, key: SigningKey) => {
  const now = Math.floor(Date.now() / 1000);
  return signJwt({ ...claims, iat: now, exp: now + 3600 }, key);
};
export const consoleToken = (keys: BenchKeys) =>
  signed({ iss: ISSUERS.console, aud: 'console', sub: 'idp-sub-ada' }, keys.console);
export const platformToken = (keys: BenchKeys) =>
  signed(
    { iss: ISSUERS.platform, aud: 'platform', sub: 'screenshot-service', session: 'screenshot' },
    keys.platform,
  );
export const embedToken = (keys: BenchKeys, tenant = 'acme', externalId = 'user-1@example.com') =>
  signed({ iss: ISSUERS.embed, aud: EMBED_AUDIENCE, sub: externalId, tenant }, keys.embed);

/** A DAILY 09:00 UTC notification on dashboard 70 of deployment 7, disabled unless `fields` say otherwise. */
export const notificationOf = (id: number, fields: Partial<Notification> = {}): Notification => ({
  id,
  deploymentId: 7,
  dashboardId: 70,
  scheduleType: 'DAILY',
  minute: 0,
  hour: 9,
  timezone: 'UTC',
  isEnabled: false,
  notificationEnabled: true,
  notificationFormat: 'png',
  filters: null,
  timeGrains: null,
  memberSwitchers: null,
  notificationAiSummary: false,
  ...fields,
});

/** An embed recipient of tenant acme, `<name>-<i>@example.com`, with embed user id `firstUserId + i`. */
export function embedRecipient(
  name: string,
  i: number,
  properties = {},
  firstUserId = 1_000_000,
): StoredEmbedRecipient {
  const externalId = `${name}-${i}@example.com`;
  const embedUserId = firstUserId + i;
  return {
    type: 'EMBED_USER',
    embedTenantName: 'acme',
    normalizedExternalId: externalId,
    externalId,
    embedUserId,
    email: externalId,
    properties,
  };
}

/** Writes items straight into the table, 16 BatchWrites in flight. */
export const putItems = (items: readonly Item[]) =>
  batchWriteAll(
    items.map((item) => ({ PutRequest: { Item: item } })),
    { concurrency: 16 },
  );
