import { describe, expect, it } from 'vitest';
import { createAuthenticator } from '#lib/auth/authenticate';
import type { EmbedTenant } from '#lib/domain/entities';
import type { CredentialDirectory } from '#lib/domain/principal';
import { UnauthorizedError } from '#lib/errors';
import {
  freshClaims,
  generateSigningKey,
  hs256Jwt,
  nowSeconds,
  signJwt,
  tamperedJwt,
  unsignedJwt,
} from '#test/support/tokens';

/**
 * The embed-token half of authentication, on its own: an in-memory directory stands in for the
 * table so that lookups can be counted and keys rotated at will. The HTTP tests repeat the refusals
 * end to end.
 */

const acmeKey = generateSigningKey('acme-1');
const globexKey = generateSigningKey('globex-1', 'ES256');
// Same kid as acme's key: a kid alone must never select another tenant's key.
const impostorKey = generateSigningKey('acme-1');

const ACME = 'https://auth.acme.example';
const GLOBEX = 'https://auth.globex.example';

function directoryWith(tenants: EmbedTenant[]) {
  const byName = new Map(tenants.map((tenant) => [tenant.name, tenant]));
  const lookups: string[] = [];
  const directory: CredentialDirectory = {
    userByApiKeyDigest: async () => undefined,
    userBySubject: async () => undefined,
    async embedTenant(name) {
      lookups.push(name);
      return byName.get(name);
    },
  };
  return { directory, lookups, byName };
}

const tenants = (): EmbedTenant[] => [
  { name: 'acme', issuer: ACME, jwks: { keys: [acmeKey.publicJwk] } },
  { name: 'globex', issuer: GLOBEX, jwks: { keys: [globexKey.publicJwk] } },
];

function authenticatorFor(directory: CredentialDirectory, embedKeysCacheMs = 300_000) {
  return createAuthenticator({
    directory,
    trustedIssuers: [],
    embedAudience: 'embed',
    principalCacheMs: 0,
    embedKeysCacheMs,
  });
}

const acmeClaims = (claims: Record<string, unknown> = {}) =>
  freshClaims({ iss: ACME, aud: 'embed', sub: 'alice', tenant: 'acme', ...claims });

async function refusal(promise: Promise<unknown>): Promise<UnauthorizedError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UnauthorizedError);
  return error as UnauthorizedError;
}

describe('embed token verification', () => {
  const { directory } = directoryWith(tenants());
  const authenticate = authenticatorFor(directory);
  const bearer = (token: string) => `Bearer ${token}`;

  it('accepts a token signed with the claimed tenant key and reads the principal from it', async () => {
    const token = signJwt(acmeClaims({ email: 'alice@acme.example', groups: ['sales'] }), acmeKey);
    expect(await authenticate(bearer(token))).toEqual({
      kind: 'embed',
      tenant: 'acme',
      externalId: 'alice',
      claims: { email: 'alice@acme.example', groups: ['sales'] },
    });
  });

  it('accepts an ES256 token of another tenant with that tenant keys', async () => {
    const token = signJwt(freshClaims({ iss: GLOBEX, aud: 'embed', sub: 'g', tenant: 'globex' }), globexKey);
    expect(await authenticate(bearer(token))).toMatchObject({ kind: 'embed', tenant: 'globex' });
  });

  it('refuses a token claiming one tenant but signed with another tenant key', async () => {
    await refusal(authenticate(bearer(signJwt(acmeClaims(), globexKey))));
    await refusal(authenticate(bearer(signJwt(acmeClaims({ iss: GLOBEX }), globexKey))));
  });

  it('refuses a token signed with a foreign key that reuses the tenant key id', async () => {
    await refusal(authenticate(bearer(signJwt(acmeClaims(), impostorKey))));
  });

  it('refuses a token whose tenant claim was changed after signing', async () => {
    const globexToken = signJwt(
      freshClaims({ iss: GLOBEX, aud: 'embed', sub: 'g', tenant: 'globex' }),
      globexKey,
    );
    await refusal(authenticate(bearer(tamperedJwt(globexToken, { tenant: 'acme' }))));
    await refusal(authenticate(bearer(tamperedJwt(signJwt(acmeClaims(), acmeKey), { sub: 'mallory' }))));
  });

  it('refuses a token without exp', async () => {
    const { exp: _exp, ...claims } = acmeClaims();
    const error = await refusal(authenticate(bearer(signJwt(claims, acmeKey))));
    expect(error.message).toMatch(/exp/);
  });

  it('refuses a token living longer than 24 hours, and accepts one living exactly 24 hours', async () => {
    const iat = nowSeconds();
    await refusal(authenticate(bearer(signJwt(acmeClaims({ iat, exp: iat + 24 * 3600 + 1 }), acmeKey))));
    const { iat: _iat, ...withoutIat } = acmeClaims({ exp: iat + 25 * 3600 });
    await refusal(authenticate(bearer(signJwt(withoutIat, acmeKey))));
    expect(
      await authenticate(bearer(signJwt(acmeClaims({ iat, exp: iat + 24 * 3600 }), acmeKey))),
    ).toMatchObject({ kind: 'embed' });
  });

  it('refuses a token issued in the future, which would otherwise outlive the 24-hour bound', async () => {
    const iat = nowSeconds() + 365 * 24 * 3600;
    await refusal(authenticate(bearer(signJwt(acmeClaims({ iat, exp: iat + 3600 }), acmeKey))));
  });

  it('refuses an expired token', async () => {
    const iat = nowSeconds() - 7200;
    const error = await refusal(authenticate(bearer(signJwt(acmeClaims({ iat, exp: iat + 3600 }), acmeKey))));
    expect(error.message).toMatch(/expired/);
  });

  it('refuses a token for another audience, or with none', async () => {
    await refusal(authenticate(bearer(signJwt(acmeClaims({ aud: 'console' }), acmeKey))));
    const { aud: _aud, ...claims } = acmeClaims();
    await refusal(authenticate(bearer(signJwt(claims, acmeKey))));
  });

  it('refuses a token not yet valid (nbf in the future)', async () => {
    await refusal(authenticate(bearer(signJwt(acmeClaims({ nbf: nowSeconds() + 600 }), acmeKey))));
  });

  it('refuses alg none, and HS256 signed with the tenant public key as the secret', async () => {
    await refusal(authenticate(bearer(unsignedJwt(acmeClaims(), 'acme-1'))));
    await refusal(authenticate(bearer(hs256Jwt(acmeClaims(), JSON.stringify(acmeKey.publicJwk), 'acme-1'))));
    await refusal(authenticate(bearer(hs256Jwt(acmeClaims(), acmeKey.publicJwk.n as string, 'acme-1'))));
  });

  it('refuses a token without subject, without tenant, or for an unknown tenant', async () => {
    const { sub: _sub, ...noSubject } = acmeClaims();
    await refusal(authenticate(bearer(signJwt(noSubject, acmeKey))));
    const { tenant: _tenant, ...noTenant } = acmeClaims();
    await refusal(authenticate(bearer(signJwt(noTenant, acmeKey))));
    await refusal(authenticate(bearer(signJwt(acmeClaims({ tenant: 'initech' }), acmeKey))));
    await refusal(authenticate(bearer(signJwt(acmeClaims({ tenant: 42 }), acmeKey))));
  });

  it('refuses an over-long tenant claim without looking it up', async () => {
    const { directory: counted, lookups } = directoryWith(tenants());
    const error = await refusal(
      authenticatorFor(counted)(bearer(signJwt(acmeClaims({ tenant: 'a'.repeat(3000) }), acmeKey))),
    );
    expect(error.code).toBe('unauthorized');
    expect(lookups).toHaveLength(0);
  });
});

describe('embed tenant keys cache', () => {
  it('looks a tenant up once and reuses its keys while the cache holds', async () => {
    const { directory, lookups } = directoryWith(tenants());
    const authenticate = authenticatorFor(directory);
    for (let i = 0; i < 3; i++) await authenticate(`Bearer ${signJwt(acmeClaims(), acmeKey)}`);
    expect(lookups).toEqual(['acme']);
  });

  it('takes a rotation of the tenant keys into account once the cache time has passed', async () => {
    const { directory, byName } = directoryWith(tenants());
    // Long enough that the steps within the bound finish inside it on a loaded machine.
    const cacheMs = 1000;
    const authenticate = authenticatorFor(directory, cacheMs);
    const oldToken = signJwt(acmeClaims(), acmeKey);
    await authenticate(`Bearer ${oldToken}`);

    const rotated = generateSigningKey('acme-2');
    byName.set('acme', { name: 'acme', issuer: ACME, jwks: { keys: [rotated.publicJwk] } });
    const newToken = signJwt(acmeClaims(), rotated);
    // Within the bound the container still trusts the keys it read.
    expect(await authenticate(`Bearer ${oldToken}`)).toMatchObject({ kind: 'embed' });
    await refusal(authenticate(`Bearer ${newToken}`));

    await new Promise((resolve) => setTimeout(resolve, cacheMs + 50));
    expect(await authenticate(`Bearer ${newToken}`)).toMatchObject({ kind: 'embed' });
    await refusal(authenticate(`Bearer ${oldToken}`));
  });
});
