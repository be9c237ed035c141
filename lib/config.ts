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

/** An absolute http(s) URL, as a setting or a trusted issuer's key address must be. */
const isHttpUrl = (text: string) => /^https?:$/.test(URL.parse(text)?.protocol ?? '');

const jwkSet = z.looseObject({ keys: z.array(z.looseObject({})) });

export const trustedIssuerSchema = z.strictObject({
  kind: z.enum(['console', 'platform']),
  issuer: z.string().check(z.minLength(1)),
  audience: z.string().check(z.minLength(1)),
  jwksUri: z.optional(z.string().check(z.refine(isHttpUrl))),
  jwks: z.optional(jwkSet),
});
export type TrustedIssuer = z.infer<typeof trustedIssuerSchema>;

/**
 * How a variable's text is read: its value, or undefined when the text is malformed. The environment
 * holds only flat text, so each reader is a line of code rather than a schema: a schema's defaults and
 * URL type would be bundled into every function for these few variables alone.
 */
export type Parse<T> = (text: string) => T | undefined;

const text: Parse<string> = (value) => value;
export const textOfAtLeast =
  (length: number): Parse<string> =>
  (value) =>
    value.length >= length ? value : undefined;
export const httpUrl: Parse<string> = (value) => (isHttpUrl(value) ? value : undefined);
/**
 * A whole number at least `min` and below `below`, given as digits. `Number()` alone would also
 * accept `''` (as 0), `1e3` and `0x10`.
 */
export const wholeNumber =
  (min = 0, below = Number.MAX_SAFE_INTEGER): Parse<number> =>
  (value) => {
    const number = /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
    return number >= min && number < below ? number : undefined;
  };

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
  /** Audit events are kept this many days after their instant, also after their notification's delete (DynamoDB TTL). */
  auditRetentionDays: number;
  /** A send-now less than this after the notification's previous one is refused (429). */
  sendNowMinIntervalMs: number;
  /** Consecutive scheduled runs that failed to everyone after which a notification is suspended. */
  suspendAfterFailedRuns: number;
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

/**
 * Reads variables of `env`: `read` gives a variable's value (undefined when unset; a malformed value is
 * remembered and reads as unset), `invalid` the names of the malformed ones so far.
 */
export function variablesOf(env: NodeJS.ProcessEnv) {
  const invalid: string[] = [];
  const read = <T>(name: string, parse: Parse<T>): T | undefined => {
    const given = env[name];
    const value = given === undefined ? undefined : parse(given);
    if (given !== undefined && value === undefined) invalid.push(name);
    return value;
  };
  return { read, invalid };
}

/** Fails naming the malformed variables, when there are any. */
export function refuseInvalid(invalid: readonly string[]): void {
  if (invalid.length === 0) return;
  const names = [...new Set(invalid)];
  throw new ConfigurationError(names, `check the environment variable(s) ${names.join(', ')}`);
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const { read, invalid } = variablesOf(env);
  const tableName = read('TABLE_NAME', textOfAtLeast(1));
  if (env.TABLE_NAME === undefined) invalid.push('TABLE_NAME');
  const settings = {
    dynamoDbEndpoint: read('DYNAMODB_ENDPOINT', httpUrl),
    region: read('AWS_REGION', text) ?? 'us-east-1',
    embedAudience: read('EMBED_AUDIENCE', textOfAtLeast(1)) ?? 'embed',
    customCronMinIntervalMinutes: read('CUSTOM_CRON_MIN_INTERVAL_MINUTES', wholeNumber()) ?? 15,
    trustedIssuersJson: read('TRUSTED_ISSUERS', text) ?? '[]',
    principalCacheMs: (read('PRINCIPAL_CACHE_SECONDS', wholeNumber()) ?? 30) * 1000,
    embedKeysCacheMs: (read('EMBED_KEYS_CACHE_SECONDS', wholeNumber()) ?? 300) * 1000,
    misfireGraceMinutes: read('MISFIRE_GRACE_MINUTES', wholeNumber()) ?? 60,
    dispatchConcurrency: Math.max(1, read('DISPATCH_CONCURRENCY', wholeNumber()) ?? 32),
    dispatchWorkerSeconds: read('DISPATCH_WORKER_SECONDS', wholeNumber(1, DISPATCHER_TIMEOUT_SECONDS)) ?? 20,
    runRetentionDays: read('RUN_RETENTION_DAYS', wholeNumber(1)) ?? 90,
    auditRetentionDays: read('AUDIT_RETENTION_DAYS', wholeNumber(1)) ?? 365,
    sendNowMinIntervalMs: (read('SEND_NOW_MIN_INTERVAL_SECONDS', wholeNumber()) ?? 10) * 1000,
    suspendAfterFailedRuns: read('SUSPEND_AFTER_FAILED_RUNS', wholeNumber(1)) ?? 3,
    deliveryQueueUrl: read('DELIVERY_QUEUE_URL', httpUrl),
    outboxDir: read('OUTBOX_DIR', textOfAtLeast(1)) ?? '.local/outbox',
    publicBaseUrl: (read('PUBLIC_BASE_URL', httpUrl) ?? 'http://localhost:3000').replace(/\/+$/, ''),
    unsubscribeSecretArn: read('UNSUBSCRIBE_SECRET_ARN', textOfAtLeast(1)),
    unsubscribeSigningKey: read('UNSUBSCRIBE_SIGNING_KEY', textOfAtLeast(32)),
  };
  refuseInvalid(invalid);
  // TABLE_NAME unset is among the invalid ones.
  if (tableName === undefined) throw new ConfigurationError(['TABLE_NAME'], 'TABLE_NAME is missing');
  const { trustedIssuersJson, ...rest } = settings;
  return { tableName, ...rest, trustedIssuers: parseTrustedIssuers(trustedIssuersJson) };
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
