import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The cold-start floor: the least any of our functions must load, a DynamoDB document client,
 * constructed at import. Bundled with the functions' own esbuild settings.
 */
export const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
