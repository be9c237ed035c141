import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The floor's code without constructing the client: the functions build theirs on first request, so
 * the difference to the floor is what that construction costs, paid by the first request instead.
 */
export const clientClasses = { DynamoDBClient, DynamoDBDocumentClient };
