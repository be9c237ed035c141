import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '#lib/config';
import { UnavailableError } from '#lib/errors';
import { retryPolicy } from '#lib/store/retry';

/**
 * DynamoDB's ways of saying "slow down" or "try again" that are still there after the SDK's retries:
 * the request is safe to repeat later, and the store says so with its own error.
 */
const busyErrors = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
]);

const errorName = (error: unknown) => (error instanceof Error ? error.name : '');

/**
 * The one DynamoDB client of a container, built on first use and reused while the container is warm.
 * Retries are the SDK's (standard mode); what is still throttled after them leaves the store as an
 * `UnavailableError`. Tests and benchmarks reach the same instance to count or fault its requests via
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
          if (busyErrors.has(errorName(error))) {
            throw new UnavailableError('The service is busy; the request is safe to repeat', {
              cause: error,
            });
          }
          throw error;
        }
      },
      // The outermost step: it sees what is left once the SDK's retries are done.
      { step: 'initialize', priority: 'high', name: 'storeBusyErrors' },
    );
  }
  return client;
}

export function tableName(): string {
  return config().tableName;
}
