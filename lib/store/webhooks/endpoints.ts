import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type {
  WebhookEndpoint,
  WebhookEndpointReader,
  WebhookEndpointStore,
} from '#lib/domain/webhooks/endpoints';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { conditionHeld } from '#lib/store/dynamo/conditional';
import { updateItem } from '#lib/store/dynamo/items';
import { absent, compare, either, exists, is } from '#lib/store/dynamo/update-expression';
import { decodeEndpoints, ENDPOINT_COUNT_ATTRIBUTE, endpointVersionPath } from '#lib/store/webhooks/codec';
import { webhookEndpoints } from '#lib/store/webhooks/keys';

/**
 * A deployment's webhook endpoints: one item, each endpoint an attribute named by its id, and a count
 * that the create's condition holds to the limit. An endpoint is stored as the domain shapes it,
 * secrets included; only the API's answers leave them out (lib/domain/webhooks/endpoints.ts).
 */

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
      updateItem(webhookEndpoints(endpoint.deploymentId), {
        set: { [endpoint.id]: endpoint },
        add: { [ENDPOINT_COUNT_ATTRIBUTE]: 1 },
        condition: [
          absent(endpoint.id),
          either(absent(ENDPOINT_COUNT_ATTRIBUTE), compare(ENDPOINT_COUNT_ATTRIBUTE, '<', max)),
        ],
      }),
    );
  },

  replace(endpoint) {
    return conditionHeld(() =>
      updateItem(webhookEndpoints(endpoint.deploymentId), {
        set: { [endpoint.id]: endpoint },
        condition: [is(endpointVersionPath(endpoint.id), endpoint.version - 1)],
      }),
    );
  },

  remove(ref) {
    return conditionHeld(() =>
      updateItem(webhookEndpoints(ref.deploymentId), {
        remove: [ref.webhookId],
        add: { [ENDPOINT_COUNT_ATTRIBUTE]: -1 },
        condition: [exists(ref.webhookId)],
      }),
    );
  },
};
