import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, consoleUsers, DEACTIVATED_ADMIN_KEY, MEMBER_KEY } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import {
  freshClaims,
  generateSigningKey,
  hs256Jwt,
  nowSeconds,
  signJwt,
  tamperedJwt,
  unsignedJwt,
} from '#test/support/tokens';

/** Every credential kind of the contract, tried on an admin route (the PUT). */

const CONSOLE_ISSUER = 'https://idp.test.example';
const PLATFORM_ISSUER = 'https://platform.test.example';
const TENANT_ISSUER = 'https://auth.acme.test.example';

const consoleKey = generateSigningKey('console-rsa');
const consoleEcKey = generateSigningKey('console-ec', 'ES256');
const platformKey = generateSigningKey('platform-1');
const tenantKey = generateSigningKey('acme-1');
const strangerKey = generateSigningKey('console-rsa');

const PATH = '/v1/deployments/7/notifications/700';
let api: LocalApi;

const consoleToken = (claims: Record<string, unknown>, key = consoleKey) =>
  signJwt(freshClaims({ iss: CONSOLE_ISSUER, aud: 'console', sub: 'sub-ada', ...claims }), key);

beforeAll(async () => {
  api = await startLocalApi({
    users: consoleUsers,
    deployments: [{ id: 7, name: 'Production' }],
    notifications: [{ id: 700, deploymentId: 7, dashboardId: 70, scheduleType: 'DAILY', hour: 9 }],
    embedTenants: [{ name: 'acme', issuer: TENANT_ISSUER, jwks: { keys: [tenantKey.publicJwk] } }],
    trustedIssuers: [
      {
        kind: 'console',
        issuer: CONSOLE_ISSUER,
        audience: 'console',
        jwks: { keys: [consoleKey.publicJwk, consoleEcKey.publicJwk] },
      },
      {
        kind: 'platform',
        issuer: PLATFORM_ISSUER,
        audience: 'platform',
        jwks: { keys: [platformKey.publicJwk] },
      },
    ],
  });
});
afterAll(() => api.close());

const call = (authorization: string | undefined) => api.request('PUT', PATH, { authorization, body: {} });

async function expectUnauthorized(authorization: string | undefined) {
  const response = await call(authorization);
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe('Bearer');
  expect(response.body).toMatchObject({
    code: 'unauthorized',
    message: expect.any(String),
    requestId: expect.any(String),
  });
  return response;
}

describe('API keys', () => {
  it.each([
    `Bearer ${ADMIN_KEY}`,
    `bearer ${ADMIN_KEY}`,
    `BEARER ${ADMIN_KEY}`,
    `Api-Key ${ADMIN_KEY}`,
    `api-key ${ADMIN_KEY}`,
  ])('admits an admin key as %s', async (authorization) => {
    expect((await call(authorization)).status).toBe(200);
  });

  it('refuses an unknown key', async () => {
    await expectUnauthorized('Bearer sk-not-a-key');
  });

  it('refuses a member key with 403', async () => {
    const response = await call(`Bearer ${MEMBER_KEY}`);
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('forbidden');
  });

  it('refuses a deactivated admin with 403', async () => {
    expect((await call(`Bearer ${DEACTIVATED_ADMIN_KEY}`)).status).toBe(403);
  });

  it('takes the Api-Key scheme for API keys only', async () => {
    await expectUnauthorized(`Api-Key ${consoleToken({})}`);
  });

  it('never echoes the credential back', async () => {
    const response = await expectUnauthorized('Bearer sk-secret-looking-value');
    expect(response.text).not.toContain('sk-secret-looking-value');
  });
});

describe('malformed Authorization headers', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['a scheme alone', 'Bearer'],
    ['Basic credentials', 'Basic YWRhOnNlY3JldA=='],
    ['two tokens', `Bearer ${ADMIN_KEY} extra`],
    ['a JWT with two segments', 'Bearer aaa.bbb'],
    ['a JWT with four segments', 'Bearer aaa.bbb.ccc.ddd'],
    ['segments that are not JSON', 'Bearer aaaa.bbbb.cccc'],
    ['characters outside base64url', 'Bearer a$a.b*b.c!c'],
  ])('refuses %s with 401', async (_, authorization) => {
    await expectUnauthorized(authorization);
  });
});

describe('console JWTs', () => {
  it('admits an admin by subject (RS256)', async () => {
    expect((await call(`Bearer ${consoleToken({})}`)).status).toBe(200);
  });

  it('admits an admin by subject (ES256)', async () => {
    expect((await call(`Bearer ${consoleToken({}, consoleEcKey)}`)).status).toBe(200);
  });

  it('refuses a member with 403 and a deactivated admin with 403', async () => {
    expect((await call(`Bearer ${consoleToken({ sub: 'sub-bob' })}`)).status).toBe(403);
    expect((await call(`Bearer ${consoleToken({ sub: 'sub-carol' })}`)).status).toBe(403);
  });

  it('refuses a subject no console user has', async () => {
    await expectUnauthorized(`Bearer ${consoleToken({ sub: 'sub-nobody' })}`);
  });

  it.each([
    [
      'alg none',
      () => unsignedJwt(freshClaims({ iss: CONSOLE_ISSUER, aud: 'console', sub: 'sub-ada' }), consoleKey.kid),
    ],
    [
      'HS256 keyed with the public key (algorithm confusion)',
      () =>
        hs256Jwt(
          freshClaims({ iss: CONSOLE_ISSUER, aud: 'console', sub: 'sub-ada' }),
          JSON.stringify(consoleKey.publicJwk),
          consoleKey.kid,
        ),
    ],
    ['an expired token', () => consoleToken({ iat: nowSeconds() - 7200, exp: nowSeconds() - 60 })],
    ['a token not yet valid', () => consoleToken({ nbf: nowSeconds() + 600 })],
    [
      'a token without exp',
      () => signJwt({ iss: CONSOLE_ISSUER, aud: 'console', sub: 'sub-ada', iat: nowSeconds() }, consoleKey),
    ],
    ['a wrong audience', () => consoleToken({ aud: 'someone-else' })],
    ['an unknown issuer', () => consoleToken({ iss: 'https://evil.example' })],
    [
      'an unknown kid',
      () =>
        signJwt(
          freshClaims({ iss: CONSOLE_ISSUER, aud: 'console', sub: 'sub-ada' }),
          generateSigningKey('kid-unknown'),
        ),
    ],
    ['a known kid signed by another key', () => consoleToken({}, strangerKey)],
    ['a tampered payload', () => tamperedJwt(consoleToken({ sub: 'sub-bob' }), { sub: 'sub-ada' })],
    ['a stripped signature', () => `${consoleToken({}).split('.').slice(0, 2).join('.')}.`],
  ])('refuses %s with 401', async (_, token) => {
    await expectUnauthorized(`Bearer ${token()}`);
  });
});

describe('principals that are valid but never admins', () => {
  it('refuses a trusted platform session with 403', async () => {
    const token = signJwt(
      freshClaims({ iss: PLATFORM_ISSUER, aud: 'platform', sub: 'renderer', session: 'screenshot' }),
      platformKey,
    );
    expect((await call(`Bearer ${token}`)).status).toBe(403);
  });

  it('refuses a platform token without a known session with 401', async () => {
    const token = signJwt(
      freshClaims({ iss: PLATFORM_ISSUER, aud: 'platform', sub: 'renderer', session: 'admin' }),
      platformKey,
    );
    await expectUnauthorized(`Bearer ${token}`);
  });

  it('refuses an embed token with 403', async () => {
    const token = signJwt(
      freshClaims({ iss: TENANT_ISSUER, aud: 'embed', sub: 'viewer-1', tenant: 'acme' }),
      tenantKey,
    );
    expect((await call(`Bearer ${token}`)).status).toBe(403);
  });

  it('refuses an embed token for an unregistered tenant with 401', async () => {
    const token = signJwt(
      freshClaims({ iss: TENANT_ISSUER, aud: 'embed', sub: 'viewer-1', tenant: 'globex' }),
      tenantKey,
    );
    await expectUnauthorized(`Bearer ${token}`);
  });
});
