import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Item } from '#lib/store/dynamo/items';
import { RECIPIENT_PREFIX } from '#lib/store/dynamo/keys';
import type { ApiResponse, LocalApi } from '#test/support/local-api';

/** Shared by the add-recipients test files: a fixture, the request, and read-backs straight from the table. */

export const ADMIN = 'sk-admin';
export const MEMBER = 'sk-member';

/** Notifications 700..799 belong to deployment 7, 800..899 to deployment 8. */
export function recipientsFixture(notificationIds: number[] = []) {
  return {
    users: [
      { id: 1, email: 'ada@example.com', username: 'ada', role: 'admin', apiKeys: [ADMIN] },
      { id: 2, email: 'mo@example.com', username: 'mo', role: 'member', apiKeys: [MEMBER] },
      { id: 11, email: 'Grace@Example.com', username: 'grace', role: 'member' },
      { id: 12, email: 'linus@example.com', username: 'linus', role: 'member' },
      { id: 13, email: 'barbara@example.com', username: 'barbara', role: 'admin' },
      { id: 16, email: 'gone@example.com', username: 'gone', role: 'member', active: false },
    ],
    deployments: [
      { id: 7, name: 'Production' },
      { id: 8, name: 'Staging' },
    ],
    embedTenants: [
      { name: 'acme', issuer: 'https://auth.acme.example', jwks: { keys: [] } },
      { name: 'Globex', issuer: 'https://auth.globex.example', jwks: { keys: [] } },
    ],
    notifications: [700, 800, ...notificationIds].map((id) => ({
      id,
      deploymentId: Math.floor(id / 100),
      dashboardId: 70,
      scheduleType: 'DAILY' as const,
      hour: 9,
    })),
  };
}

export const deploymentOf = (notificationId: number) => Math.floor(notificationId / 100);

export function addRecipients(
  api: LocalApi,
  notificationId: number,
  recipients: unknown,
  options: { token?: string; deploymentId?: number } = {},
): Promise<ApiResponse> {
  const deploymentId = options.deploymentId ?? deploymentOf(notificationId);
  return api.request('POST', `/v1/deployments/${deploymentId}/notifications/${notificationId}/recipients`, {
    token: options.token ?? ADMIN,
    body: { recipients },
  });
}

/** `count` embed recipients with e-mail-shaped externalIds, `prefix-0@...` onwards. */
export function embedItems(count: number, prefix: string, extra: Record<string, unknown> = {}) {
  return Array.from({ length: count }, (_, i) => ({
    embedTenantName: 'acme',
    externalId: `${prefix}-${i}@customer.example`,
    ...extra,
  }));
}

/** The notification's recipient rows as stored, in key order. */
export async function storedRows(notificationId: number): Promise<Item[]> {
  const rows: Item[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: {
          ':pk': keys.notificationPartition(deploymentOf(notificationId), notificationId),
          ':prefix': RECIPIENT_PREFIX,
        },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    rows.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return rows;
}

/** Every embed user item in the table. */
export async function embedUsers(): Promise<Item[]> {
  const users: Item[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'entity = :entity',
        ExpressionAttributeValues: { ':entity': 'EMBED_USER' },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    users.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return users;
}

type Output = Record<string, unknown>;

/** The identity of an output item: console user id, or tenant and lower-cased externalId. */
export const identityOf = (item: Output) =>
  item.type === 'USER'
    ? `USER:${item.userId}`
    : `EMBED_USER:${item.embedTenantName}:${String(item.externalId).trim().toLowerCase()}`;

export function bucketsOf(body: {
  createdRecipients: Output[];
  updatedRecipients: Output[];
  unchangedRecipients: Output[];
}) {
  return {
    created: body.createdRecipients.map(identityOf),
    updated: body.updatedRecipients.map(identityOf),
    unchanged: body.unchangedRecipients.map(identityOf),
  };
}

/** Every submitted recipient is in exactly one bucket, and each bucket keeps request order. */
export function expectEachInExactlyOneBucket(body: Parameters<typeof bucketsOf>[0], submitted: string[]) {
  const buckets = bucketsOf(body);
  const all = [...buckets.created, ...buckets.updated, ...buckets.unchanged];
  expect([...all].sort()).toEqual([...submitted].sort());
  for (const bucket of Object.values(buckets)) {
    const positions = bucket.map((identity) => submitted.indexOf(identity));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  }
}
