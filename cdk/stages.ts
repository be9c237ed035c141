import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import * as z from 'zod';
import type { TrustedIssuer } from '#lib/config';

/**
 * A stage's settings live in `cdk/stages/<stage>.json` (or the file `-c stageFile=<path>` names), outside
 * the code, and are checked here at synth: a setting that is missing, malformed or still a placeholder
 * fails the synth with its name. The demo stage only warns about placeholders and missing recipients,
 * so that it synthesizes out of the box. docs/deploy-your-account.md describes every setting.
 */

export const STAGES_DIRECTORY = fileURLToPath(new URL('./stages/', import.meta.url));

/** The demo stage: committed with placeholder values, which it warns about instead of failing. */
const DEMO_STAGE = 'dev';

/**
 * Values copied from a template and never replaced: RFC 2606's example domains, the words templates
 * use, and the account id of AWS's own documentation.
 */
const PLACEHOLDER_PATTERNS: readonly RegExp[] = [
  /(^|[./@])example\.(com|org|net)($|[^a-z0-9-])/i,
  /\.(example|invalid)($|[/:])/i,
  /placeholder/i,
  /change-?me/i,
  /(^|[^0-9])123456789012($|[^0-9])/,
];

const ACCOUNT_ID = /^\d{12}$/;
/** An account, or a role or user of one, as a resource policy names a principal. */
const PRINCIPAL = /^(\d{12}|arn:aws[a-z-]*:iam::\d{12}:(root|role\/.+|user\/.+))$/;
const SNS_TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;
const STAGE_NAME = /^[a-z][a-z0-9-]{0,30}$/;

const httpsUrl = z.url({ protocol: /^https$/, error: 'must be an https:// URL' });
const wholeNumber = (min: number, max: number) =>
  z.int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`);

/** CloudWatch Logs keeps a group for one of these numbers of days only. */
const RETENTION_DAYS = Object.values(RetentionDays).filter(
  (days): days is number => typeof days === 'number',
);

const issuerSettings = z.strictObject({
  kind: z.enum(['console', 'platform']),
  issuer: httpsUrl,
  audience: z.string().min(1),
  jwksUri: httpsUrl,
});

const stageSettingsSchema = z.strictObject({
  /** A production stage keeps its table (deletion protection, RETAIN) and its logs whatever happens to the stack. */
  production: z.boolean(),
  tableName: z.string().regex(/^[A-Za-z0-9_.-]{3,255}$/, 'must be a DynamoDB table name'),
  /** The console's identity provider and the platform's token issuer (kind `console` / `platform`). */
  trustedIssuers: z.array(issuerSettings).min(1, 'must list at least one issuer'),
  /** The `aud` every embed JWT must carry. */
  embedAudience: z.string().min(1),
  customCronMinIntervalMinutes: wholeNumber(1, 1440),
  logLevel: z.enum(['debug', 'info', 'warn', 'error']),
  logRetentionDays: z
    .number()
    .refine((days) => RETENTION_DAYS.includes(days), `must be one of ${RETENTION_DAYS.join(', ')}`),
  /** Runs and their deliveries expire this many days after their instant. */
  runRetentionDays: wholeNumber(1, 3650),
  /** Audit events expire this many days after their instant (absent: the functions' default, 365). */
  auditRetentionDays: z.optional(wholeNumber(1, 3650)),
  /** How long a container trusts a cached user's role and state (0: look up on every request). */
  principalCacheSeconds: wholeNumber(0, 3600),
  /** How long a container keeps an embed tenant's keys: the bound on a rotated-out key still working. */
  embedKeysCacheSeconds: wholeNumber(0, 86_400),
  /** API Gateway's stage-wide limit, so that a runaway client cannot exhaust the table or the account's Lambdas. */
  throttle: z.strictObject({ rateLimit: wholeNumber(1, 100_000), burstLimit: wholeNumber(1, 5000) }),
  /** Browser origins allowed to call the API; empty: no CORS headers at all, for server-to-server callers. */
  corsAllowOrigins: z.array(
    z.url({ protocol: /^https?$/, error: 'must be an origin: http(s)://host[:port]' }),
  ),
  /** The address recipients reach the API at (a custom domain): the base of unsubscribe links. */
  publicBaseUrl: z.optional(httpsUrl),
  /** Who is told of alarms: e-mail addresses subscribed to the stage's topic, and an existing topic also alarmed. */
  alarms: z.strictObject({
    emails: z.array(z.email('must be an e-mail address')),
    topicArn: z.optional(z.string().regex(SNS_TOPIC_ARN, 'must be an SNS topic ARN')),
  }),
  /** Accounts or role ARNs allowed to receive, delete and extend delivery jobs on the queue (the renderer). */
  rendererPrincipals: z.array(
    z.string().regex(PRINCIPAL, 'must be an account id or an IAM role or user ARN'),
  ),
  /** X-Ray active tracing on every function. */
  tracing: z.boolean().default(true),
  /** The most dispatcher workers that run at once, out of the account's concurrency (64 in the busiest minute). */
  dispatcherReservedConcurrency: wholeNumber(1, 1000),
  /** Pins the stage to one account and region; without it, the stack deploys wherever the credentials point. */
  env: z.optional(
    z.strictObject({
      account: z.string().regex(ACCOUNT_ID, 'must be a 12-digit account id'),
      region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be a region such as eu-central-1'),
    }),
  ),
});

type StageSettings = z.infer<typeof stageSettingsSchema>;

/** Deployed stages fetch issuer keys from a JWKS URI; inline keys are for local runs and tests. */
type DeployedIssuer = Omit<TrustedIssuer, 'jwks' | 'jwksUri'> & { jwksUri: string };

export interface StageConfig extends Omit<StageSettings, 'logRetentionDays' | 'trustedIssuers'> {
  /** Also the suffix of the stack name. */
  name: string;
  trustedIssuers: DeployedIssuer[];
  logRetention: RetentionDays;
}

/** A stage's settings, and what the demo stage was let off with (placeholders, no recipients). */
export interface LoadedStage {
  stage: StageConfig;
  warnings: string[];
}

/** A stage that is not there or not deployable: the CLI shows the message alone, without a stack trace. */
export class StageConfigError extends Error {}

/** The stages that have a settings file, for the message of a synth that names none of them. */
function knownStages(): string {
  return readdirSync(STAGES_DIRECTORY)
    .filter((file) => file.endsWith('.json') && !file.endsWith('.example.json'))
    .map((file) => file.replace(/\.json$/, ''))
    .sort()
    .join(', ');
}

/**
 * The stage named on the command line, from its settings file: `cdk/stages/<name>.json` unless `file`
 * names another. Fails naming every problem at once.
 */
export function loadStage(name: unknown, file?: unknown): LoadedStage {
  if (name === undefined || name === '') {
    throw new StageConfigError(`No stage selected: pass -c stage=<name>, one of: ${knownStages()}`);
  }
  if (typeof name !== 'string' || !STAGE_NAME.test(name)) {
    throw new StageConfigError(
      `Stage "${String(name)}": a stage name is lower-case letters, digits and dashes, starting with a letter`,
    );
  }
  const path = typeof file === 'string' && file !== '' ? file : `${STAGES_DIRECTORY}${name}.json`;
  if (!existsSync(path)) {
    const example = `${STAGES_DIRECTORY}${name}.example.json`;
    const hint = existsSync(example)
      ? `copy ${example} to it and fill it in`
      : `pass -c stage=<name>, one of: ${knownStages()}`;
    throw new StageConfigError(`Unknown stage "${name}": no settings file ${path}; ${hint}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new StageConfigError(`Stage "${name}": ${path} is not valid JSON: ${(error as Error).message}`);
  }
  return parseStage(name, raw, path);
}

/** The settings checked: malformed ones always fail; placeholders and missing recipients fail but in the demo stage. */
function parseStage(name: string, raw: unknown, source: string): LoadedStage {
  const parsed = stageSettingsSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${settingName(issue.path)}: ${problemOf(issue)}`);
    throw new StageConfigError(`Stage "${name}" (${source}):\n  ${problems.join('\n  ')}`);
  }
  const { logRetentionDays, ...settings } = parsed.data;
  const unfinished = [...placeholders(raw, []), ...missingRecipients(settings)];
  if (unfinished.length > 0 && name !== DEMO_STAGE) {
    throw new StageConfigError(`Stage "${name}" (${source}):\n  ${unfinished.join('\n  ')}`);
  }
  return {
    stage: { name, ...settings, logRetention: logRetentionDays as RetentionDays },
    warnings: unfinished,
  };
}

function settingName(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(the file)' : path.map(String).join('.');
}

function problemOf(issue: z.core.$ZodIssue): string {
  // zod says "expected string, received undefined"; an operator reads "missing".
  return issue.code === 'invalid_type' && issue.message.endsWith('received undefined')
    ? 'missing'
    : issue.message;
}

/** Every string in the settings that is still a template's value, by the setting's name. */
function placeholders(value: unknown, path: PropertyKey[]): string[] {
  if (typeof value === 'string') {
    return PLACEHOLDER_PATTERNS.some((pattern) => pattern.test(value))
      ? [`${settingName(path)}: still a placeholder ("${value}")`]
      : [];
  }
  if (Array.isArray(value)) return value.flatMap((item, index) => placeholders(item, [...path, index]));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => placeholders(item, [...path, key]));
  }
  return [];
}

/** Alarms nobody receives and a queue nobody may read are settings left out, not choices. */
function missingRecipients(settings: Omit<StageSettings, 'logRetentionDays'>): string[] {
  const problems: string[] = [];
  if (settings.alarms.emails.length === 0 && settings.alarms.topicArn === undefined) {
    problems.push('alarms: no e-mail address and no topicArn: nobody would be told of an alarm');
  }
  if (settings.rendererPrincipals.length === 0) {
    problems.push('rendererPrincipals: none: no renderer could read the delivery queue');
  }
  return problems;
}
