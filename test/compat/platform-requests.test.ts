import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, consoleUsers } from '#test/support/fixtures';
import { type ApiResponse, type LocalApi, startLocalApi } from '#test/support/local-api';
import { type PlatformFacts, platformJsonSchema } from '#test/support/platform-compat';
import facts from '../fixtures/platform-operations.json' with { type: 'json' };

/**
 * What a client written for the platform sends, sent here: bodies that use every field the platform
 * defines for the operation (with `null` wherever the platform allows it), and answers checked
 * against the platform's own schemas. The statuses are the platform's, but for the listed
 * differences (201 on create).
 */

const platform = facts as unknown as PlatformFacts;
const ajv = new Ajv2020({ strict: false, allErrors: true });
const BASE = '/v1/deployments/7/notifications';

let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi({
    users: consoleUsers,
    deployments: [{ id: 7, name: 'Production' }],
    dashboards: [
      {
        id: 70,
        deploymentId: 7,
        publicId: 'sales',
        title: 'Sales',
        published: true,
        allowEmbed: false,
        sharedWithTenants: ['acme'],
      },
    ],
    embedTenants: [{ name: 'acme', issuer: 'https://auth.acme.example', jwks: { keys: [] } }],
  });
});
afterAll(() => api.close());

const send = (method: string, path: string, body?: unknown) =>
  api.request(method, path, { token: ADMIN_KEY, body });

/** The answer read as a platform client reads it: no problem against the platform's schema. */
function platformProblems(schemaName: string, answer: ApiResponse): string[] {
  const validate = ajv.compile(platformJsonSchema(platform, schemaName));
  return validate(answer.body)
    ? []
    : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

const propertiesOf = (schemaName: string) =>
  Object.keys((platform.schemas[schemaName] as { properties: object }).properties).sort();

const filter = {
  member: 'Orders.status',
  operator: 'equals',
  value: 'paid',
  caseSensitive: null,
  startInclusive: null,
  endInclusive: null,
};
const timeGrain = { member: 'Orders.createdAt', grain: 'week' };
const memberSwitcher = { member: 'Orders.status', selected: 'city' };

const createBody = {
  dashboardId: 70,
  dashboardPublicId: null,
  scheduleType: 'WEEKLY',
  customCron: null,
  minute: 30,
  hour: 8,
  dayOfWeek: 1,
  dayOfMonth: null,
  timezone: 'Europe/Berlin',
  notificationEnabled: true,
  notificationFormat: 'pdf',
  notificationAiSummary: true,
  filters: [filter],
  timeGrains: [timeGrain],
  memberSwitchers: [memberSwitcher],
};

const updateBody = {
  scheduleType: null,
  customCron: null,
  minute: 45,
  hour: null,
  dayOfWeek: null,
  dayOfMonth: null,
  timezone: null,
  isEnabled: false,
  notificationEnabled: null,
  notificationFormat: null,
  notificationAiSummary: false,
  filters: null,
  timeGrains: [],
  memberSwitchers: null,
};

const userRecipient = {
  type: 'USER',
  userId: 1,
  email: null,
  embedTenantName: null,
  externalId: null,
  securityContext: null,
  userAttributes: null,
  groups: null,
  channelId: null,
  channelName: null,
};
const embedRecipient = {
  type: 'EMBED_USER',
  userId: null,
  email: 'wile@acme.example',
  embedTenantName: 'acme',
  externalId: 'wile',
  securityContext: { region: 'EU' },
  userAttributes: [
    { name: 'tier', value: 'gold' },
    { name: 'seats', value: 3 },
    { name: 'regions', value: ['EU', 'US'] },
  ],
  groups: ['sales'],
  channelId: null,
  channelName: null,
};

describe('a client written for the platform', () => {
  it('sends every field the platform defines for each body', () => {
    expect(Object.keys(createBody).sort()).toEqual(propertiesOf('CreateNotificationInput'));
    expect(Object.keys(updateBody).sort()).toEqual(propertiesOf('UpdateNotificationInput'));
    expect(Object.keys(filter).sort()).toEqual(propertiesOf('DashboardFilterInput'));
    expect(Object.keys(timeGrain).sort()).toEqual(propertiesOf('DashboardTimeGrainInput'));
    expect(Object.keys(memberSwitcher).sort()).toEqual(propertiesOf('DashboardMemberSwitcherInput'));
    expect(Object.keys(embedRecipient).sort()).toEqual(propertiesOf('NotificationRecipientInput'));
    expect(Object.keys(userRecipient).sort()).toEqual(propertiesOf('NotificationRecipientInput'));
  });

  it('creates, reads, lists, updates and deletes a notification, reading every answer', async () => {
    const created = await send('POST', BASE, createBody);
    expect(created.status).toBe(201);
    expect(platformProblems('NotificationDto', created)).toEqual([]);
    expect(created.body).toMatchObject({
      cronExpression: '30 8 * * 1',
      notificationAiSummary: true,
      memberSwitchers: [memberSwitcher],
      filters: [filter],
    });
    const path = `${BASE}/${created.body.id}`;

    const got = await send('GET', path);
    expect(got.status).toBe(200);
    expect(platformProblems('NotificationDto', got)).toEqual([]);

    const listed = await send('GET', `${BASE}?first=10&dashboardId=70`);
    expect(listed.status).toBe(200);
    expect(platformProblems('NotificationsListResponse', listed)).toEqual([]);

    const updated = await send('PUT', path, updateBody);
    expect(updated.status).toBe(200);
    expect(platformProblems('NotificationDto', updated)).toEqual([]);
    expect(updated.body).toMatchObject({
      cronExpression: '45 8 * * 1',
      isEnabled: false,
      notificationAiSummary: false,
      filters: null,
      timeGrains: [],
      memberSwitchers: null,
    });

    expect((await send('DELETE', path)).status).toBe(204);
  });

  it('adds, lists and removes recipients, reading every answer', async () => {
    const created = await send('POST', BASE, { dashboardId: 70, scheduleType: 'HOURLY' });
    const recipients = `${BASE}/${created.body.id}/recipients`;
    const added = await send('POST', recipients, { recipients: [userRecipient, embedRecipient] });
    expect(added.status).toBe(200);
    expect(platformProblems('NotificationRecipientsMutationResponse', added)).toEqual([]);
    expect(added.body.createdRecipients).toHaveLength(2);

    const listed = await send('GET', `${recipients}?first=1`);
    expect(listed.status).toBe(200);
    expect(platformProblems('NotificationRecipientsListResponse', listed)).toEqual([]);

    const embedUserId = added.body.createdRecipients[1].embedUserId as number;
    const removed = await send('DELETE', recipients, {
      recipients: [
        { type: 'USER', id: 1, embedTenantName: null },
        { type: 'EMBED_USER', id: embedUserId, embedTenantName: 'acme' },
      ],
    });
    expect(removed.status).toBe(204);
    expect((await send('GET', recipients)).body.items).toEqual([]);
  });

  it('turns signed embedding on and reads the embedded dashboard', async () => {
    const patched = await send('PATCH', '/v1/embed/dashboard/sales', { allowEmbed: true });
    expect(patched.status).toBe(200);
    expect(platformProblems('DashboardEmbeddingResponse', patched)).toEqual([]);

    const dashboard = await send('GET', '/v1/embed/dashboard/sales');
    expect(dashboard.status).toBe(200);
    // The fields of the platform's Dashboard this service holds (the rest is a listed difference).
    const missing = ['workbookId', 'status', 'config', 'versionNumber', 'versionId', 'reportSnapshots'];
    expect(platformProblems('Dashboard', dashboard).sort()).toEqual(
      missing.map((name) => ` must have required property '${name}'`).sort(),
    );
    expect(dashboard.body).toMatchObject({ id: 70, publicId: 'sales', deploymentId: 7, allowEmbed: true });
  });
});
