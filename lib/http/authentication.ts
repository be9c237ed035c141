import { type Authenticator, createAuthenticator } from '#lib/auth/authenticate';
import type { Config } from '#lib/config';
import type { CredentialDirectory } from '#lib/domain/principal';

/**
 * How a function authenticates its callers: token verification (aws-jwt-verify) against the
 * configured issuers, and credentials looked up in `directory`. A function passes it to
 * createHandler; a public route passes nothing and so bundles neither.
 */
export const credentialsIn =
  (directory: CredentialDirectory) =>
  (settings: Config): Authenticator =>
    createAuthenticator({
      directory,
      trustedIssuers: settings.trustedIssuers,
      embedAudience: settings.embedAudience,
      principalCacheMs: settings.principalCacheMs,
      embedKeysCacheMs: settings.embedKeysCacheMs,
    });
