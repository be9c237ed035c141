import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meterDynamoDb } from '#lib/local/dynamodb-meter';
import { documentClient } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem } from '#lib/store/dynamo/items';
import {
  acmeClaims,
  acmeJwt,
  consoleJwt,
  embedFixture,
  globexJwt,
  platformJwt,
} from '#test/support/embed-fixture';
import { ADMIN_KEY, DEACTIVATED_ADMIN_KEY, MEMBER_KEY } from '#test/support/fixtures';
import { type LocalApi, type RequestOptions, startLocalApi } from '#test/support/local-api';
import { generateSigningKey, signJwt } from '#test/support/tokens';

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi(embedFixture);
});
afterAll(() => api.close());

const path = (publicId: string) => `/v1/embed/dashboard/${publicId}`;
const patch = (publicId: string, body: unknown, options: RequestOptions = {}) =>
  api.request('PATCH', path(publicId), { token: ADMIN_KEY, body, ...options });
const getAs = (publicId: string, token: string) => api.request('GET', path(publicId), { token });

describe('PATCH /v1/embed/dashboard/{publicId}', () => {
  it('answers 200 with the stored flag and stores it', async () => {
    const response = await patch('tenant-off', { allowEmbed: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.body).toEqual({ publicId: 'tenant-off', allowEmbed: true });
    expect((await getItem(keys.dashboard('tenant-off')))?.allowEmbed).toBe(true);

    // Setting the value it already has is no error.
    expect((await patch('tenant-off', { allowEmbed: true })).body).toEqual({
      publicId: 'tenant-off',
      allowEmbed: true,
    });
    expect((await patch('tenant-off', { allowEmbed: false })).body).toEqual({
      publicId: 'tenant-off',
      allowEmbed: false,
    });
  });

  it('changes only the flag: title, sharing and publication stay as they were', async () => {
    const before = await getItem(keys.dashboard('globex-on'));
    await patch('globex-on', { allowEmbed: false });
    const after = await getItem(keys.dashboard('globex-on'));
    expect(after).toEqual({ ...before, allowEmbed: false });
    await patch('globex-on', { allowEmbed: true });
  });

  it('answers 404 for an unknown publicId and creates nothing', async () => {
    const response = await patch('no-such-dashboard', { allowEmbed: true });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('no-such-dashboard'),
    });
    expect(await getItem(keys.dashboard('no-such-dashboard'))).toBeUndefined();
  });

  it('makes exactly one DynamoDB write and no read of the dashboard', async () => {
    const meter = meterDynamoDb(documentClient());
    try {
      expect((await patch('all-on', { allowEmbed: true })).status).toBe(200);
      // PRINCIPAL_CACHE_SECONDS=0 in tests: the two GetItems are the API key's link and user.
      expect(meter.byOperation).toEqual({
        UpdateItem: expect.objectContaining({ requests: 1 }),
        GetItem: expect.objectContaining({ requests: 2 }),
      });
      meter.reset();
      expect((await patch('no-such-dashboard', { allowEmbed: true })).status).toBe(404);
      expect(meter.writeRequests()).toBe(1);
      expect(meter.totalRequests()).toBe(3);
    } finally {
      meter.detach();
    }
  });
});

describe('PATCH /v1/embed/dashboard/{publicId}: the switch as embed tokens see it', () => {
  it('turned on, lets the tenant fetch the dashboard on the next GET; turned off, gives it 403 again', async () => {
    expect((await getAs('tenant-off', acmeJwt())).status).toBe(403);
    await patch('tenant-off', { allowEmbed: true });
    const on = await getAs('tenant-off', acmeJwt());
    expect(on.status).toBe(200);
    expect(on.body).toEqual({
      id: 2,
      publicId: 'tenant-off',
      dashboardId: 2,
      deploymentId: 7,
      title: 'Dashboard tenant-off',
      allowEmbed: true,
    });
    await patch('tenant-off', { allowEmbed: false });
    expect((await getAs('tenant-off', acmeJwt())).status).toBe(403);
  });

  it('turned off, leaves trusted platform sessions and admins able to fetch the dashboard', async () => {
    await patch('tenant-on', { allowEmbed: false });
    for (const token of [
      platformJwt('screenshot'),
      platformJwt('creator'),
      ADMIN_KEY,
      consoleJwt('sub-ada'),
    ]) {
      expect((await getAs('tenant-on', token)).status).toBe(200);
    }
    expect((await getAs('tenant-on', acmeJwt())).status).toBe(403);
    await patch('tenant-on', { allowEmbed: true });
    expect((await getAs('tenant-on', acmeJwt())).status).toBe(200);
  });

  it('turned off, does not affect a dashboard shared with all embed users', async () => {
    await patch('all-on', { allowEmbed: false });
    expect((await getAs('all-on', acmeJwt())).status).toBe(200);
    expect((await getAs('all-on', globexJwt())).status).toBe(200);
    await patch('all-on', { allowEmbed: true });
  });

  it('alone does not make a dashboard embeddable: it must be published and shared with the tenant', async () => {
    for (const publicId of ['unshared-on', 'unpublished-on', 'globex-on', 'unpublished-off']) {
      expect((await patch(publicId, { allowEmbed: true })).status).toBe(200);
      expect({ publicId, status: (await getAs(publicId, acmeJwt())).status }).toEqual({
        publicId,
        status: 404,
      });
    }
  });
});

describe('PATCH /v1/embed/dashboard/{publicId}: request validation', () => {
  const problemsOf = (body: { errors?: { path: string; message: string }[] }) => body.errors ?? [];

  it('requires allowEmbed', async () => {
    const response = await patch('tenant-on', {});
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      code: 'validation_failed',
      message: 'allowEmbed: is required',
      errors: [{ path: 'allowEmbed', message: 'is required' }],
    });
  });

  it('requires allowEmbed to be a boolean, not a string, number or null', async () => {
    for (const allowEmbed of ['true', 'false', 1, 0, null, [], {}]) {
      const response = await patch('tenant-on', { allowEmbed });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('validation_failed');
      expect(problemsOf(response.body)).toEqual([{ path: 'allowEmbed', message: 'must be true or false' }]);
    }
  });

  it('refuses unknown fields, naming each', async () => {
    const response = await patch('tenant-on', {
      allowEmbed: true,
      published: true,
      sharedWithAllEmbedUsers: true,
    });
    expect(response.status).toBe(400);
    expect(
      problemsOf(response.body)
        .map((p) => p.path)
        .sort(),
    ).toEqual(['published', 'sharedWithAllEmbedUsers']);
    expect((await getItem(keys.dashboard('tenant-on')))?.published).toBe(true);
    expect((await getItem(keys.dashboard('tenant-on')))?.sharedWithAllEmbedUsers).toBe(false);
  });

  it('refuses a body that is not an object', async () => {
    for (const body of ['true', '[{"allowEmbed":true}]', 'null', '"allowEmbed"']) {
      const response = await patch('tenant-on', body);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
      expect(response.body.code).toBe('validation_failed');
    }
  });

  it('answers 400 malformed_json to a body that does not parse, or is missing', async () => {
    for (const body of ['{"allowEmbed": tru', '{allowEmbed: true}']) {
      const response = await patch('tenant-on', body);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('malformed_json');
    }
    const missing = await api.request('PATCH', path('tenant-on'), { token: ADMIN_KEY });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('malformed_json');
  });

  it('answers 415 to a body sent as anything but JSON', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
      const response = await patch('tenant-on', '{"allowEmbed":true}', {
        headers: { 'content-type': contentType },
      });
      expect(response.status).toBe(415);
      expect(response.body.code).toBe('unsupported_media_type');
    }
  });

  it('refuses a malformed publicId with 400 naming it, with the body problems too', async () => {
    const response = await patch('x'.repeat(129), { allowEmbed: 'yes' });
    expect(response.status).toBe(400);
    expect(problemsOf(response.body).map((p) => p.path)).toEqual(['publicId', 'allowEmbed']);
  });
});

describe('PATCH /v1/embed/dashboard/{publicId}: who may call it', () => {
  const forbidden: Record<string, () => string> = {
    'a member API key': () => MEMBER_KEY,
    'a deactivated admin API key': () => DEACTIVATED_ADMIN_KEY,
    'a member console JWT': () => consoleJwt('sub-bob'),
    'a deactivated admin console JWT': () => consoleJwt('sub-carol'),
    'a screenshot platform session': () => platformJwt('screenshot'),
    'a creator platform session': () => platformJwt('creator'),
    'an embed token': () => acmeJwt(),
  };

  for (const [caller, token] of Object.entries(forbidden)) {
    it(`answers 403 to ${caller}, before validating or looking anything up`, async () => {
      for (const [publicId, body] of [
        ['tenant-on', { allowEmbed: false }],
        ['no-such-dashboard', { allowEmbed: false }],
        ['tenant-on', { nonsense: 1 }],
      ] as const) {
        const response = await patch(publicId, body, { token: token() });
        expect({ publicId, body, status: response.status }).toEqual({ publicId, body, status: 403 });
        expect(response.body.code).toBe('forbidden');
      }
      expect((await getItem(keys.dashboard('tenant-on')))?.allowEmbed).toBe(true);
    });
  }

  const unauthorized: Record<string, RequestOptions> = {
    'no credential': {},
    'an unknown API key': { token: 'sk-nobody' },
    'a malformed Authorization header': { authorization: 'Basic YWRhOnNlY3JldA==' },
    'a token claiming acme signed with a stranger key': {
      token: signJwt(acmeClaims(), generateSigningKey('acme-1')),
    },
  };

  for (const [what, options] of Object.entries(unauthorized)) {
    it(`answers 401 with WWW-Authenticate to ${what}`, async () => {
      const response = await api.request('PATCH', path('tenant-on'), {
        body: { allowEmbed: false },
        ...options,
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(response.body.code).toBe('unauthorized');
    });
  }
});
