import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DashboardLookup, EmbeddingSwitch } from '#lib/domain/embedding';
import { documentClient, tableName } from '#lib/store/client';
import { decodeDashboard } from '#lib/store/codecs/dashboards';
import { getItem } from '#lib/store/items';
import { keys } from '#lib/store/keys';

/** Both access patterns go by publicId, the dashboard's partition key. */
export const dashboardLookup: DashboardLookup = {
  async find(publicId) {
    const item = await getItem(keys.dashboard(publicId));
    return item ? decodeDashboard(item) : undefined;
  },
};

export const embeddingSwitch: EmbeddingSwitch = {
  async setAllowEmbed(publicId, allowEmbed) {
    // One conditional write, no read first: a dashboard deleted meanwhile is a 404, never recreated.
    try {
      const { Attributes } = await documentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.dashboard(publicId),
          UpdateExpression: 'SET #allowEmbed = :allowEmbed',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#allowEmbed': 'allowEmbed' },
          ExpressionAttributeValues: { ':allowEmbed': allowEmbed },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? decodeDashboard(Attributes) : undefined;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  },
};
