import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { config } from '#lib/config';
import { ServiceError, UnavailableError } from '#lib/errors';
import { currentDeadline } from '#lib/invocation-deadline';
import { retryPolicy } from '#lib/store/dynamo/retry';
import { STORAGE_ANSWER_MARGIN_MS, STORAGE_CONNECT_TIMEOUT_MS } from '#lib/timeouts';

/**
 * DynamoDB's ways of saying "slow down" or "try again" that are still there after the SDK's retries.
 */
const busyErrors = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  // The SDK's name for a connection, socket or request timeout.
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);

/** The ways a connection to the engine fails: it is gone, unreachable, or hung up mid-answer. */
const connectionErrors = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

interface SdkFailure {
  name?: unknown;
  code?: unknown;
  $metadata?: { httpStatusCode?: number };
}

/**
 * Whether storage failed to answer, rather than refused the request: then nothing is wrong with the
 * request, and the caller gets a 503 with `Retry-After` whatever the route. The one place that decides it.
 */
function isStorageOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { name, code, $metadata } = error as SdkFailure;
  if (busyErrors.has(String(name)) || connectionErrors.has(String(code))) return true;
  // An answer of the endpoint's own failing (a 5xx from a proxy in front of it) is an outage too.
  return ($metadata?.httpStatusCode ?? 0) >= 500;
}

/**
 * The SDK's HTTP handler with each attempt bounded by what the invocation has left: a stalled engine
 * ends the call in time for the handler to answer 503 itself, and leaves no request open behind it.
 */
class DeadlineBoundHandler extends NodeHttpHandler {
  override async handle(...[request, options = {}]: Parameters<NodeHttpHandler['handle']>) {
    const left = currentDeadline().remainingMs() - STORAGE_ANSWER_MARGIN_MS;
    if (left <= 0) throw new UnavailableError('Storage did not answer before the request ran out of time');
    return super.handle(request, { ...options, requestTimeout: Number.isFinite(left) ? left : undefined });
  }
}

/**
 * The one DynamoDB client of a container, built on first use and reused while the container is warm.
 * Retries are the SDK's (standard mode); what still fails for an outage after them leaves the store as
 * an `UnavailableError`. Tests and benchmarks reach the same instance to count or fault its requests via
 * its middleware stack.
 */
let client: DynamoDBDocumentClient | undefined;

export function documentClient(): DynamoDBDocumentClient {
  if (!client) {
    const { region, dynamoDbEndpoint } = config();
    const base = new DynamoDBClient({
      region,
      retryMode: 'standard',
      maxAttempts: retryPolicy.sdkMaxAttempts,
      requestHandler: new DeadlineBoundHandler({
        connectionTimeout: STORAGE_CONNECT_TIMEOUT_MS,
        throwOnRequestTimeout: true,
      }),
      ...(dynamoDbEndpoint && {
        endpoint: dynamoDbEndpoint,
        // DynamoDB Local accepts any credentials; fixed ones spare a lookup of the credential chain.
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }),
    });
    client = DynamoDBDocumentClient.from(base, {
      marshallOptions: { removeUndefinedValues: true },
    });
    client.middlewareStack.add(
      (next) => async (args) => {
        try {
          return await next(args);
        } catch (error) {
          if (!(error instanceof ServiceError) && isStorageOutage(error)) {
            throw new UnavailableError('Storage is unavailable', { cause: error });
          }
          throw error;
        }
      },
      // The outermost step: it sees what is left once the SDK's retries are done.
      { step: 'initialize', priority: 'high', name: 'storeOutages' },
    );
  }
  return client;
}

export function tableName(): string {
  return config().tableName;
}
