import { ADMIN_KEY, consoleUsers } from '#test/support/fixtures';
import type { ApiResponse, LocalApi } from '#test/support/local-api';

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

export function lifecycleClient(api: LocalApi) {
  const notifications = (deploymentId = 7) => `/v1/deployments/${deploymentId}/notifications`;
  return {
    notifications,
    create: (body: unknown, options: { key?: string; token?: string; deploymentId?: number } = {}) =>
      api.request('POST', notifications(options.deploymentId), {
        token: options.token ?? ADMIN_KEY,
        body,
        headers: options.key === undefined ? {} : { 'idempotency-key': options.key },
      }),
    list: (query = '', deploymentId = 7) =>
      api.request('GET', `${notifications(deploymentId)}${query ? `?${query}` : ''}`, { token: ADMIN_KEY }),
    get: (id: number, deploymentId = 7) =>
      api.request('GET', `${notifications(deploymentId)}/${id}`, { token: ADMIN_KEY }),
    remove: (id: number, deploymentId = 7) =>
      api.request('DELETE', `${notifications(deploymentId)}/${id}`, { token: ADMIN_KEY }),
    subscribe: (id: number, recipients: unknown[]) =>
      api.request('POST', `${notifications()}/${id}/recipients`, { token: ADMIN_KEY, body: { recipients } }),
    recipients: (id: number, query = '') =>
      api.request('GET', `${notifications()}/${id}/recipients${query ? `?${query}` : ''}`, {
        token: ADMIN_KEY,
      }),
    unsubscribe: (id: number, recipients: unknown) =>
      api.request('DELETE', `${notifications()}/${id}/recipients`, {
        token: ADMIN_KEY,
        body: { recipients },
      }),
  };
}

/** Every page of a list, following `endCursor` until `hasNextPage` is false. */
export async function walk(
  fetchPage: (after?: string) => Promise<ApiResponse>,
  between: (pageIndex: number) => Promise<void> = async () => {},
): Promise<ApiResponse['body'][]> {
  const items: ApiResponse['body'][] = [];
  let after: string | undefined;
  for (let page = 0; page < 100; page++) {
    const response = await fetchPage(after);
    if (response.status !== 200) throw new Error(`page ${page} answered ${response.status}`);
    items.push(...response.body.items);
    if (!response.body.pageInfo.hasNextPage) return items;
    after = response.body.pageInfo.endCursor;
    await between(page);
  }
  throw new Error('the walk did not end');
}
