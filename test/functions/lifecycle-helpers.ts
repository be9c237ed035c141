import { apiClient, asApiResponse } from '#test/support/api-client';
import { ADMIN_KEY, consoleUsers } from '#test/support/fixtures';
import type { LocalApi } from '#test/support/local-api';

/** The fixture and request helpers the notification lifecycle tests share. */

export const SECOND_ADMIN_KEY = 'sk-test-second-admin';

export const lifecycleFixture = {
  users: [
    ...consoleUsers,
    {
      id: 4,
      email: 'Dora@Example.com',
      username: 'dora',
      role: 'admin',
      active: true,
      apiKeys: [SECOND_ADMIN_KEY],
    },
    { id: 5, email: 'eve@example.com', username: 'eve', role: 'member', active: true },
  ],
  deployments: [
    { id: 7, name: 'Production' },
    { id: 8, name: 'Staging' },
  ],
  dashboards: [
    { id: 70, deploymentId: 7, publicId: 'sales-overview', title: 'Sales' },
    { id: 71, deploymentId: 7, publicId: 'ops-kpis', title: 'Ops' },
    { id: 80, deploymentId: 8, publicId: 'staging-sales', title: 'Staging sales' },
  ],
  embedTenants: [{ name: 'acme', issuer: 'https://acme.example.com' }],
  notifications: [
    { id: 700, deploymentId: 7, dashboardId: 70, scheduleType: 'DAILY', hour: 9 },
    { id: 701, deploymentId: 7, dashboardId: 71, scheduleType: 'HOURLY', minute: 5 },
    { id: 800, deploymentId: 8, dashboardId: 80, scheduleType: 'HOURLY' },
  ],
};

export const HIGHEST_FIXTURE_ID = 800;

export const dailyAt = (hour: number, dashboardId = 70) => ({ dashboardId, scheduleType: 'DAILY', hour });

const query = (raw: string) => Object.fromEntries(new URLSearchParams(raw)) as never;
const path = (deploymentId: number, id?: number) =>
  ({ deploymentId: String(deploymentId), ...(id !== undefined && { id: String(id) }) }) as never;

/**
 * The lifecycle routes through the typed client (test/support/api-client.ts). Bodies and query
 * strings are passed as the tests write them, refused ones included, so they are cast; routes,
 * methods and path parameters are checked against the description at compile time.
 */
export function lifecycleClient(api: LocalApi) {
  const admin = apiClient(api, ADMIN_KEY);
  const notifications = (deploymentId = 7) => `/v1/deployments/${deploymentId}/notifications`;
  return {
    notifications,
    create: async (body: unknown, options: { key?: string; token?: string; deploymentId?: number } = {}) =>
      asApiResponse(
        await apiClient(api, options.token ?? ADMIN_KEY).POST(
          '/v1/deployments/{deploymentId}/notifications',
          {
            params: {
              path: path(options.deploymentId ?? 7),
              header: (options.key === undefined ? {} : { 'idempotency-key': options.key }) as never,
            },
            body: body as never,
          },
        ),
      ),
    list: async (raw = '', deploymentId = 7) =>
      asApiResponse(
        await admin.GET('/v1/deployments/{deploymentId}/notifications', {
          params: { path: path(deploymentId), query: query(raw) },
        }),
      ),
    get: async (id: number, deploymentId = 7) =>
      asApiResponse(
        await admin.GET('/v1/deployments/{deploymentId}/notifications/{id}', {
          params: { path: path(deploymentId, id) },
        }),
      ),
    remove: async (id: number, deploymentId = 7) =>
      asApiResponse(
        await admin.DELETE('/v1/deployments/{deploymentId}/notifications/{id}', {
          params: { path: path(deploymentId, id) },
        }),
      ),
    subscribe: async (id: number, recipients: unknown[]) =>
      asApiResponse(
        await admin.POST('/v1/deployments/{deploymentId}/notifications/{id}/recipients', {
          params: { path: path(7, id) },
          body: { recipients } as never,
        }),
      ),
    recipients: async (id: number, raw = '') =>
      asApiResponse(
        await admin.GET('/v1/deployments/{deploymentId}/notifications/{id}/recipients', {
          params: { path: path(7, id), query: query(raw) },
        }),
      ),
    unsubscribe: async (id: number, recipients: unknown) =>
      asApiResponse(
        await admin.DELETE('/v1/deployments/{deploymentId}/notifications/{id}/recipients', {
          params: { path: path(7, id) },
          body: { recipients } as never,
        }),
      ),
  };
}
