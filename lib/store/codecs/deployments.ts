import * as z from 'zod/mini';
import { checkItem } from '#lib/store/codecs/stored-item';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Item } from '#lib/store/dynamo/items';

/** A deployment: written by the fixture loader; the operations know deployments only by id. */

const deploymentItem = () => z.looseObject({ id: z.int(), name: z.string() });

export interface Deployment {
  id: number;
  name: string;
}

export const encodeDeployment = (deployment: Deployment): Item => ({
  ...keys.deployment(deployment.id),
  entity: 'DEPLOYMENT',
  id: deployment.id,
  name: deployment.name,
});

export function decodeDeployment(item: Item): Deployment {
  const { id, name } = checkItem('deployment', deploymentItem, item);
  return { id, name };
}
