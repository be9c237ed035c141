import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type DynamoMeter, meterDynamoDb } from '#lib/local/dynamodb-meter';
import { documentClient } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem } from '#lib/store/dynamo/items';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import {
  ADMIN,
  addRecipients,
  embedItems,
  embedUsers,
  expectEachInExactlyOneBucket,
  identityOf,
  MEMBER,
  recipientsFixture,
  storedRows,
} from './add-recipients-helpers.ts';

let api: LocalApi;
let meter: DynamoMeter;
beforeAll(async () => {
  api = await startLocalApi(recipientsFixture(Array.from({ length: 40 }, (_, i) => 701 + i)));
  meter = meterDynamoDb(documentClient());
});
afterAll(async () => {
  meter.detach();
  await api.close();
});
beforeEach(() => meter.reset());

/** Operations other than the two GetItems that authenticate the API key. */
const callsBeyondAuthentication = () =>
  Object.entries(meter.byOperation)
    .filter(([operation]) => operation !== 'GetItem')
    .reduce((sum, [, count]) => sum + count.requests, 0);

describe('console users', () => {
  it('subscribes console users by id, by e-mail in any case, and by both, answering their stored fields', async () => {
    const response = await addRecipients(api, 701, [
      { userId: 12 },
      { email: 'grace@EXAMPLE.com' },
      { type: 'USER', userId: 13, email: 'Barbara@example.com' },
    ]);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      createdRecipients: [
        { type: 'USER', userId: 12, email: 'linus@example.com', username: 'linus' },
        { type: 'USER', userId: 11, email: 'Grace@Example.com', username: 'grace' },
        { type: 'USER', userId: 13, email: 'barbara@example.com', username: 'barbara' },
      ],
      updatedRecipients: [],
      unchangedRecipients: [],
    });
    expect((await storedRows(701)).map((row) => row.userId)).toEqual([11, 12, 13]);
  });

  it('reports a console user already subscribed as unchanged, however it is named', async () => {
    await addRecipients(api, 702, [{ userId: 11 }]);
    const response = await addRecipients(api, 702, [{ email: 'GRACE@example.com' }, { userId: 12 }]);
    expect(response.body.unchangedRecipients).toEqual([
      { type: 'USER', userId: 11, email: 'Grace@Example.com', username: 'grace' },
    ]);
    expect(response.body.createdRecipients.map(identityOf)).toEqual(['USER:12']);
  });
});

describe('embed users', () => {
  it('provisions a missing embed user, taking its e-mail from an e-mail-shaped externalId (trimmed)', async () => {
    const response = await addRecipients(api, 703, [
      { embedTenantName: 'acme', externalId: '  Zoe@Customer.example ' },
    ]);
    expect(response.status).toBe(200);
    const [created] = response.body.createdRecipients;
    expect(created).toEqual({
      type: 'EMBED_USER',
      embedTenantName: 'acme',
      externalId: 'Zoe@Customer.example',
      embedUserId: expect.any(Number),
      email: 'Zoe@Customer.example',
    });
    expect(Number.isInteger(created.embedUserId) && created.embedUserId > 0).toBe(true);
  });

  it('takes the e-mail of a new embed user from the item before the externalId', async () => {
    const response = await addRecipients(api, 704, [
      { type: 'EMBED_USER', embedTenantName: 'acme', externalId: 'crm-1001', email: 'kim@customer.example' },
    ]);
    expect(response.body.createdRecipients[0]).toMatchObject({
      externalId: 'crm-1001',
      email: 'kim@customer.example',
    });
  });

  it('matches externalIds trimmed and case-insensitively, and answers with the externalId as first stored', async () => {
    const first = await addRecipients(api, 705, [
      { embedTenantName: 'acme', externalId: 'Yan@Customer.example' },
    ]);
    const again = await addRecipients(api, 705, [
      { embedTenantName: 'acme', externalId: ' yan@customer.EXAMPLE ' },
    ]);
    expect(again.body.unchangedRecipients).toEqual(first.body.createdRecipients);
    expect(again.body.createdRecipients).toEqual([]);
  });

  it('treats tenant names as case-sensitive', async () => {
    const response = await addRecipients(api, 706, [
      { embedTenantName: 'ACME', externalId: 'a@customer.example' },
    ]);
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      { path: 'recipients.0.embedTenantName', message: 'is not a registered embed tenant' },
    ]);
  });

  it('reuses an existing embed user (its id, externalId and e-mail) for another notification', async () => {
    const first = await addRecipients(api, 707, [
      { embedTenantName: 'Globex', externalId: 'ops-7', email: 'ops7@globex.example' },
    ]);
    const before = (await embedUsers()).length;
    meter.reset();
    const response = await addRecipients(api, 708, [
      { embedTenantName: 'Globex', externalId: 'OPS-7', email: 'other@globex.example' },
    ]);
    expect(response.status).toBe(200);
    // The embed user's e-mail is set when it is created; a different one supplied later does not change it.
    expect(response.body.createdRecipients).toEqual(first.body.createdRecipients);
    expect((await embedUsers()).length).toBe(before);
    expect(meter.byOperation.UpdateItem).toBeUndefined();
    // The one transaction: the audit event, on condition that the notification is still there.
    expect(meter.byOperation.TransactWriteItems?.requests).toBe(1);
  });

  it('numbers up to 49 new embed users in their creating transaction, and more with one counter update', async () => {
    const response = await addRecipients(api, 709, embedItems(7, 'ids'));
    const ids = response.body.createdRecipients.map((item: { embedUserId: number }) => item.embedUserId);
    expect(new Set(ids).size).toBe(7);
    expect(ids.every((id: number) => Number.isInteger(id))).toBe(true);
    // The counter is read, then advanced by the transaction that creates the users; the audit event is
    // the last write, on condition that the notification is still there (a delete in between: 404).
    expect(meter.byOperation.UpdateItem).toBeUndefined();
    expect(meter.byOperation.GetItem?.requests).toBe(3);
    expect(meter.byOperation.TransactWriteItems?.requests).toBe(2);
    const counter = await getItem(keys.counter('embedUser'));
    expect(counter?.value).toBe(Math.max(...ids));

    meter.reset();
    const many = await addRecipients(api, 709, embedItems(60, 'many'));
    expect(many.body.createdRecipients).toHaveLength(60);
    expect(meter.byOperation.UpdateItem?.requests).toBe(1);
    expect(meter.byOperation.TransactWriteItems?.requests).toBe(3);
  });
});

describe('properties of embed recipients', () => {
  const item = (extra: Record<string, unknown>) => ({
    embedTenantName: 'acme',
    externalId: 'p@customer.example',
    ...extra,
  });

  it('reports changed properties as updated, compares objects by value and keeps omitted properties', async () => {
    const securityContext = { region: 'EU', team: { id: 3, name: 'ops' } };
    const created = await addRecipients(api, 710, [item({ securityContext, groups: ['a', 'b'] })]);
    expect(created.body.createdRecipients).toHaveLength(1);

    const reordered = await addRecipients(api, 710, [
      item({ securityContext: { team: { name: 'ops', id: 3 }, region: 'EU' }, groups: ['a', 'b'] }),
    ]);
    expect(reordered.body.unchangedRecipients).toEqual(created.body.createdRecipients);

    const regrouped = await addRecipients(api, 710, [item({ groups: ['b', 'a'] })]);
    expect(regrouped.body.updatedRecipients).toEqual(created.body.createdRecipients);

    const withAttributes = await addRecipients(api, 710, [
      item({ userAttributes: [{ name: 'tier', value: 'gold' }] }),
    ]);
    expect(withAttributes.body.updatedRecipients).toHaveLength(1);

    const [row] = await storedRows(710);
    expect(JSON.parse(row?.securityContextJson as string)).toEqual(securityContext);
    expect(JSON.parse(row?.groupsJson as string)).toEqual(['b', 'a']);
    expect(JSON.parse(row?.userAttributesJson as string)).toEqual([{ name: 'tier', value: 'gold' }]);

    meter.reset();
    const plain = await addRecipients(api, 710, [item({})]);
    expect(plain.body.unchangedRecipients).toHaveLength(1);
    expect(meter.writeRequests()).toBe(0);
  });

  it('counts an empty list or object supplied over an absent one as a change', async () => {
    await addRecipients(api, 711, [item({})]);
    const response = await addRecipients(api, 711, [item({ groups: [], securityContext: {} })]);
    expect(response.body.updatedRecipients).toHaveLength(1);
  });
});

describe('buckets', () => {
  it('sorts a mixed request into created, updated and unchanged, each in request order', async () => {
    await addRecipients(api, 712, [
      { userId: 11 },
      { embedTenantName: 'acme', externalId: 'm1@customer.example', groups: ['x'] },
      { embedTenantName: 'acme', externalId: 'm2@customer.example', groups: ['x'] },
    ]);
    await addRecipients(api, 713, [{ embedTenantName: 'acme', externalId: 'elsewhere@customer.example' }]);
    const submitted = [
      { embedTenantName: 'acme', externalId: 'm2@customer.example', groups: ['y'] },
      { userId: 12 },
      { userId: 11 },
      { embedTenantName: 'acme', externalId: 'new@customer.example' },
      { embedTenantName: 'acme', externalId: 'm1@customer.example', groups: ['x'] },
      { embedTenantName: 'acme', externalId: 'elsewhere@customer.example' },
      { embedTenantName: 'acme', externalId: 'm1b@customer.example', securityContext: { a: 1 } },
    ];
    const response = await addRecipients(api, 712, submitted);
    expect(response.status).toBe(200);
    const identities = submitted.map((entry) =>
      'userId' in entry
        ? `USER:${entry.userId}`
        : `EMBED_USER:acme:${String(entry.externalId).toLowerCase()}`,
    );
    expectEachInExactlyOneBucket(response.body, identities);
    expect(response.body.createdRecipients.map(identityOf)).toEqual([
      'USER:12',
      'EMBED_USER:acme:new@customer.example',
      'EMBED_USER:acme:elsewhere@customer.example',
      'EMBED_USER:acme:m1b@customer.example',
    ]);
    expect(response.body.updatedRecipients.map(identityOf)).toEqual(['EMBED_USER:acme:m2@customer.example']);
    expect(response.body.unchangedRecipients.map(identityOf)).toEqual([
      'USER:11',
      'EMBED_USER:acme:m1@customer.example',
    ]);
    expect(await storedRows(712)).toHaveLength(7);
  });
});

describe('refusals write nothing', () => {
  let seeded: unknown[];
  beforeAll(async () => {
    await addRecipients(api, 720, [
      { userId: 11 },
      { embedTenantName: 'acme', externalId: 'keep@customer.example', groups: ['g'] },
    ]);
    seeded = await storedRows(720);
  });

  /** Sends, expects a refusal, and checks the stored rows are exactly as before. */
  async function refused(recipients: unknown) {
    meter.reset();
    const response = await addRecipients(api, 720, recipients);
    const storageCalls = callsBeyondAuthentication();
    expect(response.status).toBe(400);
    expect(await storedRows(720)).toEqual(seeded);
    return { body: response.body, storageCalls };
  }

  it('refuses fewer than 1 and more than 1000 recipients without touching storage', async () => {
    const none = await refused([]);
    expect(none.body.errors).toEqual([{ path: 'recipients', message: 'must have at least 1 recipient' }]);
    expect(none.storageCalls).toBe(0);
    const tooMany = await refused(embedItems(1001, 'many'));
    expect(tooMany.body.errors).toEqual([
      { path: 'recipients', message: 'must have at most 1000 recipients' },
    ]);
    expect(tooMany.storageCalls).toBe(0);
  });

  it('lists every shape problem with its path, with no storage call beyond authentication', async () => {
    meter.reset();
    const response = await addRecipients(api, 720, [
      { userId: 11, emial: 'typo@example.com' },
      {},
      { type: 'USER', externalId: 'x', userId: 12 },
      { externalId: 'x' },
      { embedTenantName: 'acme', externalId: '   ' },
      { userId: '12' },
      { email: 'a@b.example', securityContext: { a: 1 } },
      { embedTenantName: 'acme', externalId: 'y', userAttributes: [{ name: 'tier' }], groups: 'admins' },
      { userId: 0 },
      { type: 'ROBOT', userId: 11 },
    ]);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect(response.body.errors).toEqual([
      { path: 'recipients.0.emial', message: 'is not a known field' },
      { path: 'recipients.1', message: expect.stringMatching(/^does not identify a recipient/) },
      { path: 'recipients.2.externalId', message: 'is not a field of a USER recipient' },
      { path: 'recipients.3.embedTenantName', message: 'is required for an EMBED_USER recipient' },
      { path: 'recipients.4.externalId', message: 'must not be blank' },
      { path: 'recipients.5.userId', message: expect.any(String) },
      { path: 'recipients.6.securityContext', message: 'is not a field of a USER recipient' },
      { path: 'recipients.7.groups', message: expect.any(String) },
      { path: 'recipients.8.userId', message: 'must be a positive integer' },
      { path: 'recipients.9.type', message: expect.any(String) },
    ]);
    expect(response.body.message).toMatch(/^recipients\[0\]\.emial: is not a known field \(and 9 more\)$/);
    expect(callsBeyondAuthentication()).toBe(0);
    expect(await storedRows(720)).toEqual(seeded);
  });

  it('refuses a request with any Slack recipient as unsupported, naming each one', async () => {
    const response = await refused([
      { userId: 12 },
      { channelId: 'C123' },
      { type: 'SLACK', channelName: '#alerts' },
      { embedTenantName: 'acme', externalId: 'new-slack@customer.example' },
    ]);
    expect(response.body.code).toBe('unsupported_recipient');
    expect(response.body.errors.map((error: { path: string }) => error.path)).toEqual([
      'recipients.1',
      'recipients.2',
    ]);
    expect(response.storageCalls).toBe(0);
  });

  it('reports shape problems before Slack, and Slack before resolution', async () => {
    const shapeAndSlack = await refused([{ channelId: 'C1' }, { userId: -1 }]);
    expect(shapeAndSlack.body.code).toBe('validation_failed');
    const slackAndUnknown = await refused([{ channelId: 'C1' }, { userId: 999 }]);
    expect(slackAndUnknown.body.code).toBe('unsupported_recipient');
  });

  it('refuses the same recipient twice, naming both indexes', async () => {
    const byId = await refused([{ userId: 12 }, { userId: 13 }, { userId: 12 }]);
    expect(byId.body).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: 'recipients.2', message: 'is the same recipient as recipients[0]' }],
    });
    const byEmail = await refused([{ email: 'linus@example.com' }, { email: 'LINUS@example.com' }]);
    expect(byEmail.body.errors).toEqual([
      { path: 'recipients.1', message: 'is the same recipient as recipients[0]' },
    ]);
    const embed = await refused([
      { embedTenantName: 'acme', externalId: 'dup@customer.example' },
      { embedTenantName: 'acme', externalId: ' DUP@customer.example' },
    ]);
    expect(embed.body.errors).toEqual([
      { path: 'recipients.1', message: 'is the same recipient as recipients[0]' },
    ]);
    expect(embed.storageCalls).toBe(0);
    // The same person by id and by e-mail only shows once resolved.
    const resolved = await refused([{ userId: 12 }, { email: 'linus@example.com' }]);
    expect(resolved.body).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: 'recipients.1', message: 'is the same recipient as recipients[0]' }],
    });
  });

  it('refuses every recipient that does not resolve to a valid e-mail, listing them all', async () => {
    const response = await refused([
      { userId: 999 },
      { userId: 16 },
      { email: 'nobody@example.com' },
      { userId: 12, email: 'grace@example.com' },
      { embedTenantName: 'initech', externalId: 'a@initech.example' },
      { embedTenantName: 'acme', externalId: 'crm-42' },
      { embedTenantName: 'acme', externalId: 'crm-43', email: 'not-an-email' },
      { email: 'gone@example.com' },
      { userId: 11 },
    ]);
    expect(response.body.code).toBe('unresolvable_recipient');
    expect(response.body.errors).toEqual([
      { path: 'recipients.0.userId', message: 'does not name an active console user' },
      { path: 'recipients.1.userId', message: 'does not name an active console user' },
      { path: 'recipients.2.email', message: "does not match an active console user's e-mail" },
      { path: 'recipients.3', message: 'userId and email name different console users' },
      { path: 'recipients.4.embedTenantName', message: 'is not a registered embed tenant' },
      {
        path: 'recipients.5',
        message: 'does not resolve to a valid e-mail: give email, or an e-mail-shaped externalId',
      },
      { path: 'recipients.6.email', message: 'is not a valid e-mail address' },
      { path: 'recipients.7.email', message: "does not match an active console user's e-mail" },
    ]);
    expect(response.body.message).toBe(
      'recipients[0].userId: does not name an active console user (and 7 more)',
    );
  });

  it('answers unresolvable when resolution finds both unresolvable items and duplicates, listing both', async () => {
    const response = await refused([{ userId: 12 }, { userId: 999 }, { email: 'linus@example.com' }]);
    expect(response.body.code).toBe('unresolvable_recipient');
    expect(response.body.errors.map((error: { path: string }) => error.path)).toEqual([
      'recipients.1.userId',
      'recipients.2',
    ]);
  });

  it('refuses a body without recipients, an unknown top-level field, and an absent body', async () => {
    const response = await api.request('POST', '/v1/deployments/7/notifications/720/recipients', {
      token: ADMIN,
      body: { recipient: [{ userId: 12 }] },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      { path: 'recipients', message: 'is required' },
      { path: 'recipient', message: 'is not a known field' },
    ]);
    const absent = await api.request('POST', '/v1/deployments/7/notifications/720/recipients', {
      token: ADMIN,
    });
    expect(absent.status).toBe(400);
    expect(absent.body.code).toBe('malformed_json');
    expect(await storedRows(720)).toEqual(seeded);
  });
});

describe('targets and callers', () => {
  it('answers 404 for an unknown notification, an unknown deployment, and a notification of another deployment', async () => {
    for (const [deploymentId, notificationId] of [
      [7, 798],
      [9, 700],
      [8, 700],
      [7, 800],
    ] as const) {
      const response = await addRecipients(api, notificationId, [{ userId: 12 }], { deploymentId });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
    expect(await storedRows(700)).toEqual([]);
  });

  it('checks the request before looking the notification up', async () => {
    const invalid = await addRecipients(api, 798, [{}]);
    expect(invalid.status).toBe(400);
    const slack = await addRecipients(api, 798, [{ channelId: 'C1' }]);
    expect(slack.body.code).toBe('unsupported_recipient');
    const unresolvable = await addRecipients(api, 798, [{ userId: 999 }]);
    expect(unresolvable.status).toBe(404);
  });

  it('refuses path ids that are not positive integers', async () => {
    const response = await api.request('POST', '/v1/deployments/7/notifications/abc/recipients', {
      token: ADMIN,
      body: { recipients: [{ userId: 12 }] },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ path: 'id', message: 'must be a positive integer' }]);
  });

  it('answers 401 without a credential and 403 to a member, before reading the body or the target', async () => {
    const anonymous = await api.request('POST', '/v1/deployments/7/notifications/701/recipients', {
      body: { recipients: [{ userId: 12 }] },
    });
    expect(anonymous.status).toBe(401);
    const member = await addRecipients(api, 798, [{}], { token: MEMBER });
    expect(member.status).toBe(403);
    expect(member.body.code).toBe('forbidden');
  });
});
