import { readdir, readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '#lib/config';
import { docsPage } from '#lib/local/docs-page';
import { functionsFrom } from '#lib/local/handlers';
import { createLocalApi } from '#lib/local/http-adapter';
import { ADMIN_KEY, consoleUsers } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { freshClaims, generateSigningKey, signJwt } from '#test/support/tokens';
import document from '../../lib/openapi/openapi.json' with { type: 'json' };

/**
 * Answers that were once untrue: headers every answer must carry, what the local server does with
 * requests API Gateway treats specially, where the description says its server is, an identity
 * provider's keys that cannot be fetched, the platform's fields and its `null`s.
 */

const BASE = '/v1/deployments/7/notifications';
const INITECH_ISSUER = 'https://auth.initech.example';
/** Nothing listens on port 9, and the keys are asked for over plain HTTP, which the verifier refuses outright. */
const INITECH_JWKS = 'http://127.0.0.1:9/.well-known/jwks.json';
const initechKey = generateSigningKey('initech-1');

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
        allowEmbed: true,
        sharedWithAllEmbedUsers: true,
      },
    ],
    embedTenants: [{ name: 'initech', issuer: INITECH_ISSUER, jwksUri: INITECH_JWKS }],
    notifications: [
      {
        id: 700,
        deploymentId: 7,
        dashboardId: 70,
        scheduleType: 'DAILY',
        hour: 9,
        recipients: [{ userId: 1 }],
      },
    ],
  });
});
afterAll(() => api.close());

const admin = (method: string, path: string, body?: unknown) =>
  api.request(method, path, { token: ADMIN_KEY, body });

/** Raw bytes on a socket, for what fetch cannot send (a header twice). */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
    });
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
  });
}

describe('every answer carries no-store and nosniff; HTML pages a Content-Security-Policy', () => {
  it('on successes, errors of the handlers and errors of the gateway alike', async () => {
    const answers = [
      await admin('GET', `${BASE}/700`),
      await admin('POST', BASE, { dashboardId: 70, scheduleType: 'HOURLY' }),
      await admin('GET', `${BASE}/799`),
      await api.request('GET', `${BASE}/700`),
      await api.request('GET', '/v1/no-such-route'),
      await api.request('GET', '/v1/spec'),
    ];
    const created = answers[1]?.body.id as number;
    answers.push(await admin('DELETE', `${BASE}/${created}`));
    expect(answers.map((answer) => answer.status)).toEqual([200, 201, 404, 401, 404, 200, 204]);
    for (const answer of answers) {
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('on the local reference page, which also names where it may load from', async () => {
    const server = createLocalApi({
      resolveHandler: functionsFrom(new URL('../../functions/', import.meta.url)),
      pages: docsPage,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const page = await fetch(`${origin}/docs`);
      expect(page.status).toBe(200);
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      const policy = page.headers.get('content-security-policy') ?? '';
      expect(policy).toContain("default-src 'none'");
      expect(policy).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
      expect(policy).toContain("connect-src 'self'");
      await page.text();
    } finally {
      server.close();
    }
  });
});

describe('the local server answers as API Gateway does', () => {
  it('joins two Authorization headers with a comma, which no credential matches: 401', async () => {
    const port = Number(new URL(api.baseUrl).port);
    const raw = await rawExchange(
      port,
      `GET ${BASE}/700 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nConnection: close\r\n\r\n`,
    );
    expect(raw.split(' ')[1]).toBe('401');
    expect(raw.toLowerCase()).toContain('www-authenticate: bearer');
  });

  it('answers a path id with malformed percent-encoding 400 naming it, not 404', async () => {
    const response = await admin('GET', `${BASE}/%E0%A4%A`);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'validation_failed', errors: [{ path: 'id' }] });
    const embedded = await admin('GET', '/v1/embed/dashboard/%ZZ');
    expect(embedded.status).toBe(400);
    expect(embedded.body.errors[0].path).toBe('publicId');
  });

  it('answers HEAD 404 Not Found: an HTTP API serves only the methods its routes declare', async () => {
    for (const path of [`${BASE}/700`, '/v1/spec']) {
      const response = await api.request('HEAD', path, { token: ADMIN_KEY });
      expect(response.status).toBe(404);
    }
  });
});

describe('GET /v1/spec names the server it was fetched from', () => {
  it('the local host and port it was asked at, so that /docs under any PORT sends requests there', async () => {
    const spec = await api.request('GET', '/v1/spec');
    expect(spec.body.servers).toEqual([{ url: api.baseUrl, description: expect.any(String) }]);
  });

  it('the host and scheme a proxy in front names', async () => {
    const spec = await api.request('GET', '/v1/spec', {
      headers: { 'x-forwarded-host': 'api.example.com', 'x-forwarded-proto': 'https' },
    });
    expect(spec.body.servers[0].url).toBe('https://api.example.com');
  });

  it('a relative "/" when the host given is no host name', async () => {
    const spec = await api.request('GET', '/v1/spec', {
      headers: { 'x-forwarded-host': 'evil.example/path?x=' },
    });
    expect(spec.body.servers[0].url).toBe('/');
  });
});

describe('an embed token whose tenant keys cannot be fetched', () => {
  it('is 503 with Retry-After (an outage of the issuer, not a fault of the token), never a 500', async () => {
    const token = signJwt(
      freshClaims({ iss: INITECH_ISSUER, aud: 'embed', sub: 'milton', tenant: 'initech' }),
      initechKey,
    );
    const response = await api.request('GET', '/v1/embed/dashboard/sales', { token });
    expect(response.status).toBe(503);
    expect(response.body.code).toBe('unavailable');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('request bodies: the description and the behaviour agree', () => {
  type Operation = { requestBody?: { required: boolean } };
  const paths = document.paths as unknown as Record<string, Record<string, Operation>>;

  it('PUT takes an absent body as {} (optional, as described); create refuses one (required, as described)', async () => {
    expect(paths['/v1/deployments/{deploymentId}/notifications/{id}']?.put?.requestBody?.required).toBe(
      false,
    );
    expect((await admin('PUT', `${BASE}/700`)).status).toBe(200);
    expect(paths['/v1/deployments/{deploymentId}/notifications']?.post?.requestBody?.required).toBe(true);
    const create = await admin('POST', BASE);
    expect(create.status).toBe(400);
    expect(create.body.code).toBe('malformed_json');
  });
});

describe("the platform's fields", () => {
  const switchers = [{ member: 'Orders.status', selected: 'city' }];

  it('notificationAiSummary and memberSwitchers are stored, returned by every route and carried in jobs', async () => {
    const created = await admin('POST', BASE, {
      dashboardId: 70,
      scheduleType: 'HOURLY',
      notificationAiSummary: true,
      memberSwitchers: switchers,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ notificationAiSummary: true, memberSwitchers: switchers });
    const id = created.body.id as number;
    expect((await admin('GET', `${BASE}/${id}`)).body).toMatchObject({
      notificationAiSummary: true,
      memberSwitchers: switchers,
    });
    const listed = await admin('GET', BASE);
    expect(listed.body.items.find((item: { id: number }) => item.id === id)).toMatchObject({
      notificationAiSummary: true,
      memberSwitchers: switchers,
    });

    expect((await admin('POST', `${BASE}/${id}/recipients`, { recipients: [{ userId: 1 }] })).status).toBe(
      200,
    );
    const run = await admin('POST', `${BASE}/${id}/send`);
    expect(run.status).toBe(202);
    const dir = config().outboxDir;
    const jobs = await Promise.all(
      (await readdir(dir)).map(async (file) => JSON.parse(await readFile(join(dir, file), 'utf8'))),
    );
    const job = jobs.find((candidate) => candidate.runId === run.body.runId);
    expect(job).toMatchObject({ notificationAiSummary: true, memberSwitchers: switchers });
  });

  it('default to false and null; null clears the switchers and leaves the summary switch as it is', async () => {
    const plain = await admin('GET', `${BASE}/700`);
    expect(plain.body).toMatchObject({ notificationAiSummary: false, memberSwitchers: null });
    const set = await admin('PUT', `${BASE}/700`, {
      notificationAiSummary: true,
      memberSwitchers: switchers,
    });
    expect(set.body).toMatchObject({ notificationAiSummary: true, memberSwitchers: switchers });
    const cleared = await admin('PUT', `${BASE}/700`, { notificationAiSummary: null, memberSwitchers: null });
    expect(cleared.body).toMatchObject({ notificationAiSummary: true, memberSwitchers: null });
  });

  it('a member switcher whose member is no member path is a 400 naming it', async () => {
    const response = await admin('PUT', `${BASE}/700`, {
      memberSwitchers: [{ member: 'status', selected: 'x' }],
    });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((problem: { path: string }) => problem.path)).toEqual([
      'memberSwitchers.0.member',
    ]);
  });

  it('null for an optional field of any body means omitted: create, add and remove recipients', async () => {
    const created = await admin('POST', BASE, {
      dashboardId: 70,
      dashboardPublicId: null,
      scheduleType: 'DAILY',
      hour: 7,
      minute: null,
      timezone: null,
      filters: null,
      notificationFormat: null,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ cronExpression: '0 7 * * *', timezone: 'UTC', filters: null });
    const byPublicId = await admin('POST', BASE, {
      dashboardId: null,
      dashboardPublicId: 'sales',
      scheduleType: 'HOURLY',
    });
    expect(byPublicId.status).toBe(201);

    const recipients = `${BASE}/${created.body.id}/recipients`;
    const added = await admin('POST', recipients, {
      recipients: [
        {
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
        },
      ],
    });
    expect(added.status).toBe(200);
    expect(added.body.createdRecipients).toEqual([
      { type: 'USER', userId: 1, email: 'ada@example.com', username: 'ada' },
    ]);
    // The platform lets a client send a recipient id as its digits in a string.
    const removed = await admin('DELETE', recipients, {
      recipients: [{ type: 'USER', id: '1', embedTenantName: null }],
    });
    expect(removed.status).toBe(204);
    expect((await admin('GET', recipients)).body.items).toEqual([]);
  });

  it('null for an optional enum means omitted too: a recipient without a type, a test send without one', async () => {
    const recipients = `${BASE}/700/recipients`;
    const added = await admin('POST', recipients, { recipients: [{ type: null, email: 'BOB@example.com' }] });
    expect(added.status, added.text).toBe(200);
    expect(added.body.createdRecipients).toEqual([
      { type: 'USER', userId: 2, email: 'bob@example.com', username: 'bob' },
    ]);
    const testSend = await admin('POST', `${BASE}/700/send`, {
      recipients: [{ type: null, userId: 1, email: null }],
    });
    expect(testSend.status, testSend.text).toBe(202);
  });
});
