import * as z from 'zod/mini';
import { DISPATCHER_TIMEOUT_SECONDS } from '#lib/timeouts';

/**
 * The function's settings, read from the environment once per container. A missing or malformed
 * variable fails the first request with its name rather than misbehaving later.
 */

/** A setting of the function that is missing or malformed: a fault of the deployment, never of the request. */
class ConfigurationError extends Error {
  readonly variables: string[];

  constructor(variables: string[], problem: string) {
    super(`Invalid configuration: ${problem}`);
    this.name = 'ConfigurationError';
    this.variables = variables;
  }
}

const jwkSet = z.looseObject({ keys: z.array(z.looseObject({})) });

export const trustedIssuerSchema = z.strictObject({
  kind: z.enum(['console', 'platform']),
  issuer: z.string().check(z.minLength(1)),
  audience: z.string().check(z.minLength(1)),
  jwksUri: z.optional(z.url()),
  jwks: z.optional(jwkSet),
});
export type TrustedIssuer = z.infer<typeof trustedIssuerSchema>;

/**
 * A whole number at least `min` (and below `below`), given as digits: the environment holds text.
 * Parsed from digits rather than with `z.coerce`, which would also accept `''` (as 0) and `1e3`, and
 * whose namespace would bundle zod's BigInt and Date types into every function.
 */
const wholeNumber = (fallback: number, min = 0, below = Number.MAX_SAFE_INTEGER) =>
  z._default(
    z.pipe(
      z.pipe(z.string().check(z.regex(/^\d{1,15}$/)), z.transform(Number)),
      z.number().check(z.gte(min), z.lt(below)),
    ),
    fallback,
  );

const environment = z.object({
  TABLE_NAME: z.string().check(z.minLength(1)),
  DYNAMODB_ENDPOINT: z.optional(z.url()),
  AWS_REGION: z._default(z.string(), 'us-east-1'),
  EMBED_AUDIENCE: z._default(z.string().check(z.minLength(1)), 'embed'),
  CUSTOM_CRON_MIN_INTERVAL_MINUTES: wholeNumber(15),
  TRUSTED_ISSUERS: z._default(z.string(), '[]'),
  PRINCIPAL_CACHE_SECONDS: wholeNumber(30),
  EMBED_KEYS_CACHE_SECONDS: wholeNumber(300),
  MISFIRE_GRACE_MINUTES: wholeNumber(60),
  DISPATCH_CONCURRENCY: wholeNumber(32),
  DISPATCH_WORKER_SECONDS: wholeNumber(20, 1, DISPATCHER_TIMEOUT_SECONDS),
  RUN_RETENTION_DAYS: wholeNumber(90, 1),
  SEND_NOW_MIN_INTERVAL_SECONDS: wholeNumber(10),
  DELIVERY_QUEUE_URL: z.optional(z.url()),
  OUTBOX_DIR: z._default(z.string().check(z.minLength(1)), '.local/outbox'),
  PUBLIC_BASE_URL: z._default(z.url(), 'http://localhost:3000'),
  UNSUBSCRIBE_SECRET_ARN: z.optional(z.string().check(z.minLength(1))),
  UNSUBSCRIBE_SIGNING_KEY: z.optional(z.string().check(z.minLength(32))),
});

export interface Config {
  tableName: string;
  dynamoDbEndpoint: string | undefined;
  region: string;
  embedAudience: string;
  customCronMinIntervalMinutes: number;
  trustedIssuers: TrustedIssuer[];
  principalCacheMs: number;
  embedKeysCacheMs: number;
  /** Missed instants older than this are not fired. */
  misfireGraceMinutes: number;
  /** Notifications a dispatcher invocation works on at once. */
  dispatchConcurrency: number;
  /**
   * Seconds of firing the coordinator plans per dispatcher worker: shards are packed into a worker
   * until they fill this at the worker's pace, well inside its timeout.
   */
  dispatchWorkerSeconds: number;
  /** Runs and their deliveries are kept this many days after their instant, then expire (DynamoDB TTL). */
  runRetentionDays: number;
  /** A send-now less than this after the notification's previous one is refused (429). */
  sendNowMinIntervalMs: number;
  /** Where delivery jobs go when deployed; without it they are files in `outboxDir`. */
  deliveryQueueUrl: string | undefined;
  outboxDir: string;
  /** Where recipients reach the API: the base of the unsubscribe links in delivery jobs. */
  publicBaseUrl: string;
  /** Deployed: the secret holding the key unsubscribe tokens are signed with. */
  unsubscribeSecretArn: string | undefined;
  /** Locally and in tests: the key itself (base64). */
  unsubscribeSigningKey: string | undefined;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = environment.safeParse(env);
  if (!parsed.success) {
    const names = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.')))];
    throw new ConfigurationError(names, `check the environment variable(s) ${names.join(', ')}`);
  }
  const vars = parsed.data;
  return {
    tableName: vars.TABLE_NAME,
    dynamoDbEndpoint: vars.DYNAMODB_ENDPOINT,
    region: vars.AWS_REGION,
    embedAudience: vars.EMBED_AUDIENCE,
    customCronMinIntervalMinutes: vars.CUSTOM_CRON_MIN_INTERVAL_MINUTES,
    trustedIssuers: parseTrustedIssuers(vars.TRUSTED_ISSUERS),
    principalCacheMs: vars.PRINCIPAL_CACHE_SECONDS * 1000,
    embedKeysCacheMs: vars.EMBED_KEYS_CACHE_SECONDS * 1000,
    misfireGraceMinutes: vars.MISFIRE_GRACE_MINUTES,
    dispatchConcurrency: Math.max(1, vars.DISPATCH_CONCURRENCY),
    dispatchWorkerSeconds: vars.DISPATCH_WORKER_SECONDS,
    runRetentionDays: vars.RUN_RETENTION_DAYS,
    sendNowMinIntervalMs: vars.SEND_NOW_MIN_INTERVAL_SECONDS * 1000,
    deliveryQueueUrl: vars.DELIVERY_QUEUE_URL,
    outboxDir: vars.OUTBOX_DIR,
    publicBaseUrl: vars.PUBLIC_BASE_URL.replace(/\/+$/, ''),
    unsubscribeSecretArn: vars.UNSUBSCRIBE_SECRET_ARN,
    unsubscribeSigningKey: vars.UNSUBSCRIBE_SIGNING_KEY,
  };
}

function parseTrustedIssuers(json: string): TrustedIssuer[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new ConfigurationError(['TRUSTED_ISSUERS'], 'TRUSTED_ISSUERS is not valid JSON');
  }
  const parsed = z.array(trustedIssuerSchema).safeParse(value);
  if (!parsed.success)
    throw new ConfigurationError(
      ['TRUSTED_ISSUERS'],
      'TRUSTED_ISSUERS does not list {kind, issuer, audience, jwksUri|jwks}',
    );
  for (const issuer of parsed.data) {
    if (!issuer.jwksUri === !issuer.jwks) {
      throw new ConfigurationError(
        ['TRUSTED_ISSUERS'],
        `TRUSTED_ISSUERS: trusted issuer ${issuer.issuer} needs exactly one of jwksUri and jwks`,
      );
    }
  }
  return parsed.data;
}

let cached: Config | undefined;

/** The settings of this container, parsed on first use. */
export function config(): Config {
  cached ??= readConfig();
  return cached;
}
