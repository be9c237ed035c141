import { type Authenticator, createAuthenticator } from '#lib/auth/authenticate';
import type { Config } from '#lib/config';
import { credentialDirectory } from '#lib/store/users/users';

/**
 * How authenticated routes know their callers: token verification (aws-jwt-verify) against the
 * configured issuers, and credentials looked up in the table's credential directory. Only
 * createHandler imports it: a public route's bundle holds neither.
 */
export const authenticatorFor = (settings: Config): Authenticator =>
  createAuthenticator({
    directory: credentialDirectory,
    trustedIssuers: settings.trustedIssuers,
    embedAudience: settings.embedAudience,
    principalCacheMs: settings.principalCacheMs,
    embedKeysCacheMs: settings.embedKeysCacheMs,
  });
