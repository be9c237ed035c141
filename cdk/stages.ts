import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { TrustedIssuer } from '#lib/config';

/**
 * One entry per deployable stage, chosen with `cdk deploy -c stage=<name>`. The issuer URLs below are
 * placeholders: replace them with your identity provider's and platform's before the first deploy.
 */

/** Deployed stages fetch issuer keys from a JWKS URI; inline keys are for local runs and tests. */
type DeployedIssuer = Omit<TrustedIssuer, 'jwks' | 'jwksUri'> & { jwksUri: string };

export interface StageConfig {
  /** Also the suffix of the stack name. */
  name: string;
  /**
   * A production stage keeps its data whatever happens to the stack: the table has deletion
   * protection and is retained, and so are the log groups. Other stages are torn down completely.
   */
  production: boolean;
  tableName: string;
  /** The console's identity provider and the platform's own services (kind `console` / `platform`). */
  trustedIssuers: DeployedIssuer[];
  /** The `aud` every embed JWT must carry. */
  embedAudience: string;
  /** The closest two firings of a custom cron may be. */
  customCronMinIntervalMinutes: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  logRetention: RetentionDays;
  /** How long a container trusts a cached user's role and state (0: look up on every request). */
  principalCacheSeconds: number;
  /** How long a container keeps an embed tenant's keys: the bound on a rotated-out key still working. */
  embedKeysCacheSeconds: number;
  /** API Gateway's stage-wide limit, so that a runaway client cannot exhaust the table or the account's Lambdas. */
  throttle: { rateLimit: number; burstLimit: number };
  /**
   * Browser origins allowed to call the API (CORS), e.g. the app that embeds dashboards. Empty: no CORS
   * headers at all, for server-to-server callers. Credentials travel in the Authorization header, never cookies.
   */
  corsAllowOrigins: string[];
  /**
   * The address recipients reach the API at (a custom domain), the base of unsubscribe links in
   * delivered messages. Without it, the API Gateway stage URL.
   */
  publicBaseUrl?: string;
  /** Pin the stage to one account and region; without it, the stack deploys wherever the credentials point. */
  env?: { account: string; region: string };
}

export const stages: Record<string, StageConfig> = {
  dev: {
    name: 'dev',
    production: false,
    tableName: 'notification-admin-dev',
    trustedIssuers: [
      {
        kind: 'console',
        issuer: 'https://cognito-idp.eu-central-1.amazonaws.com/eu-central-1_DEVPLACEHOLDER',
        audience: 'dev-console-app-client-id',
        jwksUri:
          'https://cognito-idp.eu-central-1.amazonaws.com/eu-central-1_DEVPLACEHOLDER/.well-known/jwks.json',
      },
      {
        kind: 'platform',
        issuer: 'https://platform.dev.example.com',
        audience: 'notification-admin-api',
        jwksUri: 'https://platform.dev.example.com/.well-known/jwks.json',
      },
    ],
    embedAudience: 'embed',
    customCronMinIntervalMinutes: 15,
    logLevel: 'debug',
    logRetention: RetentionDays.ONE_WEEK,
    principalCacheSeconds: 30,
    embedKeysCacheSeconds: 300,
    throttle: { rateLimit: 20, burstLimit: 40 },
    corsAllowOrigins: ['http://localhost:5173'],
  },
  prod: {
    name: 'prod',
    production: true,
    tableName: 'notification-admin-prod',
    trustedIssuers: [
      {
        kind: 'console',
        issuer: 'https://cognito-idp.eu-central-1.amazonaws.com/eu-central-1_PRODPLACEHOLDER',
        audience: 'prod-console-app-client-id',
        jwksUri:
          'https://cognito-idp.eu-central-1.amazonaws.com/eu-central-1_PRODPLACEHOLDER/.well-known/jwks.json',
      },
      {
        kind: 'platform',
        issuer: 'https://platform.example.com',
        audience: 'notification-admin-api',
        jwksUri: 'https://platform.example.com/.well-known/jwks.json',
      },
    ],
    embedAudience: 'embed',
    customCronMinIntervalMinutes: 15,
    logLevel: 'info',
    logRetention: RetentionDays.THREE_MONTHS,
    principalCacheSeconds: 30,
    embedKeysCacheSeconds: 300,
    throttle: { rateLimit: 100, burstLimit: 200 },
    corsAllowOrigins: [],
  },
};

/** A stage that is not there or not deployable: the CLI shows the message alone, without a stack trace. */
export class StageConfigError extends Error {}

/** The stage named on the command line, or an error that says which ones exist. */
export function selectStage(name: unknown, known: Record<string, StageConfig> = stages): StageConfig {
  const names = Object.keys(known).join(', ');
  if (name === undefined || name === '') {
    throw new StageConfigError(`No stage selected: pass -c stage=<name>, one of: ${names}`);
  }
  const stage = typeof name === 'string' && Object.hasOwn(known, name) ? known[name] : undefined;
  if (!stage)
    throw new StageConfigError(`Unknown stage "${String(name)}": pass -c stage=<name>, one of: ${names}`);
  return stage;
}
