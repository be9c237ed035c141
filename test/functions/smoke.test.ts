import { afterAll, beforeAll, expect, it } from 'vitest';
import { type LocalApi, startLocalApi } from '#test/support/local-api';

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi({
    users: [{ id: 1, email: 'ada@example.com', username: 'ada', role: 'admin', apiKeys: ['sk-admin'] }],
    deployments: [{ id: 7, name: 'P' }],
    notifications: [{ id: 700, deploymentId: 7, dashboardId: 70, scheduleType: 'DAILY', hour: 9 }],
  });
});
afterAll(() => api.close());

it('serves the PUT', async () => {
  const response = await api.request('PUT', '/v1/deployments/7/notifications/700', {
    token: 'sk-admin',
    body: { hour: 10 },
  });
  expect(response.status).toBe(200);
  expect(response.body.cronExpression).toBe('0 10 * * *');
});

