import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TrustedIssuer } from '#lib/config';
import type { ConsoleUser, EmbedTenant } from '#lib/domain/entities';
import { type CredentialDirectory, isAdmin, isRenderer, type Principal } from '#lib/domain/principal';
import type { ServiceError } from '#lib/errors';
import { KEYS_RETRY_AFTER_SECONDS } from '#lib/timeouts';
import { freshForEachTest } from '#test/support/fresh-module';
import { countingJwksEndpoint } from '#test/support/jwks-endpoint';
import { freshClaims, generateSigningKey, nowSeconds, signJwt } from '#test/support/tokens';

/**
 * Console API keys, console and platform JWTs and the token checks around them, with an in-memory
 * directory in place of the table so that every lookup is seen. The HTTP tests repeat the refusals
 * end to end; these pin the principal each credential yields and the message each refusal gives.
 */

// Loaded in each test: the token rules' limits are set when the module loads.
const authentication = freshForEachTest(() => import('#lib/auth/authenticate'));
const createAuthenticator: typeof import('#lib/auth/authenticate').createAuthenticator = (options) =>
  authentication().createAuthenticator(options);

const CONSOLE = 'https://idp.test.example';
const PLATFORM = 'https://platform.test.example';
const ACME = 'https://auth.acme.test.example';
const consoleKey = generateSigningKey('console-1');
const platformKey = generateSigningKey('platform-1');
const acmeKey = generateSigningKey('acme-1');

const ada: ConsoleUser = { id: 1, email: 'ada@example.com', username: 'ada', role: 'admin', active: true };
const bob: ConsoleUser = { id: 2, email: 'bob@example.com', username: 'bob', role: 'member', active: true };

/** The digest a stored key is found by, computed here independently of the code under test. */
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function directoryWith(
  users: { key: string; subject: string; user: ConsoleUser }[],
  tenants: EmbedTenant[] = [],
) {
  const lookups: string[] = [];
  const directory: CredentialDirectory = {
    async userByApiKeyDigest(digest) {
      lookups.push(`digest:${digest}`);
      return users.find((entry) => sha256(entry.key) === digest)?.user;
    },
    async userBySubject(subject) {
      lookups.push(`subject:${subject}`);
      return users.find((entry) => entry.subject === subject)?.user;
    },
    async embedTenant(name) {
      lookups.push(`tenant:${name}`);
      return tenants.find((tenant) => tenant.name === name);
    },
  };
  return { directory, lookups };
}

const trustedIssuers: TrustedIssuer[] = [
  { kind: 'console', issuer: CONSOLE, audience: 'console', jwks: { keys: [consoleKey.publicJwk] } },
  { kind: 'platform', issuer: PLATFORM, audience: 'platform', jwks: { keys: [platformKey.publicJwk] } },
];

function setup({ principalCacheMs = 0 } = {}) {
  const { directory, lookups } = directoryWith(
    [
      { key: 'sk-ada', subject: 'sub-ada', user: ada },
      { key: 'sk-bob', subject: 'sub-bob', user: bob },
    ],
    [{ name: 'acme', issuer: ACME, jwks: { keys: [acmeKey.publicJwk] } }],
  );
  const authenticate = createAuthenticator({
    directory,
    trustedIssuers,
    embedAudience: 'embed',
    principalCacheMs,
    embedKeysCacheMs: 0,
  });
  return { authenticate, lookups };
}

const consoleToken = (claims: Record<string, unknown> = {}) =>
  signJwt(freshClaims({ iss: CONSOLE, aud: 'console', sub: 'sub-ada', ...claims }), consoleKey);
const platformToken = (claims: Record<string, unknown>) =>
  signJwt(freshClaims({ iss: PLATFORM, aud: 'platform', sub: 'renderer', ...claims }), platformKey);
const embedToken = (claims: Record<string, unknown> = {}) =>
  signJwt(freshClaims({ iss: ACME, aud: 'embed', sub: 'viewer-1', tenant: 'acme', ...claims }), acmeKey);

/** The error a refused credential gives, checked to be a 401 (by code: the module is loaded anew in each test). */
async function refusal(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toMatchObject({ code: 'unauthorized' });
  return error as ServiceError;
}

describe('console API keys', () => {
  it('finds the user by the SHA-256 digest of the key, never by the key itself', async () => {
    const { authenticate, lookups } = setup();
    expect(await authenticate('Bearer sk-ada')).toEqual({ kind: 'console', user: ada, via: 'api_key' });
    expect(await authenticate('Api-Key sk-bob')).toEqual({ kind: 'console', user: bob, via: 'api_key' });
    expect(lookups).toEqual([`digest:${sha256('sk-ada')}`, `digest:${sha256('sk-bob')}`]);
  });

  it('refuses a key no user has', async () => {
    const { authenticate } = setup();
    expect((await refusal(authenticate('Bearer sk-nobody'))).message).toBe('The credential is not valid');
  });

  it('keeps cached users apart by key and by subject', async () => {
    const { authenticate, lookups } = setup({ principalCacheMs: 60_000 });
    expect(await authenticate('Bearer sk-ada')).toEqual({ kind: 'console', user: ada, via: 'api_key' });
    expect(await authenticate('Bearer sk-bob')).toEqual({ kind: 'console', user: bob, via: 'api_key' });
    expect(await authenticate(`Bearer ${consoleToken({ sub: 'sub-bob' })}`)).toEqual({
      kind: 'console',
      user: bob,
      via: 'console_token',
    });
    expect(await authenticate(`Bearer ${consoleToken({ sub: 'sub-ada' })}`)).toEqual({
      kind: 'console',
      user: ada,
      via: 'console_token',
    });
    // Each asked once; asking again is answered from the cache.
    await authenticate('Bearer sk-ada');
    await authenticate(`Bearer ${consoleToken({ sub: 'sub-bob' })}`);
    expect(lookups).toHaveLength(4);
  });
});

describe('console JWTs', () => {
  it('finds the user by the token subject', async () => {
    const { authenticate, lookups } = setup();
    expect(await authenticate(`Bearer ${consoleToken({ sub: 'sub-bob' })}`)).toEqual({
      kind: 'console',
      user: bob,
      via: 'console_token',
    });
    expect(lookups).toEqual(['subject:sub-bob']);
  });

  it('refuses a subject no user has', async () => {
    const { authenticate } = setup();
    const error = await refusal(authenticate(`Bearer ${consoleToken({ sub: 'sub-nobody' })}`));
    expect(error.message).toBe('The credential is not valid');
  });

  it('refuses a token without a subject, or with an empty one', async () => {
    const { authenticate, lookups } = setup();
    for (const sub of [undefined, '']) {
      const error = await refusal(authenticate(`Bearer ${consoleToken({ sub })}`));
      expect(error.message).toBe('The token has no subject');
    }
    expect(lookups).toEqual([]);
  });

  it('refuses a subject that could not be a key without looking it up', async () => {
    const { authenticate, lookups } = setup();
    for (const sub of ['x'.repeat(2000), 'a\uD800b']) {
      const error = await refusal(authenticate(`Bearer ${consoleToken({ sub })}`));
      expect(error.message).toBe('The credential is not valid');
    }
    expect(lookups).toEqual([]);
  });

  it('accepts a long-lived console token, and one whose iat is ahead of our clock (only embed tokens are bounded)', async () => {
    const { authenticate } = setup();
    const now = nowSeconds();
    expect(await authenticate(`Bearer ${consoleToken({ iat: now, exp: now + 30 * 86_400 })}`)).toEqual({
      kind: 'console',
      user: ada,
      via: 'console_token',
    });
    expect(await authenticate(`Bearer ${consoleToken({ iat: now + 7200, exp: now + 9000 })}`)).toEqual({
      kind: 'console',
      user: ada,
      via: 'console_token',
    });
  });

  it('refuses a token marked with a critical extension, however well signed', async () => {
    const { authenticate } = setup();
    const token = signJwt(freshClaims({ iss: CONSOLE, aud: 'console', sub: 'sub-ada' }), consoleKey, {
      crit: ['exp'],
    });
    expect((await refusal(authenticate(`Bearer ${token}`))).message).toBe('The token is not valid');
  });

  it('refuses three segments that are not a JWT', async () => {
    const { authenticate } = setup();
    expect((await refusal(authenticate('Bearer aaaa.bbbb.cccc'))).message).toBe(
      'The bearer token is not valid',
    );
  });

  it('verifies a token of a trusted issuer with that issuer, not as an embed token', async () => {
    const { authenticate, lookups } = setup();
    // A console token that also names a tenant is still a console token.
    expect(await authenticate(`Bearer ${consoleToken({ tenant: 'acme' })}`)).toEqual({
      kind: 'console',
      user: ada,
      via: 'console_token',
    });
    expect(lookups).toEqual(['subject:sub-ada']);
  });
});

describe('platform JWTs', () => {
  it('yields the session the token names', async () => {
    const { authenticate, lookups } = setup();
    for (const session of ['screenshot', 'creator']) {
      expect(await authenticate(`Bearer ${platformToken({ session })}`)).toEqual({
        kind: 'platform',
        session,
      });
    }
    expect(lookups).toEqual([]);
  });

  it('refuses a session that is not one of the platform sessions', async () => {
    const { authenticate } = setup();
    for (const session of ['admin', undefined, '']) {
      const error = await refusal(authenticate(`Bearer ${platformToken({ session })}`));
      expect(error.message).toBe('The token is not valid');
    }
  });
});

describe('embed tokens, by their messages', () => {
  it('refuses an unknown tenant, an empty one, or one no key could hold, looking up only the possible', async () => {
    const { authenticate, lookups } = setup();
    for (const tenant of ['globex', '', 'x'.repeat(2000), 7]) {
      const error = await refusal(authenticate(`Bearer ${embedToken({ tenant })}`));
      expect(error.message).toBe('The token is not valid');
    }
    expect(lookups).toEqual(['tenant:globex']);
  });

  it('refuses a token without a subject', async () => {
    const { authenticate } = setup();
    for (const sub of [undefined, '']) {
      expect((await refusal(authenticate(`Bearer ${embedToken({ sub })}`))).message).toBe(
        'The token has no subject',
      );
    }
  });

  it('refuses a token issued more than a minute ahead of our clock, and takes one within that minute', async () => {
    const { authenticate } = setup();
    const now = nowSeconds();
    expect(await authenticate(`Bearer ${embedToken({ iat: now + 60, exp: now + 3600 })}`)).toEqual({
      kind: 'embed',
      tenant: 'acme',
      externalId: 'viewer-1',
      claims: {},
    });
    const error = await refusal(authenticate(`Bearer ${embedToken({ iat: now + 120, exp: now + 3600 })}`));
    expect(error.message).toBe('The token must not be issued in the future');
  });

  it('counts the lifetime from iat when the token has one, else from now', async () => {
    const { authenticate } = setup();
    const now = nowSeconds();
    // 23 hours left, but issued two hours ago: 25 hours in all.
    const error = await refusal(
      authenticate(`Bearer ${embedToken({ iat: now - 7200, exp: now + 23 * 3600 })}`),
    );
    expect(error.message).toBe('The token must not live longer than 86400 seconds');
    const withoutIat = signJwt(
      { iss: ACME, aud: 'embed', sub: 'viewer-1', tenant: 'acme', exp: now + 23 * 3600 },
      acmeKey,
    );
    expect(await authenticate(`Bearer ${withoutIat}`)).toMatchObject({ kind: 'embed' });
    const tooLongWithoutIat = signJwt(
      { iss: ACME, aud: 'embed', sub: 'viewer-1', tenant: 'acme', exp: now + 25 * 3600 },
      acmeKey,
    );
    await refusal(authenticate(`Bearer ${tooLongWithoutIat}`));
  });

  it('refuses a token without exp, saying so', async () => {
    const { authenticate } = setup();
    const token = signJwt(
      { iss: ACME, aud: 'embed', sub: 'viewer-1', tenant: 'acme', iat: nowSeconds() },
      acmeKey,
    );
    expect((await refusal(authenticate(`Bearer ${token}`))).message).toBe('The token must have an exp claim');
  });

  it('says no more than "not valid" of a token the verifier refuses for its signature', async () => {
    const { authenticate } = setup();
    const forged = signJwt(
      freshClaims({ iss: ACME, aud: 'embed', sub: 'viewer-1', tenant: 'acme' }),
      generateSigningKey('acme-1'),
    );
    expect((await refusal(authenticate(`Bearer ${forged}`))).message).toBe('The token is not valid');
  });

  it('says an expired token has expired', async () => {
    const { authenticate } = setup();
    const now = nowSeconds();
    const error = await refusal(authenticate(`Bearer ${embedToken({ iat: now - 7200, exp: now - 3600 })}`));
    expect(error.message).toBe('The token has expired');
  });
});

describe('issuers whose keys are given', () => {
  it('have nothing to fetch ahead of the first request', async () => {
    await expect(setup().authenticate.hydrate()).resolves.toBeUndefined();
  });
});

describe('issuers whose keys are fetched', () => {
  /** An authenticator that trusts one console issuer, whose keys it fetches from `jwksUri`. */
  const fetchingFrom = (jwksUri: string) =>
    createAuthenticator({
      directory: directoryWith([]).directory,
      trustedIssuers: [{ kind: 'console', issuer: CONSOLE, audience: 'console', jwksUri }],
      embedAudience: 'embed',
      principalCacheMs: 0,
      embedKeysCacheMs: 0,
    });

  it('fetch their keys ahead of the first request, from the URI configured', async () => {
    const jwksEndpoint = await countingJwksEndpoint();
    await fetchingFrom(jwksEndpoint.uri).hydrate();
    await jwksEndpoint.close();
    expect(jwksEndpoint.connections()).toBeGreaterThan(0);
  });

  it('answers unavailable (retry later), not unauthorized, when the keys cannot be had', async () => {
    // An http: URI is refused before any request: the keys never arrive.
    const authenticate = fetchingFrom('http://127.0.0.1:9/jwks');
    // Fetching ahead of the first request leaves a failure for that request to meet.
    await expect(authenticate.hydrate()).resolves.toBeUndefined();
    const error = await authenticate(`Bearer ${consoleToken()}`).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({
      code: 'unavailable',
      message: 'The signing keys of the token issuer cannot be fetched',
      retryAfterSeconds: KEYS_RETRY_AFTER_SECONDS,
      cause: expect.any(Error),
    });
  });
});

describe('principal roles', () => {
  const consoleUser = (user: Partial<ConsoleUser>): Principal => ({
    kind: 'console',
    user: { ...ada, ...user },
    via: 'console_token',
  });

  it('counts only active console admins as admins', () => {
    expect(isAdmin(consoleUser({}))).toBe(true);
    expect(isAdmin(consoleUser({ active: false }))).toBe(false);
    expect(isAdmin(consoleUser({ role: 'member' }))).toBe(false);
    expect(isAdmin({ kind: 'platform', session: 'screenshot' })).toBe(false);
    expect(isAdmin({ kind: 'embed', tenant: 'acme', externalId: 'admin' })).toBe(false);
  });

  it('counts only the screenshot session as the renderer', () => {
    expect(isRenderer({ kind: 'platform', session: 'screenshot' })).toBe(true);
    expect(isRenderer({ kind: 'platform', session: 'creator' })).toBe(false);
    expect(isRenderer(consoleUser({}))).toBe(false);
    expect(isRenderer({ kind: 'embed', tenant: 'acme', externalId: 'screenshot' })).toBe(false);
  });
});
