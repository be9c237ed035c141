import type { Notification } from '#lib/domain/notifications/notification';
import { generateSigningKey } from '#test/support/tokens';

/** Fixture pieces several test files share: the callers every admin route is tried with. */

export const ADMIN_KEY = 'sk-test-admin';
export const MEMBER_KEY = 'sk-test-member';
export const DEACTIVATED_ADMIN_KEY = 'sk-test-deactivated-admin';

export const consoleUsers = [
  {
    id: 1,
    email: 'ada@example.com',
    username: 'ada',
    role: 'admin',
    active: true,
    subject: 'sub-ada',
    apiKeys: [ADMIN_KEY],
  },
  {
    id: 2,
    email: 'bob@example.com',
    username: 'bob',
    role: 'member',
    active: true,
    subject: 'sub-bob',
    apiKeys: [MEMBER_KEY],
  },
  {
    id: 3,
    email: 'carol@example.com',
    username: 'carol',
    role: 'admin',
    active: false,
    subject: 'sub-carol',
    apiKeys: [DEACTIVATED_ADMIN_KEY],
  },
];

export const ACME_ISSUER = 'https://auth.acme.example';
/** The key the `acme` tenant of `embeddableDashboardFixture` signs its embed tokens with. */
export const acmeKey = generateSigningKey('acme-1');

/**
 * One deployment with notification 700 on dashboard 70 (`ops-kpis`, published, embeddable, shared
 * with the `acme` tenant, whose tokens `acmeKey` signs): enough for a request to every route.
 */
export function embeddableDashboardFixture(users: readonly object[]) {
  return {
    users: [...users],
    deployments: [{ id: 7, name: 'Production' }],
    dashboards: [
      {
        id: 70,
        deploymentId: 7,
        publicId: 'ops-kpis',
        title: 'Ops KPIs',
        published: true,
        allowEmbed: true,
        sharedWithAllEmbedUsers: false,
        sharedWithTenants: ['acme'],
      },
    ],
    embedTenants: [{ name: 'acme', issuer: ACME_ISSUER, jwks: { keys: [acmeKey.publicJwk] } }],
    notifications: [{ id: 700, deploymentId: 7, dashboardId: 70, scheduleType: 'DAILY' as const, hour: 9 }],
  };
}

/** A DAILY notification at `hour`:`minute` UTC of dashboard 70 in deployment 7, enabled, as the dispatcher tests fire them. */
export const dailyUtc = (id: number, hour: number, minute: number): Notification =>
  ({
    id,
    deploymentId: 7,
    dashboardId: 70,
    scheduleType: 'DAILY',
    minute,
    hour,
    timezone: 'UTC',
    isEnabled: true,
    notificationEnabled: true,
    notificationFormat: 'pdf',
    filters: null,
    timeGrains: null,
  }) as Notification;

/**
 * Deployment 7 with its published dashboard 70 (`sales`, shared with the acme tenant), the console users, the acme
 * tenant and, when given, the renderer's platform issuer: what a file that sends runs and reports their outcomes
 * starts from. `users` and `dashboards` are added to the fixture's own.
 */
export const publishedDashboardFixture = ({
  notifications,
  platform,
  users = [],
  dashboards = [],
}: {
  notifications: unknown[];
  platform?: { trustedIssuer: object };
  users?: readonly object[];
  dashboards?: readonly object[];
}) => ({
  users: [...consoleUsers, ...users],
  deployments: [{ id: 7, name: 'Production' }],
  dashboards: [
    {
      id: 70,
      deploymentId: 7,
      publicId: 'sales',
      title: 'Sales',
      published: true,
      sharedWithTenants: ['acme'],
    },
    ...dashboards,
  ],
  embedTenants: [{ name: 'acme', issuer: 'https://auth.acme.example', jwks: { keys: [] } }],
  trustedIssuers: platform ? [platform.trustedIssuer] : [],
  notifications,
});
