import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN, recipientsFixture } from '#test/functions/add-recipients-helpers';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { captureLogs, type LogCapture } from '#test/support/log-capture';

/** The embedded-metric-format lines each request leaves for CloudWatch to turn into metrics. */

vi.hoisted(() => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  // As Lambda says of a container started for a request: its first request is a cold start.
  process.env.AWS_LAMBDA_INITIALIZATION_TYPE = 'on-demand';
});

let api: LocalApi;
let logs: LogCapture;

beforeAll(async () => {
  // Notification 700 shows dashboard 70: with it stored and published, a send-now queues deliveries.
  api = await startLocalApi({
    ...recipientsFixture(),
    dashboards: [{ id: 70, deploymentId: 7, publicId: 'sales-overview', title: 'Sales', published: true }],
  });
});
afterAll(() => api.close());
afterEach(() => logs?.end());

const RECIPIENTS = '/v1/deployments/7/notifications/700/recipients';

describe('request metrics', () => {
  it("write a container's first request a ColdStart line of its own, and only the first", async () => {
    logs = captureLogs();
    await api.request('GET', '/v1/spec');
    await api.request('GET', '/v1/spec');
    const lines = logs.metrics();
    const coldStarts = lines.filter((emf) => 'ColdStart' in emf);
    expect(coldStarts).toEqual([
      {
        _aws: {
          Timestamp: expect.any(Number),
          CloudWatchMetrics: [
            {
              Namespace: 'AdminApi',
              Dimensions: [['service', 'function_name']],
              Metrics: [{ Name: 'ColdStart', Unit: 'Count' }],
            },
          ],
        },
        service: 'admin-api',
        function_name: 'get-api-spec',
        ColdStart: 1,
      },
    ]);
    // Each request's own line: the operation's dimension, every metric named with its unit.
    const requests = lines.filter((emf) => emf.operation === 'get-api-spec');
    expect(requests).toHaveLength(2);
    expect(requests[0]).toEqual({
      _aws: {
        Timestamp: expect.any(Number),
        CloudWatchMetrics: [
          {
            Namespace: 'AdminApi',
            Dimensions: [['service', 'operation']],
            Metrics: [
              { Name: 'Responses2xx', Unit: 'Count' },
              { Name: 'Responses4xx', Unit: 'Count' },
              { Name: 'Responses5xx', Unit: 'Count' },
              { Name: 'Latency', Unit: 'Milliseconds' },
            ],
          },
        ],
      },
      service: 'admin-api',
      operation: 'get-api-spec',
      Responses2xx: 1,
      Responses4xx: 0,
      Responses5xx: 0,
      Latency: expect.any(Number),
    });
  });

  it('count each request by status class per operation, with its latency', async () => {
    logs = captureLogs();
    expect(
      (await api.request('POST', RECIPIENTS, { token: 'sk-wrong', body: { recipients: [] } })).status,
    ).toBe(401);
    const [line] = logs.metrics().filter((emf) => emf.operation === 'add-recipients');
    expect(line).toMatchObject({
      Responses2xx: 0,
      Responses4xx: 1,
      Responses5xx: 0,
      Latency: expect.any(Number),
    });
    expect(line?._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'AdminApi',
      Dimensions: [['service', 'operation']],
    });
  });

  it('count the recipients a request created, and nothing for a repeat', async () => {
    logs = captureLogs();
    const body = { recipients: [{ userId: 11 }, { userId: 12 }] };
    expect((await api.request('POST', RECIPIENTS, { token: ADMIN, body })).status).toBe(200);
    expect((await api.request('POST', RECIPIENTS, { token: ADMIN, body })).status).toBe(200);
    const [first, second] = logs.metrics().filter((emf) => emf.operation === 'add-recipients');
    expect(first).toMatchObject({ Responses2xx: 1, RecipientsCreated: 2 });
    expect(first).not.toHaveProperty('RecipientsUpdated');
    // The same recipients again: nothing created, nothing changed, and no zero emitted.
    expect(second).toMatchObject({ Responses2xx: 1 });
    expect(second).not.toHaveProperty('RecipientsCreated');
    expect(second).not.toHaveProperty('RecipientsUpdated');
  });
});

describe('scheduling metrics', () => {
  it('count a send-now run and its deliveries', async () => {
    logs = captureLogs();
    const subscribe = { recipients: [{ userId: 11 }, { userId: 12 }] };
    expect((await api.request('POST', RECIPIENTS, { token: ADMIN, body: subscribe })).status).toBe(200);
    const sent = await api.request('POST', '/v1/deployments/7/notifications/700/send', { token: ADMIN });
    expect(sent.status).toBe(202);
    const { recipients } = sent.body as { recipients: { queued: number; skipped: number } };
    const [line] = logs.metrics().filter((emf) => emf.operation === 'send-notification');
    expect(line).toMatchObject({ Responses2xx: 1, RunsCreated: 1, DeliveriesQueued: recipients.queued });
    expect(recipients.queued).toBeGreaterThan(0);
  });

  it("publish each dispatcher pass's counts under the dispatch operation", async () => {
    logs = captureLogs();
    const { handler } = await import('#functions/dispatch');
    const counts = await handler({}, { getRemainingTimeInMillis: () => 60_000 });
    const [line] = logs.metrics().filter((emf) => emf.operation === 'dispatch');
    expect(line).toMatchObject({
      RunsCreated: counts.fired,
      DeliveriesQueued: counts.queued,
      DeliveriesSkipped: counts.skipped,
      InstantsMissed: counts.missed,
      DispatchFailures: counts.failed,
    });
    expect(line?._aws.CloudWatchMetrics[0]).toMatchObject({ Dimensions: [['service', 'operation']] });
  });
});
