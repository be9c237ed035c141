import type { MiddlewareObj, Request } from '@middy/core';
import type { Context } from 'aws-lambda';
import { SERVICE_NAME, startedForRequests } from '#lib/telemetry-names';

/**
 * The one logger: a JSON line per entry, which CloudWatch Logs Insights queries by field. The lines
 * are those Powertools Logger wrote, field for field and in its order (level, message, timestamp,
 * service, the invocation's cold_start, function_arn, function_memory_size, function_name and
 * function_request_id, xray_trace_id, then the request's keys and the entry's own fields; no empty
 * field), so queries and alarms read them as before; a few lines of our own instead of its 21 KB in
 * every function's cold start. Callers pass only what is safe to keep: never a credential, a request
 * body or stored personal data (e-mails, externalIds, security contexts). The level comes from
 * POWERTOOLS_LOG_LEVEL or LOG_LEVEL (`debug`, `info`, `warn`, `error`, `silent`), and Lambda's own
 * log level (AWS_LAMBDA_LOG_LEVEL), when set, is never undercut. LOG_FORMAT=short writes one short
 * line per entry instead, for a person reading a terminal (`npm start`'s default).
 */

const levels = { TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 } as const;
type Level = keyof typeof levels;

const levelOf = (name: string | undefined) => levels[(name ?? '').toUpperCase() as Level];
const threshold = Math.max(
  levelOf(process.env.POWERTOOLS_LOG_LEVEL || process.env.LOG_LEVEL) ?? levels.INFO,
  levelOf(process.env.AWS_LAMBDA_LOG_LEVEL) ?? 0,
);
const service = process.env.POWERTOOLS_SERVICE_NAME || SERVICE_NAME;
const short = process.env.LOG_FORMAT?.trim().toLowerCase() === 'short';
let coldStart = startedForRequests();

/** The invocation's fields, once the chain's middleware has seen its context. */
let invocation: Record<string, unknown> = {};
/** Keys of the current request (its request id, its operation), dropped when it is answered. */
let requestKeys: Record<string, unknown> = {};

/** JSON that never fails on what a log entry may hold: a bigint as its digits, a cycle left out. */
function safeReplacer() {
  const ancestors: unknown[] = [];
  return function replacer(this: unknown, _key: string, value: unknown) {
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'object' && value !== null) {
      while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
      if (ancestors.includes(value)) return undefined;
      ancestors.push(value);
    }
    return value;
  };
}

function write(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if (levels[level] < threshold) return;
  const line: Record<string, unknown> = {
    level,
    message,
    timestamp: new Date().toISOString(),
    service,
    ...invocation,
    // The trace of this invocation: Lambda sets `Root=…;Parent=…;Sampled=…` when X-Ray is on.
    xray_trace_id: /Root=([^;]+)/.exec(process.env._X_AMZN_TRACE_ID ?? '')?.[1],
    ...requestKeys,
    ...fields,
  };
  for (const [key, value] of Object.entries(line)) {
    if (value === undefined || value === null || value === '') delete line[key];
  }
  // As Node's console does: warnings and errors on stderr, the rest on stdout.
  const stream = levels[level] >= levels.WARN ? process.stderr : process.stdout;
  stream.write(short ? shortLine(level, message, fields) : `${JSON.stringify(line, safeReplacer())}\n`);
}

/** What a request's line shows first, as `POST /v1/… 202 35 ms`. */
const requestLead = ['route', 'status', 'latencyMs'];

/**
 * A line for a person: the time, the level unless info, the request (or the message), and the
 * entry's other fields as `key=value`.
 */
function shortLine(level: Level, message: string, fields: Record<string, unknown>): string {
  const isRequest = typeof fields.route === 'string';
  const lead = isRequest ? `${fields.route} ${fields.status} ${fields.latencyMs} ms` : message;
  const rest = Object.entries(fields)
    .filter(([key, value]) => !(isRequest && requestLead.includes(key)) && value != null && value !== '')
    .map(
      ([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value, safeReplacer())}`,
    );
  const time = new Date().toISOString().slice(11, 19);
  return `${[time, ...(level === 'INFO' ? [] : [level]), lead, ...rest].join(' ')}\n`;
}

export const logger = {
  debug: (message: string, fields?: Record<string, unknown>) => write('DEBUG', message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write('INFO', message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write('WARN', message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write('ERROR', message, fields),
  /** Keys on every line of the current request, until it is answered. */
  appendKeys(keys: Record<string, unknown>): void {
    Object.assign(requestKeys, keys);
  },
};

/**
 * The chain's first middleware: the invocation's Lambda context on every line of the request, and the
 * request's keys dropped once it is answered (its `after` runs last, after the request log's line).
 */
export function lambdaContextLog(): MiddlewareObj<unknown, unknown, Error, Context> {
  const lambdaContextLogBefore = ({ context }: Request<unknown, unknown, Error, Context>) => {
    invocation = {
      cold_start: coldStart,
      function_arn: context.invokedFunctionArn,
      function_memory_size: context.memoryLimitInMB,
      function_name: context.functionName,
      function_request_id: context.awsRequestId,
    };
    coldStart = false;
  };
  const lambdaContextLogAfter = () => {
    requestKeys = {};
  };
  return { before: lambdaContextLogBefore, after: lambdaContextLogAfter, onError: lambdaContextLogAfter };
}
