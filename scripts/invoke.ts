import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ValidationError } from '#lib/errors';
import { ensureTable, loadFixture } from '#lib/fixtures/load-fixture';
import { EngineUnavailableError, startDynamoDbLocal } from '#lib/local/dynamodb-local';
import { functionsFrom } from '#lib/local/handlers';
import { lambdaContext } from '#lib/local/http-adapter';
import { type Route, routeKey, routes, timeoutSecondsOf } from '#lib/routes';
import { DEFAULT_TABLE_NAME, DEMO_FIXTURE, readFixture, trustIssuersOf } from './local-env.ts';

/**
 * `npm run invoke -- <operation> <event.json>`: what `sam local invoke` does, without Docker. The
 * operation's handler runs in this process on an API Gateway HTTP API (payload 2.0) event, against
 * the local table, and its response is printed on stdout, last. As in Lambda, the function's INFO and
 * DEBUG log lines and its metric lines go to stdout before it, WARN and ERROR to stderr.
 */

const USAGE = `Usage: npm run invoke -- <operation> <event.json>
  operation: ${routes.map((route) => route.operation).join(', ')}
  Without DYNAMODB_ENDPOINT a DynamoDB Local engine is started and the fixture SEED_FILE (default:
  the demo fixture) loaded into it; with DYNAMODB_ENDPOINT (e.g. the one \`npm start\` prints) the
  table TABLE_NAME is used as it is.`;

class UsageError extends Error {}

const resolveHandler = functionsFrom(new URL('../functions/', import.meta.url));

export function routeNamed(name: string | undefined): Route {
  const route = routes.find((candidate) => candidate.operation === name);
  if (!route) throw new UsageError(name ? `Unknown operation "${name}".\n${USAGE}` : USAGE);
  return route;
}

/** The operation's handler on the event, with the timeout the stack gives the deployed function. */
export async function invoke(
  route: Route,
  event: APIGatewayProxyEventV2,
): Promise<APIGatewayProxyStructuredResultV2> {
  const handler = await resolveHandler(route.operation);
  const requestId = event.requestContext?.requestId ?? randomUUID();
  return handler(event, lambdaContext(route.operation, timeoutSecondsOf(route) * 1000, requestId));
}

export async function readEvent(path: string, route: Route): Promise<APIGatewayProxyEventV2> {
  let event: APIGatewayProxyEventV2;
  try {
    event = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`Cannot read the event ${path}: ${(error as Error).message}`);
  }
  const expected = routeKey(route);
  if (event.routeKey !== expected) {
    // API Gateway would never deliver it, but a hand-made event may still be worth running.
    console.error(
      `Warning: the event's routeKey is "${event.routeKey}"; ${route.operation} serves "${expected}".`,
    );
  }
  return event;
}

/** The response as a reader wants it: a JSON body parsed, anything else as it came. */
export function printable(result: APIGatewayProxyStructuredResultV2): Record<string, unknown> {
  let body: unknown = result.body;
  if (typeof result.body === 'string' && !result.isBase64Encoded) {
    try {
      body = JSON.parse(result.body);
    } catch {
      // Not JSON: shown as the string it is.
    }
  }
  return { statusCode: result.statusCode, headers: result.headers ?? {}, body };
}

async function main(): Promise<void> {
  const [name, eventPath] = process.argv.slice(2);
  const route = routeNamed(name);
  if (!eventPath) throw new UsageError(USAGE);
  const event = await readEvent(eventPath, route);

  process.env.TABLE_NAME ??= DEFAULT_TABLE_NAME;
  const fixture = await readFixture(process.env.SEED_FILE ?? DEMO_FIXTURE);
  trustIssuersOf(fixture);
  const engine = process.env.DYNAMODB_ENDPOINT ? undefined : await startDynamoDbLocal();
  try {
    if (engine) {
      process.env.DYNAMODB_ENDPOINT = engine.endpoint;
      await ensureTable();
      await loadFixture(fixture);
    }
    // Stray console output of the code goes to stderr; the logger and metrics write stdout themselves, as in Lambda.
    console.log = console.error;
    console.info = console.error;
    console.debug = console.error;
    const result = await invoke(route, event);
    process.stdout.write(`${JSON.stringify(printable(result), null, 2)}\n`);
  } finally {
    engine?.stop();
  }
}

if (import.meta.main) {
  main().catch((error: unknown) => {
    if (
      error instanceof UsageError ||
      error instanceof EngineUnavailableError ||
      error instanceof ValidationError
    )
      console.error(error.message);
    else console.error(`npm run invoke failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
