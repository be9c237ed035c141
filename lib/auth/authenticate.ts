import { decomposeUnverifiedJwt } from 'aws-jwt-verify/jwt';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import { apiKeyDigest } from '#lib/auth/api-keys';
import { readCredential } from '#lib/auth/credentials';
import { createTokenVerifier, type VerifyToken } from '#lib/auth/token-verifier';
import { VerifiedTokens } from '#lib/auth/verified-tokens';
import type { TrustedIssuer } from '#lib/config';
import type { ConsoleUser } from '#lib/domain/entities';
import {
  type ConsoleCredential,
  type CredentialDirectory,
  type EmbedTokenClaims,
  isPlatformSession,
  type Principal,
} from '#lib/domain/principal';
import { UnauthorizedError } from '#lib/errors';
import { fitsKeyPart } from '#lib/limits';
import { TtlCache } from '#lib/ttl-cache';

export interface AuthenticatorOptions {
  directory: CredentialDirectory;
  trustedIssuers: TrustedIssuer[];
  embedAudience: string;
  /** How long a looked-up console user is trusted (bounds how late a deactivation takes effect). */
  principalCacheMs: number;
  /** How long an embed tenant's keys are trusted (bounds how late a key rotation takes effect). */
  embedKeysCacheMs: number;
}

export type Authenticate = (authorization: string | undefined) => Promise<Principal>;

export interface Authenticator extends Authenticate {
  hydrate(): Promise<void>;
}

const EMBED_TOKEN_MAX_LIFETIME_SECONDS = 24 * 60 * 60;
const embedClaimNames = ['email', 'securityContext', 'userAttributes', 'groups'] as const;

/** The user's claims the token carries, as it carries them; absent ones stay absent. */
function embedClaimsOf(payload: JwtPayload): EmbedTokenClaims {
  const claims: EmbedTokenClaims = {};
  for (const name of embedClaimNames) if (payload[name] !== undefined) claims[name] = payload[name];
  return claims;
}

/**
 * A name that could not be a key part (not well-formed Unicode, or too long once encoded) names no
 * tenant: it is refused before the lookup, which could not even build its key.
 */
const isLookupName = (value: unknown): value is string =>
  typeof value === 'string' && value !== '' && fitsKeyPart(value);

export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const { directory, embedAudience } = options;
  const consoleUsers = new TtlCache<ConsoleUser | undefined>(options.principalCacheMs);
  const tenantVerifiers = new TtlCache<VerifyToken | undefined>(options.embedKeysCacheMs);
  const verifiedEmbedTokens = new VerifiedTokens<Principal>(options.embedKeysCacheMs);
  const issuers = new Map(
    options.trustedIssuers.map((trusted) => [
      trusted.issuer,
      { kind: trusted.kind, verify: createTokenVerifier(trusted) },
    ]),
  );

  function consolePrincipal(user: ConsoleUser | undefined, via: ConsoleCredential): Principal {
    if (!user) throw new UnauthorizedError('The credential is not valid');
    return { kind: 'console', user, via };
  }

  async function embedPrincipal(token: string, claimedTenant: unknown): Promise<Principal> {
    if (!isLookupName(claimedTenant)) throw new UnauthorizedError('The token is not valid');
    const verify = await tenantVerifiers.get(claimedTenant, async () => {
      const tenant = await directory.embedTenant(claimedTenant);
      if (!tenant) return undefined;
      return createTokenVerifier({
        issuer: tenant.issuer,
        audience: embedAudience,
        jwks: tenant.jwks,
        jwksUri: tenant.jwksUri,
        maxLifetimeSeconds: EMBED_TOKEN_MAX_LIFETIME_SECONDS,
      });
    });
    if (!verify) throw new UnauthorizedError('The token is not valid');
    // The tenant is read from the unverified token only to choose its keys; verification proves it.
    const payload = await verify(token);
    if (typeof payload.sub !== 'string' || payload.sub === '')
      throw new UnauthorizedError('The token has no subject');
    const principal: Principal = {
      kind: 'embed',
      tenant: claimedTenant,
      externalId: payload.sub,
      claims: embedClaimsOf(payload),
    };
    // Verified, and `exp` is required by the verifier's policy.
    if (typeof payload.exp === 'number') verifiedEmbedTokens.remember(token, principal, payload.exp);
    return principal;
  }

  function platformPrincipal(payload: JwtPayload): Principal {
    const session = payload.session;
    if (!isPlatformSession(session)) throw new UnauthorizedError('The token is not valid');
    return { kind: 'platform', session };
  }

  async function authenticate(authorization: string | undefined): Promise<Principal> {
    const credential = readCredential(authorization);
    if (credential.kind === 'api-key') {
      const digest = apiKeyDigest(credential.key);
      return consolePrincipal(
        await consoleUsers.get(`key:${digest}`, () => directory.userByApiKeyDigest(digest)),
        'api_key',
      );
    }

    const verifiedBefore = verifiedEmbedTokens.find(credential.token);
    if (verifiedBefore) return verifiedBefore;
    let unverified: JwtPayload;
    let critical: unknown;
    try {
      const decomposed = decomposeUnverifiedJwt(credential.token);
      unverified = decomposed.payload;
      critical = (decomposed.header as { crit?: unknown }).crit;
    } catch {
      throw new UnauthorizedError('The bearer token is not valid');
    }
    // RFC 7515 §4.1.11: an extension marked critical must be understood, and we understand none.
    if (critical !== undefined) throw new UnauthorizedError('The token is not valid');
    const trusted = typeof unverified.iss === 'string' ? issuers.get(unverified.iss) : undefined;
    if (!trusted) return embedPrincipal(credential.token, unverified.tenant);

    const payload = await trusted.verify(credential.token);
    if (trusted.kind === 'platform') return platformPrincipal(payload);
    const subject = payload.sub;
    if (typeof subject !== 'string' || subject === '')
      throw new UnauthorizedError('The token has no subject');
    if (!isLookupName(subject)) throw new UnauthorizedError('The credential is not valid');
    return consolePrincipal(
      await consoleUsers.get(`sub:${subject}`, () => directory.userBySubject(subject)),
      'console_token',
    );
  }

  /** Fetches the keys of every trusted issuer configured by JWKS URI, ahead of the first request. */
  const hydrate = async () => {
    await Promise.all([...issuers.values()].map((trusted) => trusted.verify.hydrate()));
  };

  return Object.assign(authenticate, { hydrate });
}
