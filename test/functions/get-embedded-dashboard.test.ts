import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meterDynamoDb } from '#lib/local/dynamodb-meter';
import { documentClient } from '#lib/store/dynamo/client';
import {
  ACME_ISSUER,
  acmeClaims,
  acmeJwt,
  acmeKey,
  consoleJwt,
  embedDashboards,
  embedFixture,
  globexJwt,
  globexKey,
  initechJwt,
  platformJwt,
} from '#test/support/embed-fixture';
import { ADMIN_KEY, DEACTIVATED_ADMIN_KEY, MEMBER_KEY } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { hs256Jwt, nowSeconds, signJwt, tamperedJwt, unsignedJwt } from '#test/support/tokens';

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi(embedFixture);
});
afterAll(() => api.close());

const get = (publicId: string, token?: string) =>
  api.request('GET', `/v1/embed/dashboard/${publicId}`, token === undefined ? {} : { token });

const bodyOf = (publicId: string) => {
  const dashboard = embedDashboards.find((d) => d.publicId === publicId);
  if (!dashboard) throw new Error(publicId);
  // `id` is the platform's name for the dashboard id; `allowEmbed` is the stored flag.
  return {
    id: dashboard.id,
    publicId,
    dashboardId: dashboard.id,
    deploymentId: 7,
    title: dashboard.title,
    allowEmbed: dashboard.allowEmbed,
  };
};

const allDashboards = embedDashboards.map((d) => d.publicId);

describe('GET /v1/embed/dashboard/{publicId}: trusted callers', () => {
  const trusted = {
    'an admin API key': () => ADMIN_KEY,
    'an admin console JWT': () => consoleJwt('sub-ada'),
    'a screenshot platform session': () => platformJwt('screenshot'),
    'a creator platform session': () => platformJwt('creator'),
  };

  for (const [caller, token] of Object.entries(trusted)) {
    it(`gives ${caller} every dashboard whatever its flag, publication and sharing`, async () => {
      for (const publicId of allDashboards) {
        const response = await get(publicId, token());
        expect({ publicId, status: response.status }).toEqual({ publicId, status: 200 });
        expect(response.body).toEqual(bodyOf(publicId));
        expect(response.headers.get('content-type')).toBe('application/json');
      }
    });

    it(`gives ${caller} 404 for an unknown publicId`, async () => {
      const response = await get('no-such-dashboard', token());
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: 'not_found', message: expect.any(String) });
    });
  }
});

describe('GET /v1/embed/dashboard/{publicId}: embed tokens', () => {
  /** publicId → [status for an acme token, status for a globex token] */
  const expected: Record<string, [number, number]> = {
    'tenant-on': [200, 404],
    // Visible to acme but the switch is off: the spec's 403.
    'tenant-off': [403, 404],
    // Shared with all embed users: the switch does not apply.
    'all-off': [200, 200],
    'all-on': [200, 200],
    'unpublished-on': [404, 404],
    'unpublished-all': [404, 404],
    // The switch alone does not make a dashboard embeddable.
    'unshared-on': [404, 404],
    'globex-on': [404, 200],
    'unpublished-off': [404, 404],
  };

  it('covers every dashboard of the fixture', () => {
    expect(Object.keys(expected).sort()).toEqual([...allDashboards].sort());
  });

  for (const [publicId, [acmeStatus, globexStatus]] of Object.entries(expected)) {
    it(`answers ${publicId}: ${acmeStatus} to the acme tenant, ${globexStatus} to the globex tenant`, async () => {
      const acme = await get(publicId, acmeJwt());
      const globex = await get(publicId, globexJwt());
      expect([acme.status, globex.status]).toEqual([acmeStatus, globexStatus]);
      for (const response of [acme, globex]) {
        if (response.status === 200) expect(response.body).toEqual(bodyOf(publicId));
        else
          expect(response.body).toMatchObject({
            code: response.status === 403 ? 'forbidden' : 'not_found',
            requestId: expect.any(String),
          });
      }
    });
  }

  it('says why on a 403, without revealing anything but the refusal', async () => {
    const response = await get('tenant-off', acmeJwt());
    expect(response.body).toEqual({
      message: 'Signed embedding is not allowed for this dashboard',
      code: 'forbidden',
      requestId: expect.any(String),
    });
  });

  it('answers 404 for an unknown publicId, the same as for a hidden one', async () => {
    const unknown = await get('no-such-dashboard', acmeJwt());
    const hidden = await get('unshared-on', acmeJwt());
    expect([unknown.status, hidden.status]).toEqual([404, 404]);
    expect(Object.keys(unknown.body)).toEqual(Object.keys(hidden.body));
  });
});

describe('GET /v1/embed/dashboard/{publicId}: other console users', () => {
  it('refuses members and deactivated admins with 403, before looking the dashboard up', async () => {
    for (const token of [MEMBER_KEY, DEACTIVATED_ADMIN_KEY, consoleJwt('sub-bob'), consoleJwt('sub-carol')]) {
      for (const publicId of ['tenant-on', 'no-such-dashboard']) {
        const response = await get(publicId, token);
        expect({ publicId, status: response.status }).toEqual({ publicId, status: 403 });
        expect(response.body.code).toBe('forbidden');
      }
    }
  });
});

describe('GET /v1/embed/dashboard/{publicId}: refused credentials', () => {
  const iat = nowSeconds();
  const refused: Record<string, () => string | undefined> = {
    'no credential': () => undefined,
    'an unknown API key': () => 'sk-nobody',
    'an expired token': () => acmeJwt({ iat: iat - 7200, exp: iat - 3600 }),
    'a token for another audience': () => acmeJwt({ aud: 'console' }),
    'a token without an audience': () => {
      const { aud: _aud, ...claims } = acmeClaims();
      return signJwt(claims, acmeKey);
    },
    'a token claiming acme but signed with the globex key': () => signJwt(acmeClaims(), globexKey),
    'a token claiming acme, issued by globex and signed with its key': () =>
      signJwt(acmeClaims({ iss: 'https://auth.globex.example' }), globexKey),
    'a token without exp': () => {
      const { exp: _exp, ...claims } = acmeClaims();
      return signJwt(claims, acmeKey);
    },
    'a token living longer than 24 hours': () => acmeJwt({ iat, exp: iat + 24 * 3600 + 60 }),
    'a token issued in the future': () => acmeJwt({ iat: iat + 86_400 * 30, exp: iat + 86_400 * 30 + 3600 }),
    'an alg none token': () => unsignedJwt(acmeClaims(), 'acme-1'),
    'an HS256 token keyed with the tenant public key': () =>
      hs256Jwt(acmeClaims(), JSON.stringify(acmeKey.publicJwk), 'acme-1'),
    'a token whose payload was changed after signing': () => tamperedJwt(acmeJwt(), { tenant: 'globex' }),
    'a token whose subject was changed after signing': () => tamperedJwt(acmeJwt(), { sub: 'mallory' }),
    'a token for an unknown tenant': () => acmeJwt({ tenant: 'umbrella' }),
    'a token with an over-long tenant claim': () => acmeJwt({ tenant: '界'.repeat(300) }),
    'a token without a tenant claim': () => {
      const { tenant: _tenant, ...claims } = acmeClaims();
      return signJwt(claims, acmeKey);
    },
    'a platform token with an unknown session kind': () => platformJwt('debug'),
    'a token from an untrusted issuer': () => acmeJwt({ iss: 'https://evil.example', tenant: undefined }),
  };

  for (const [what, token] of Object.entries(refused)) {
    it(`answers 401 with WWW-Authenticate to ${what}`, async () => {
      const response = await get('all-on', token());
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(response.body).toMatchObject({ code: 'unauthorized', message: expect.any(String) });
    });
  }

  it('still accepts a genuine acme token (the refusals above are not a broken setup)', async () => {
    expect((await get('all-on', acmeJwt())).status).toBe(200);
    expect((await get('all-on', signJwt(acmeClaims({ iss: ACME_ISSUER }), acmeKey))).status).toBe(200);
  });
});

describe('GET /v1/embed/dashboard/{publicId}: path validation', () => {
  it('refuses a malformed publicId with 400 naming it', async () => {
    for (const publicId of ['x'.repeat(129), 'has%20space', 'caf%C3%A9']) {
      const response = await get(publicId, ADMIN_KEY);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('validation_failed');
      expect(response.body.errors.map((e: { path: string }) => e.path)).toEqual(['publicId']);
    }
  });
});

describe('GET /v1/embed/dashboard/{publicId}: DynamoDB work', () => {
  it('reads the dashboard once, plus the tenant once per container while its keys are cached', async () => {
    const meter = meterDynamoDb(documentClient());
    try {
      // initech is used by no other test of this file: its first request finds the keys cache cold.
      expect((await get('all-on', initechJwt())).status).toBe(200);
      expect(meter.byOperation).toEqual({ GetItem: expect.objectContaining({ requests: 2 }) });
      meter.reset();

      for (let i = 0; i < 3; i++) expect((await get('all-on', initechJwt())).status).toBe(200);
      expect(meter.byOperation).toEqual({ GetItem: expect.objectContaining({ requests: 3 }) });
      meter.reset();

      expect((await get('tenant-off', acmeJwt())).status).toBe(403);
      expect((await get('no-such-dashboard', acmeJwt())).status).toBe(404);
      expect(meter.totalRequests()).toBe(2);
      meter.reset();

      expect((await get('tenant-off', platformJwt('screenshot'))).status).toBe(200);
      expect(meter.totalRequests()).toBe(1);
      meter.reset();

      // PRINCIPAL_CACHE_SECONDS=0 in tests: the API key costs its two lookups on every request.
      expect((await get('tenant-off', ADMIN_KEY)).status).toBe(200);
      expect(meter.byOperation).toEqual({ GetItem: expect.objectContaining({ requests: 3 }) });
      meter.reset();

      // Refused callers never reach the dashboard.
      expect((await get('tenant-off', MEMBER_KEY)).status).toBe(403);
      expect((await get('tenant-off', signJwt(acmeClaims(), globexKey))).status).toBe(401);
      expect(meter.byOperation).toEqual({ GetItem: expect.objectContaining({ requests: 2 }) });
      expect(meter.writeRequests()).toBe(0);
    } finally {
      meter.detach();
    }
  });
});
