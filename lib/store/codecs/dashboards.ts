import * as z from 'zod/mini';
import type { Dashboard } from '#lib/domain/entities';
import { checkItem } from '#lib/store/codecs/stored-item';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Item } from '#lib/store/dynamo/items';

/** Dashboards (keyed by publicId) and the links that find them by integer id within a deployment. */

const dashboardItem = () =>
  z.looseObject({
    id: z.int(),
    deploymentId: z.int(),
    publicId: z.string(),
    title: z.optional(z.string()),
    // Missing flags read as off: a dashboard is shared and embeddable only when something said so.
    published: z.optional(z.boolean()),
    allowEmbed: z.optional(z.boolean()),
    sharedWithAllEmbedUsers: z.optional(z.boolean()),
    sharedWithTenants: z.optional(z.array(z.string())),
  });

/** The attribute the embedding switch writes. */
export const ALLOW_EMBED_ATTRIBUTE = 'allowEmbed';

export function encodeDashboard(dashboard: Dashboard): Item {
  return {
    ...keys.dashboard(dashboard.publicId),
    entity: 'DASHBOARD',
    id: dashboard.id,
    deploymentId: dashboard.deploymentId,
    publicId: dashboard.publicId,
    title: dashboard.title,
    published: dashboard.published,
    allowEmbed: dashboard.allowEmbed,
    sharedWithAllEmbedUsers: dashboard.sharedWithAllEmbedUsers,
    sharedWithTenants: dashboard.sharedWithTenants,
  };
}

export function decodeDashboard(item: Item): Dashboard {
  const stored = checkItem('dashboard', dashboardItem, item);
  return {
    id: stored.id,
    deploymentId: stored.deploymentId,
    publicId: stored.publicId,
    title: stored.title ?? '',
    published: stored.published === true,
    allowEmbed: stored.allowEmbed === true,
    sharedWithAllEmbedUsers: stored.sharedWithAllEmbedUsers === true,
    sharedWithTenants: stored.sharedWithTenants ?? [],
  };
}

export interface DashboardLink {
  id: number;
  deploymentId: number;
  publicId: string;
}

const dashboardLinkItem = () => z.looseObject({ dashboardId: z.int(), publicId: z.string() });

/** The link that finds a dashboard by its integer id within its deployment. */
export function encodeDashboardLink(dashboard: DashboardLink): Item {
  return {
    ...keys.dashboardById(dashboard.deploymentId, dashboard.id),
    entity: 'DASHBOARD_LINK',
    dashboardId: dashboard.id,
    publicId: dashboard.publicId,
  };
}

/** The deployment is the caller's: it is in the link's key, not among its attributes. */
export function decodeDashboardLink(item: Item, deploymentId: number): DashboardLink {
  const stored = checkItem('dashboard link', dashboardLinkItem, item);
  return { id: stored.dashboardId, deploymentId, publicId: stored.publicId };
}
