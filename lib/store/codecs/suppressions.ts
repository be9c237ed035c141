import * as z from 'zod/mini';
import {
  type Suppression,
  suppressionKeyOf,
  suppressionReasons,
} from '#lib/domain/suppressions/suppressions';
import { checkItem } from '#lib/store/codecs/stored-item';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Item } from '#lib/store/dynamo/items';
import { ifAbsent, type Term, updateOf } from '#lib/store/dynamo/update-expression';

/**
 * A suppression item. Written only as an upsert that keeps what is there (`if_not_exists` on every
 * field): the first suppression of an address stands, whoever adds it again, so an outcome report's
 * transaction never fails for an address already suppressed.
 */

const suppressionItem = () =>
  z.looseObject({
    deploymentId: z.int(),
    email: z.string(),
    reason: z.enum(suppressionReasons),
    createdAt: z.string(),
    source: z.nullable(z.object({ runId: z.string(), jobId: z.string() })),
  });

export function decodeSuppression(item: Item): Suppression {
  const stored = checkItem('suppression', suppressionItem, item);
  return {
    deploymentId: stored.deploymentId,
    email: stored.email,
    reason: stored.reason,
    createdAt: stored.createdAt,
    source: stored.source,
  };
}

/**
 * The UpdateItem (alone or in a transaction) that adds `suppression` unless its address is suppressed,
 * on `condition` if given.
 */
export function suppressionUpsert(tableName: string, suppression: Suppression, condition: Term[] = []) {
  const { deploymentId } = suppression;
  return {
    TableName: tableName,
    Key: keys.suppression(deploymentId, suppressionKeyOf(suppression.email)),
    ...updateOf({
      set: {
        entity: 'SUPPRESSION',
        deploymentId,
        email: ifAbsent('email', suppression.email),
        reason: ifAbsent('reason', suppression.reason),
        createdAt: ifAbsent('createdAt', suppression.createdAt),
        source: ifAbsent('source', suppression.source),
      },
      condition,
    }),
  };
}
