import type { DashboardLookup, EmbeddingSwitch } from '#lib/domain/embedding/embedding';
import type { Dashboard } from '#lib/domain/entities';
import type { DashboardRef } from '#lib/domain/notifications/notification-lifecycle';
import { ALLOW_EMBED_ATTRIBUTE, decodeDashboard, decodeDashboardLink } from '#lib/store/codecs/dashboards';
import { ifConditionHolds } from '#lib/store/dynamo/conditional';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem, updateItem } from '#lib/store/dynamo/items';
import { tableKeySchema } from '#lib/store/dynamo/keys';
import { exists } from '#lib/store/dynamo/update-expression';

/**
 * Dashboards, keyed by publicId, and found by their integer id within a deployment through a link
 * item. Every lookup of a dashboard goes through here: a dashboard of another deployment is never
 * one of the caller's.
 */

/** The deployment's dashboard with this public id. */
export async function dashboardByPublicId(
  deploymentId: number,
  publicId: string,
): Promise<Dashboard | undefined> {
  const item = await getItem(keys.dashboard(publicId));
  const dashboard = item && decodeDashboard(item);
  return dashboard?.deploymentId === deploymentId ? dashboard : undefined;
}

/** The link that finds the deployment's dashboard by its integer id: one GetItem. */
async function dashboardLink(deploymentId: number, dashboardId: number) {
  const link = await getItem(keys.dashboardById(deploymentId, dashboardId));
  return link && decodeDashboardLink(link, deploymentId);
}

/** The id of the deployment's dashboard a request names, by id or by public id; undefined when it has none such. */
export async function dashboardIdOf(deploymentId: number, ref: DashboardRef): Promise<number | undefined> {
  const found =
    'dashboardId' in ref
      ? await dashboardLink(deploymentId, ref.dashboardId)
      : await dashboardByPublicId(deploymentId, ref.dashboardPublicId);
  return found?.id;
}

/** The deployment's dashboard with this integer id: its link, then the dashboard. */
export async function findDashboard(
  deploymentId: number,
  dashboardId: number,
): Promise<Dashboard | undefined> {
  const link = await dashboardLink(deploymentId, dashboardId);
  const dashboard = link && (await dashboardByPublicId(deploymentId, link.publicId));
  return dashboard?.id === dashboardId ? dashboard : undefined;
}

/** Both access patterns of the embedding routes go by publicId, the dashboard's partition key. */
export const dashboardLookup: DashboardLookup = {
  async find(publicId) {
    const item = await getItem(keys.dashboard(publicId));
    return item ? decodeDashboard(item) : undefined;
  },
};

export const embeddingSwitch: EmbeddingSwitch = {
  async setAllowEmbed(publicId, allowEmbed) {
    // One conditional write, no read first: a dashboard deleted meanwhile is a 404, never recreated.
    const written = await ifConditionHolds(() =>
      updateItem(
        keys.dashboard(publicId),
        {
          set: { [ALLOW_EMBED_ATTRIBUTE]: allowEmbed },
          condition: [exists(tableKeySchema.partitionKey)],
        },
        'ALL_NEW',
      ),
    );
    return written ? decodeDashboard(written) : undefined;
  },
};
