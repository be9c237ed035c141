import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DashboardRepository } from '#lib/domain/embedding';
import type { Dashboard } from '#lib/domain/entities';
import { documentClient, tableName } from '#lib/store/client';
import { getItem, type Item } from '#lib/store/items';
import { keys } from '#lib/store/keys';

/** Missing flags read as off: a dashboard is shared and embeddable only when something said so. */
export function dashboardFromItem(item: Item): Dashboard {
  return {
    id: item.id as number,
    deploymentId: item.deploymentId as number,
    publicId: item.publicId as string,
    title: (item.title as string | undefined) ?? '',
    published: item.published === true,
    allowEmbed: item.allowEmbed === true,
    sharedWithAllEmbedUsers: item.sharedWithAllEmbedUsers === true,
    sharedWithTenants: Array.isArray(item.sharedWithTenants) ? (item.sharedWithTenants as string[]) : [],
  };
}

/** The link that finds a dashboard by its integer id within its deployment. */
export function dashboardLinkItem(dashboard: { id: number; deploymentId: number; publicId: string }): Item {
  return {
    ...keys.dashboardById(dashboard.deploymentId, dashboard.id),
    entity: 'DASHBOARD_LINK',
    dashboardId: dashboard.id,
    publicId: dashboard.publicId,
  };
}

/** Both access patterns go by publicId, the dashboard's partition key. */
export const dashboardRepository: DashboardRepository = {
  async find(publicId) {
    const item = await getItem(keys.dashboard(publicId));
    return item ? dashboardFromItem(item) : undefined;
  },

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
      return Attributes ? dashboardFromItem(Attributes) : undefined;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  },
};
