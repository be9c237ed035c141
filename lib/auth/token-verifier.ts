import { JwtVerifier } from 'aws-jwt-verify';
import { JwtBaseError, JwtExpiredError } from 'aws-jwt-verify/error';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import type { JwkSet } from '#lib/domain/entities';
import { UnauthorizedError } from '#lib/errors';

export interface TokenVerifierOptions {
  issuer: string;
  audience: string;
  /** Keys given inline: verification never leaves the process. */
  jwks?: JwkSet;
  /** Keys fetched (and re-fetched on an unknown `kid`) by aws-jwt-verify. */
  jwksUri?: string;
  /** Longest accepted `exp` − `iat` (or `exp` − now when `iat` is absent). */
  maxLifetimeSeconds?: number;
}

export type VerifyToken = (token: string) => Promise<JwtPayload>;

// Never fetched: a verifier with inline keys only ever uses verifySync, which reads its cache.
const INLINE_JWKS_URI = 'https://inline-jwks.invalid/.well-known/jwks.json';

/** A token that verifies but breaks our claims policy. */
class TokenPolicyError extends Error {}

/** Clock difference tolerated between the token's issuer and us, for `iat` only. */
const MAX_CLOCK_SKEW_SECONDS = 60;

/** Our claims policy on top of aws-jwt-verify's: every token expires, and embed tokens soon. */
function checkLifetime(payload: JwtPayload, maxLifetimeSeconds: number | undefined): void {
  if (typeof payload.exp !== 'number') throw new TokenPolicyError('The token must have an exp claim');
  if (maxLifetimeSeconds === undefined) return;
  const now = Math.floor(Date.now() / 1000);
  // aws-jwt-verify does not look at `iat`; one set in the future would stretch `exp` past the bound.
  if (typeof payload.iat === 'number' && payload.iat > now + MAX_CLOCK_SKEW_SECONDS) {
    throw new TokenPolicyError('The token must not be issued in the future');
  }
  const start = typeof payload.iat === 'number' ? payload.iat : now;
  if (payload.exp - start > maxLifetimeSeconds) {
    throw new TokenPolicyError(`The token must not live longer than ${maxLifetimeSeconds} seconds`);
  }
}

/**
 * A verifier bound to one issuer and audience. aws-jwt-verify accepts only asymmetric algorithms
 * (RS*, ES*, EdDSA), so `none` and HS* tokens fail here whatever they claim.
 */
export function createTokenVerifier(options: TokenVerifierOptions): VerifyToken {
  const verifier = JwtVerifier.create({
    issuer: options.issuer,
    audience: options.audience,
    jwksUri: options.jwksUri ?? INLINE_JWKS_URI,
    customJwtCheck: ({ payload }) => checkLifetime(payload, options.maxLifetimeSeconds),
  });
  if (options.jwks) {
    verifier.cacheJwks(options.jwks as unknown as Parameters<typeof verifier.cacheJwks>[0]);
    return async (token) => asUnauthorized(() => verifier.verifySync(token));
  }
  return async (token) => {
    try {
      return await verifier.verify(token);
    } catch (error) {
      throw toUnauthorized(error);
    }
  };
}

function asUnauthorized(verify: () => JwtPayload): JwtPayload {
  try {
    return verify();
  } catch (error) {
    throw toUnauthorized(error);
  }
}

function toUnauthorized(error: unknown): Error {
  if (error instanceof JwtExpiredError) return new UnauthorizedError('The token has expired');
  if (error instanceof TokenPolicyError) return new UnauthorizedError(error.message);
  if (error instanceof JwtBaseError) return new UnauthorizedError('The token is not valid');
  // Key fetch failures and the like: still the caller's credential that could not be accepted.
  return new UnauthorizedError('The token could not be verified');
}
