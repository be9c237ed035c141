import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '#lib/config';
import { meterDynamoDb } from '#lib/local/dynamodb-meter';
import { documentClient } from '#lib/store/dynamo/client';
import { acmeJwt, embedFixture, globexJwt } from '#test/support/embed-fixture';
import { ADMIN_KEY } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';

/**
 * Self-service subscriptions through real HTTP, with real embed tokens of two tenants: acme signs
 * with RSA, globex with EC keys (test/support/embed-fixture.ts).
 */

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi({
    ...embedFixture,
    embedTenants: embedFixture.embedTenants.map((tenant) =>
      tenant.name === 'globex' ? { ...tenant, selfService: { enabled: true, maxPerUser: 1 } } : tenant,
    ),
  });
});
afterAll(() => api.close());

const daily = { scheduleType: 'DAILY', hour: 8, minute: 0 };
const enable = (tenant: string, settings: Record<string, unknown> = {}) =>
  api.request('PATCH', `/v1/embed/tenants/${tenant}`, {
    token: ADMIN_KEY,
    body: { selfService: { enabled: true, ...settings } },
  });
const subscribe = (token: string, body: Record<string, unknown> = {}) =>
  api.request('POST', '/v1/embed/notifications', {
    token,
    body: { dashboardPublicId: 'tenant-on', ...daily, ...body },
  });
const acme = (sub: string, claims: Record<string, unknown> = {}) => acmeJwt({ sub, ...claims });

interface Job {
  runId: string;
  recipient: { externalId?: string; email: string; securityContext?: unknown; groups?: unknown };
  unsubscribeUrl: string;
}
async function jobsOf(runId: string): Promise<Job[]> {
  const dir = config().outboxDir;
  const jobs = await Promise.all(
    (await readdir(dir)).map(async (file) => JSON.parse(await readFile(join(dir, file), 'utf8')) as Job),
  );
  return jobs.filter((job) => job.runId === runId);
}
const sendNow = (id: number) =>
  api.request('POST', `/v1/deployments/7/notifications/${id}/send`, { token: ADMIN_KEY });

describe('the tenant setting', () => {
  it('is off by default: a subscription is 403 until an admin enables it', async () => {
    const refused = await subscribe(acme('before@acme.example'));
    expect(refused.status).toBe(403);
    const answer = await enable('acme');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      embedTenantName: 'acme',
      selfService: { enabled: true, maxPerUser: 5, minIntervalMinutes: 60 },
    });
    expect((await subscribe(acme('before@acme.example'))).status).toBe(201);
  });

  it('is for admins only, 400 out of range, 404 for an unknown tenant, and read from fixtures', async () => {
    const path = '/v1/embed/tenants/acme';
    const body = { selfService: { enabled: true } };
    expect((await api.request('PATCH', path, { token: acmeJwt(), body })).status).toBe(403);
    const tooMany = await api.request('PATCH', path, {
      token: ADMIN_KEY,
      body: { selfService: { enabled: true, maxPerUser: 51, minIntervalMinutes: 14 } },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'selfService.maxPerUser',
      'selfService.minIntervalMinutes',
    ]);
    expect((await api.request('PATCH', '/v1/embed/tenants/nobody', { token: ADMIN_KEY, body })).status).toBe(
      404,
    );
    // globex's fixture allows one subscription each.
    const gil = globexJwt({ sub: 'gil', email: 'gil@globex.example' });
    const shared = { dashboardPublicId: 'globex-on' };
    expect((await subscribe(gil, shared)).status).toBe(201);
    expect((await subscribe(gil, shared)).status).toBe(409);
  });
});

describe('an embed user subscribing themselves', () => {
  beforeAll(async () => {
    await enable('acme');
    await enable('globex', { minIntervalMinutes: 90 });
  });

  it('creates a notification of the dashboard owned by them, with them as its only recipient', async () => {
    const token = acme('sam@acme.example', { securityContext: { region: 'EU' }, groups: ['sales'] });
    const created = await subscribe(token);
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/v1/embed/notifications/${created.body.id}`);
    expect(created.body).toMatchObject({
      deploymentId: 7,
      dashboardId: 1,
      cronExpression: '0 8 * * *',
      owner: { type: 'EMBED_USER', embedTenantName: 'acme', externalId: 'sam@acme.example' },
    });
    const admin = await api.request('GET', `/v1/deployments/7/notifications/${created.body.id}`, {
      token: ADMIN_KEY,
    });
    expect(admin.body.owner).toEqual(created.body.owner);
    const recipients = await api.request(
      'GET',
      `/v1/deployments/7/notifications/${created.body.id}/recipients`,
      {
        token: ADMIN_KEY,
      },
    );
    expect(recipients.body.items).toEqual([
      {
        type: 'EMBED_USER',
        embedTenantName: 'acme',
        externalId: 'sam@acme.example',
        embedUserId: created.body.owner.embedUserId,
        email: 'sam@acme.example',
      },
    ]);
    const mine = await api.request('GET', '/v1/embed/notifications', { token });
    expect(mine.body.items.map((n: { id: number }) => n.id)).toEqual([created.body.id]);
    expect((await api.request('GET', `/v1/embed/notifications/${created.body.id}`, { token })).body).toEqual(
      mine.body.items[0],
    );
    // The trail names the embed user as the actor of their own create.
    const events = await api.request('GET', `/v1/deployments/7/notifications/${created.body.id}/events`, {
      token: ADMIN_KEY,
    });
    expect(events.body.items).toMatchObject([
      {
        action: 'created',
        actor: { type: 'EMBED_USER', embedTenantName: 'acme', externalId: 'sam@acme.example' },
      },
    ]);
  });

  it("lists the caller's own a page at a time, newest first, and refuses a cursor it did not issue", async () => {
    const token = acme('pages@acme.example');
    const ids: number[] = [];
    for (const hour of [5, 6, 7]) ids.push((await subscribe(token, { hour })).body.id);
    const seen: number[] = [];
    let after: string | undefined;
    for (let page = 0; page < 3; page++) {
      const query = `first=2${after ? `&after=${encodeURIComponent(after)}` : ''}`;
      const answer = await api.request('GET', `/v1/embed/notifications?${query}`, { token });
      seen.push(...answer.body.items.map((n: { id: number }) => n.id));
      after = answer.body.pageInfo.endCursor;
      if (!answer.body.pageInfo.hasNextPage) break;
    }
    expect(seen).toEqual(ids.reverse());
    const foreign = await api.request('GET', '/v1/embed/notifications?after=bm9wZQ', { token });
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors[0].path).toBe('after');
  });

  it('refuses any credential but an embed token with 403', async () => {
    const answer = await api.request('GET', '/v1/embed/notifications', { token: ADMIN_KEY });
    expect(answer.status).toBe(403);
  });

  it('holds the dashboard to the embed read: 404 when not shared with the tenant, 403 with embedding off', async () => {
    expect((await subscribe(acme('dana@acme.example'), { dashboardPublicId: 'unshared-on' })).status).toBe(
      404,
    );
    expect((await subscribe(acme('dana@acme.example'), { dashboardPublicId: 'tenant-off' })).status).toBe(
      403,
    );
  });

  it('refuses a token without an e-mail, and takes its email claim when sub is not one (EC keys)', async () => {
    const without = await subscribe(globexJwt(), { dashboardPublicId: 'globex-on' });
    expect(without.status).toBe(400);
    expect(without.body.errors[0].path).toBe('token.email');
    // Reading needs no e-mail: there is nothing to send.
    expect((await api.request('GET', '/v1/embed/notifications', { token: globexJwt() })).body.items).toEqual(
      [],
    );
    const badGroups = await subscribe(acme('bad@acme.example', { groups: 'sales' }));
    expect(badGroups.status).toBe(400);
    expect(badGroups.body.errors[0].path).toBe('token.groups');
    const withEmail = await subscribe(globexJwt({ email: 'gina@globex.example' }), {
      dashboardPublicId: 'globex-on',
    });
    expect(withEmail.status).toBe(201);
    expect(withEmail.body.owner).toMatchObject({ embedTenantName: 'globex', externalId: 'gina' });
  });

  it("refuses a schedule firing more often than the tenant's minimum, across clock changes too", async () => {
    const token = globexJwt({ sub: 'gus', email: 'gus@globex.example' });
    const on = { dashboardPublicId: 'globex-on' };
    const hourly = await subscribe(token, { ...on, scheduleType: 'HOURLY', minute: 0 });
    expect(hourly.status).toBe(400);
    expect(hourly.body.errors[0].path).toBe('scheduleType');
    // 01:00 and 03:00 are two hours apart, but one hour on the night Berlin moves its clock forward.
    const twice = { ...on, scheduleType: 'CUSTOM', customCron: '0 1,3 * * *' };
    const berlin = await subscribe(token, { ...twice, timezone: 'Europe/Berlin' });
    expect(berlin.status).toBe(400);
    expect(berlin.body.errors[0].path).toBe('customCron');
    expect((await subscribe(token, { ...twice, timezone: 'UTC' })).status).toBe(201);
  });

  it('keeps the per-user count: 20 concurrent creates with maxPerUser 5 make exactly 5', async () => {
    const token = acme('rush@acme.example');
    const answers = await Promise.all(Array.from({ length: 20 }, () => subscribe(token)));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(5);
    expect(statuses.filter((status) => status === 409)).toHaveLength(15);
    const mine = await api.request('GET', '/v1/embed/notifications', { token });
    expect(mine.body.items).toHaveLength(5);
    // A delete gives a place back, an admin's as well as the user's own.
    const [first, second] = mine.body.items as { id: number }[];
    expect((await api.request('DELETE', `/v1/embed/notifications/${first?.id}`, { token })).status).toBe(204);
    expect((await subscribe(token)).status).toBe(201);
    expect(
      (await api.request('DELETE', `/v1/deployments/7/notifications/${second?.id}`, { token: ADMIN_KEY }))
        .status,
    ).toBe(204);
    expect((await subscribe(token)).status).toBe(201);
    expect((await subscribe(token)).status).toBe(409);
  });

  it('creates once per Idempotency-Key: a repeat answers the first subscription and counts nothing', async () => {
    const token = acme('keyed@acme.example');
    const headers = { 'idempotency-key': 'subscribe-1' };
    const send = (body: Record<string, unknown> = {}) =>
      api.request('POST', '/v1/embed/notifications', {
        token,
        headers,
        body: { dashboardPublicId: 'tenant-on', ...daily, ...body },
      });
    const first = await send();
    const repeat = await send();
    expect([first.status, repeat.status], repeat.text).toEqual([201, 201]);
    expect(repeat.body.id).toBe(first.body.id);
    expect((await send({ hour: 9 })).status).toBe(422);
    const mine = await api.request('GET', '/v1/embed/notifications', { token });
    expect(mine.body.items.map((n: { id: number }) => n.id)).toEqual([first.body.id]);
  });

  it("answers 404 for another user's subscription and for an admin's notification", async () => {
    const theirs = await subscribe(acme('owner@acme.example'));
    const other = acme('other@acme.example');
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const answer = await api.request(method, `/v1/embed/notifications/${theirs.body.id}`, {
        token: other,
        ...(method === 'PUT' && { body: { hour: 9 } }),
      });
      expect({ method, status: answer.status }).toEqual({ method, status: 404 });
    }
    const admins = await api.request('POST', '/v1/deployments/7/notifications', {
      token: ADMIN_KEY,
      body: { dashboardId: 1, ...daily },
    });
    expect(
      (await api.request('GET', `/v1/embed/notifications/${admins.body.id}`, { token: other })).status,
    ).toBe(404);
  });

  it('deletes in one transaction that names the owner it read and gives back their count', async () => {
    const token = acme('deleter@acme.example');
    const made = await subscribe(token);
    expect(made.status, made.text).toBe(201);
    const meter = meterDynamoDb(documentClient());
    try {
      const deleted = await api.request('DELETE', `/v1/embed/notifications/${made.body.id}`, { token });
      expect(deleted.status).toBe(204);
      expect(meter.byOperation.TransactWriteItems?.requests).toBe(1);
    } finally {
      meter.detach();
    }
    // The count was given back: the user may subscribe again up to their limit.
    const listed = await api.request('GET', '/v1/embed/notifications', { token });
    expect(listed.body.items).toEqual([]);
    expect((await subscribe(token)).status).toBe(201);
  });

  it('refreshes the recipient from the token on update: the next job carries the new security context', async () => {
    const before = acme('vera@acme.example', { securityContext: { region: 'EU' } });
    const created = await subscribe(before);
    const after = acme('vera@acme.example', { securityContext: { region: 'US' }, groups: ['ops'] });
    const updated = await api.request('PUT', `/v1/embed/notifications/${created.body.id}`, {
      token: after,
      body: { hour: 10 },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.cronExpression).toBe('0 10 * * *');
    const run = await sendNow(created.body.id);
    expect(run.status).toBe(202);
    const [job] = await jobsOf(run.body.runId);
    expect(job?.recipient).toMatchObject({ securityContext: { region: 'US' }, groups: ['ops'] });
  });

  it('keeps delivering after the dashboard stops allowing embedding, and one-click unsubscribe works', async () => {
    const created = await subscribe(acme('uma@acme.example'));
    await api.request('PATCH', '/v1/embed/dashboard/tenant-on', {
      token: ADMIN_KEY,
      body: { allowEmbed: false },
    });
    try {
      const run = await sendNow(created.body.id);
      expect(run.body).toMatchObject({ skipReason: null, recipients: { queued: 1 } });
      const [job] = await jobsOf(run.body.runId);
      const url = new URL(job?.unsubscribeUrl ?? '');
      const unsubscribed = await api.request('POST', `${url.pathname}${url.search}`);
      expect(unsubscribed.status).toBe(200);
      const recipients = await api.request(
        'GET',
        `/v1/deployments/7/notifications/${created.body.id}/recipients`,
        {
          token: ADMIN_KEY,
        },
      );
      expect(recipients.body.items).toEqual([]);
    } finally {
      await api.request('PATCH', '/v1/embed/dashboard/tenant-on', {
        token: ADMIN_KEY,
        body: { allowEmbed: true },
      });
    }
  });

  it('lets a user list, get and delete but not create or change once the tenant turns it off', async () => {
    const token = acme('late@acme.example');
    const created = await subscribe(token);
    await api.request('PATCH', '/v1/embed/tenants/acme', {
      token: ADMIN_KEY,
      body: { selfService: { enabled: false } },
    });
    try {
      expect((await subscribe(token)).status).toBe(403);
      const path = `/v1/embed/notifications/${created.body.id}`;
      expect((await api.request('PUT', path, { token, body: { hour: 9 } })).status).toBe(403);
      expect((await api.request('GET', path, { token })).status).toBe(200);
      expect((await api.request('DELETE', path, { token })).status).toBe(204);
    } finally {
      await enable('acme');
    }
  });
});
