import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type {
  WebhookEndpoint,
  WebhookEndpointReader,
  WebhookEndpointStore,
} from '#lib/domain/webhooks/endpoints';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { conditionHeld } from '#lib/store/dynamo/conditional';
import { decodeEndpoints } from '#lib/store/webhooks/codec';
import { webhookEndpoints } from '#lib/store/webhooks/keys';

/**
 * A deployment's webhook endpoints: one item, each endpoint an attribute named by its id, and a count
 * that the create's condition holds to the limit. An endpoint is stored as the domain shapes it,
 * secrets included; only the API's answers leave them out (lib/domain/webhooks/endpoints.ts).
 */

const COUNT = 'endpointCount';

/** The deployment's endpoints, read strongly consistent: an owner reads back what they just wrote. */
async function readEndpoints(deploymentId: number): Promise<WebhookEndpoint[]> {
  const { Item: item } = await documentClient().send(
    new GetCommand({ TableName: tableName(), Key: webhookEndpoints(deploymentId), ConsistentRead: true }),
  );
  return decodeEndpoints(item);
}

export const webhookEndpointReader: WebhookEndpointReader = { all: readEndpoints };

export const webhookEndpointStore: WebhookEndpointStore = {
  all: readEndpoints,

  add(endpoint, max) {
    return conditionHeld(() =>
      documentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: webhookEndpoints(endpoint.deploymentId),
          UpdateExpression: 'SET #endpoint = :endpoint ADD #count :one',
          ConditionExpression:
            'attribute_not_exists(#endpoint) AND (attribute_not_exists(#count) OR #count < :max)',
          ExpressionAttributeNames: { '#endpoint': endpoint.id, '#count': COUNT },
          ExpressionAttributeValues: { ':endpoint': endpoint, ':one': 1, ':max': max },
        }),
      ),
    );
  },

  replace(endpoint) {
    return conditionHeld(() =>
      documentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: webhookEndpoints(endpoint.deploymentId),
          UpdateExpression: 'SET #endpoint = :endpoint',
          ConditionExpression: '#endpoint.version = :was',
          ExpressionAttributeNames: { '#endpoint': endpoint.id },
          ExpressionAttributeValues: { ':endpoint': endpoint, ':was': endpoint.version - 1 },
        }),
      ),
    );
  },

  remove(ref) {
    return conditionHeld(() =>
      documentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: webhookEndpoints(ref.deploymentId),
          UpdateExpression: 'REMOVE #endpoint ADD #count :minusOne',
          ConditionExpression: 'attribute_exists(#endpoint)',
          ExpressionAttributeNames: { '#endpoint': ref.webhookId, '#count': COUNT },
          ExpressionAttributeValues: { ':minusOne': -1 },
        }),
      ),
    );
  },
};
