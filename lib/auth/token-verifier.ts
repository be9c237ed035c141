import {
  FetchError,
  JwksNotAvailableInCacheError,
  JwksValidationError,
  JwkValidationError,
  JwtBaseError,
  JwtExpiredError,
} from 'aws-jwt-verify/error';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import { JwtVerifier } from 'aws-jwt-verify/jwt-verifier';
import type { JwkSet } from '#lib/domain/entities';
import { UnauthorizedError, UnavailableError } from '#lib/errors';
import { KEYS_RETRY_AFTER_SECONDS } from '#lib/timeouts';

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

export interface VerifyToken {
  (token: string): Promise<JwtPayload>;
  /** Fetches the keys of a JWKS URI ahead of the first token; a failure is left for that token to meet. */
  hydrate(): Promise<void>;
}

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
    return Object.assign(async (token: string) => classified(() => verifier.verifySync(token)), {
      hydrate: async () => {},
    });
  }
  return Object.assign(async (token: string) => classified(() => verifier.verify(token), 'fetched'), {
    hydrate: () => verifier.hydrate().catch(() => undefined),
  });
}

/** Where the verifier's keys come from: inline keys cannot fail to arrive, fetched ones can. */
type KeySource = 'inline' | 'fetched';

async function classified(
  verify: () => JwtPayload | Promise<JwtPayload>,
  keys: KeySource = 'inline',
): Promise<JwtPayload> {
  try {
    return await verify();
  } catch (error) {
    throw classify(error, keys);
  }
}

/**
 * Keys that cannot be had (the JWKS endpoint unreachable, answering an error, or serving no valid key
 * set) are an outage of the issuer, not a fault of the token: 503, so that callers keep good tokens.
 * Everything else aws-jwt-verify refuses is the token's fault: 401. An unknown `kid` is the token's
 * fault too: the keys were fetched and it is not among them.
 */
function classify(error: unknown, keys: KeySource): Error {
  if (
    // Beyond its own FetchError, fetching can fail with Node's errors (an `http:` URI is refused with
    // a TypeError before any request): with fetched keys, anything that is no verdict on the token
    // is the keys not arriving.
    (keys === 'fetched' && !(error instanceof JwtBaseError) && !(error instanceof TokenPolicyError)) ||
    error instanceof FetchError ||
    error instanceof JwksNotAvailableInCacheError ||
    error instanceof JwksValidationError ||
    error instanceof JwkValidationError
  ) {
    return new UnavailableError('The signing keys of the token issuer cannot be fetched', {
      cause: error,
      retryAfterSeconds: KEYS_RETRY_AFTER_SECONDS,
    });
  }
  if (error instanceof JwtExpiredError) return new UnauthorizedError('The token has expired');
  if (error instanceof TokenPolicyError) return new UnauthorizedError(error.message);
  if (error instanceof JwtBaseError) return new UnauthorizedError('The token is not valid');
  // Not a verdict on the token: a fault of ours, answered 500 and logged.
  return error instanceof Error ? error : new Error(String(error));
}
