import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer } from '#test/support/dns-server';
import { ADMIN_KEY, consoleUsers, MEMBER_KEY } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';

/**
 * Webhook endpoints through the local API over the real engine, as deployed: `https://` to public
 * addresses only, at most ten per deployment, secrets shown at create and rotation alone.
 */

process.env.WEBHOOK_ALLOW_LOOPBACK = 'false';

const base = '/v1/deployments/7/webhooks';
const PUBLIC_URL = 'https://93.184.215.14/hooks/notifications';
let api: LocalApi;
let dns: Awaited<ReturnType<typeof startDnsServer>>;

beforeAll(async () => {
  // The customer's name server: it answers every name with 127.0.0.1.
  dns = await startDnsServer('127.0.0.1');
  process.env.WEBHOOK_DNS_SERVERS = dns.server;
  api = await startLocalApi({
    users: consoleUsers,
    deployments: [
      { id: 7, name: 'Production' },
      { id: 8, name: 'Staging' },
    ],
  });
});
afterAll(async () => {
  await api.close();
  await dns.close();
});

const create = (body: unknown, deployment = base) =>
  api.request('POST', deployment, { token: ADMIN_KEY, body });

describe('creating a webhook endpoint', () => {
  it('answers 201 with a one-time whsec_ secret of 32 random bytes, never shown again', async () => {
    const created = await create({ url: PUBLIC_URL, events: ['run.completed'], description: 'ops' });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      url: PUBLIC_URL,
      events: ['run.completed'],
      description: 'ops',
      status: 'enabled',
    });
    expect(created.body.id).toMatch(/^wh_[0-9a-f]{24}$/);
    expect(created.headers.get('location')).toBe(`${base}/${created.body.id}`);
    const secret: string = created.body.secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);

    const read = await api.request('GET', `${base}/${created.body.id}`, { token: ADMIN_KEY });
    const listed = await api.request('GET', base, { token: ADMIN_KEY });
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(read.text).not.toContain(secret.slice('whsec_'.length));
    expect(listed.text).not.toContain(secret.slice('whsec_'.length));
    expect(listed.body.items.map((item: { id: string }) => item.id)).toContain(created.body.id);
  });

  it.each([
    ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data/'],
    ['the metadata address written as one number', 'https://2852039166/'],
    ['a loopback address', 'https://127.0.0.1/hook'],
    ['an IPv6 loopback address', 'https://[::1]/hook'],
    ['a private address', 'https://10.1.2.3/hook'],
    ['a DNS name resolving to 127.0.0.1', 'https://hooks.customer.example/hook'],
    ['plain http', 'http://93.184.215.14/hook'],
    ['http to the loopback (allowed locally only)', 'http://127.0.0.1:8080/hook'],
  ])('refuses %s with a 400 naming url, and stores nothing', async (_what, url) => {
    const refused = await create({ url, events: ['*'] }, '/v1/deployments/8/webhooks');
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.errors).toEqual([{ path: 'url', message: expect.any(String) }]);
    const listed = await api.request('GET', '/v1/deployments/8/webhooks', { token: ADMIN_KEY });
    expect(listed.body.items).toEqual([]);
  });

  it('refuses a URL over 2,048 characters, an empty event list and unknown event types', async () => {
    const long = await create({ url: `https://93.184.215.14/${'a'.repeat(2048)}`, events: ['*'] });
    expect(long.status).toBe(400);
    expect(long.body.errors[0].path).toBe('url');
    const none = await create({ url: PUBLIC_URL, events: [] });
    expect(none.body.errors[0].path).toBe('events');
    const unknown = await create({ url: PUBLIC_URL, events: ['run.exploded'] });
    expect(unknown.body.errors[0].path).toBe('events.0');
  });

  it('allows ten per deployment and answers 409 past them', async () => {
    const deployment = '/v1/deployments/9/webhooks';
    for (let n = 0; n < 10; n++)
      expect((await create({ url: PUBLIC_URL, events: ['*'] }, deployment)).status).toBe(201);
    const eleventh = await create({ url: PUBLIC_URL, events: ['*'] }, deployment);
    expect(eleventh.status).toBe(409);
    expect(eleventh.body.code).toBe('conflict');
    const listed = await api.request('GET', deployment, { token: ADMIN_KEY });
    expect(listed.body.items).toHaveLength(10);
  });

  it('is for admins only', async () => {
    const refused = await api.request('POST', base, {
      token: MEMBER_KEY,
      body: { url: PUBLIC_URL, events: ['*'] },
    });
    expect(refused.status).toBe(403);
  });
});

describe('changing, rotating and deleting', () => {
  it('changes only the fields given, refuses a private URL, and disables', async () => {
    const { body: created } = await create({ url: PUBLIC_URL, events: ['run.completed'] });
    const path = `${base}/${created.id}`;
    const changed = await api.request('PATCH', path, {
      token: ADMIN_KEY,
      body: { events: ['delivery.failed', 'run.skipped'], status: 'disabled' },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({
      url: PUBLIC_URL,
      events: ['delivery.failed', 'run.skipped'],
      status: 'disabled',
    });
    const refused = await api.request('PATCH', path, {
      token: ADMIN_KEY,
      body: { url: 'https://192.168.0.1/' },
    });
    expect(refused.status).toBe(400);
    expect((await api.request('GET', path, { token: ADMIN_KEY })).body.url).toBe(PUBLIC_URL);
  });

  it('rotates to a new secret, shown once', async () => {
    const { body: created } = await create({ url: PUBLIC_URL, events: ['*'] });
    const rotated = await api.request('POST', `${base}/${created.id}/rotate-secret`, { token: ADMIN_KEY });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.secret);
  });

  it('deletes (204), then answers 404 for it everywhere', async () => {
    const { body: created } = await create({ url: PUBLIC_URL, events: ['*'] });
    const path = `${base}/${created.id}`;
    expect((await api.request('DELETE', path, { token: ADMIN_KEY })).status).toBe(204);
    expect((await api.request('DELETE', path, { token: ADMIN_KEY })).status).toBe(404);
    expect((await api.request('GET', path, { token: ADMIN_KEY })).status).toBe(404);
    expect((await api.request('GET', `${path}/messages`, { token: ADMIN_KEY })).status).toBe(404);
    expect((await api.request('POST', `${path}/rotate-secret`, { token: ADMIN_KEY })).status).toBe(404);
  });

  it('answers 404 for an id of a form it never issues, without touching the item', async () => {
    for (const id of ['pk', 'endpointCount', 'wh_nothex']) {
      expect((await api.request('DELETE', `${base}/${id}`, { token: ADMIN_KEY })).status).toBe(404);
      expect((await api.request('GET', `${base}/${id}`, { token: ADMIN_KEY })).status).toBe(404);
    }
  });
});
