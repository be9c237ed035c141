import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '#lib/config';

/**
 * The one DynamoDB client of a container, built on first use and reused while the container is warm.
 * Tests and benchmarks reach the same instance to count or fault its requests via its middleware stack.
 */
let client: DynamoDBDocumentClient | undefined;

export function documentClient(): DynamoDBDocumentClient {
  if (!client) {
    const { region, dynamoDbEndpoint } = config();
    const base = new DynamoDBClient({
      region,
      ...(dynamoDbEndpoint && {
        endpoint: dynamoDbEndpoint,
        // DynamoDB Local accepts any credentials; fixed ones spare a lookup of the credential chain.
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }),
    });
    client = DynamoDBDocumentClient.from(base, {
      marshallOptions: { removeUndefinedValues: true },
    });
  }
  return client;
}

export function tableName(): string {
  return config().tableName;
}
