import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type Suppression,
  type SuppressionAdding,
  type SuppressionListing,
  type SuppressionLookup,
  type SuppressionRemoval,
  suppressionKeyOf,
} from '#lib/domain/suppressions/suppressions';
import { decodeSuppression, suppressionUpsert } from '#lib/store/codecs/suppressions';
import { batchGetAll } from '#lib/store/dynamo/batch';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Item } from '#lib/store/dynamo/items';
import { type ListSource, readPage } from '#lib/store/dynamo/paging';

/**
 * Suppressions in storage: one partition per deployment, sorted by address (item-keys.ts). A run's
 * check reads a page's addresses by key, so it costs the same at ten suppressions as at a million.
 */

/** A position of the whole list: an address lower-cased and percent-encoded, as its sort key holds it. */
const isAddressPosition = (position: string) => /^[^#\s]{1,1024}$/.test(position);

function listSource(deploymentId: number, emailKey: string | undefined): ListSource {
  const partition = keys.suppressionsPartition(deploymentId);
  if (emailKey === undefined) {
    return {
      id: `suppressions/${deploymentId}`,
      partition,
      sortKey: { prefix: keys.SUPPRESSION_PREFIX },
      newestFirst: false,
      isPosition: isAddressPosition,
    };
  }
  // The one address: its key as the prefix (longer addresses that start with it are read and dropped).
  return {
    id: `suppressions/${deploymentId}/${emailKey}`,
    partition,
    sortKey: { prefix: keys.suppression(deploymentId, emailKey).sk },
    newestFirst: false,
    isPosition: (position) => position === '',
  };
}

export const suppressionListing: SuppressionListing = {
  page(deploymentId, email, window) {
    const emailKey = email === undefined ? undefined : suppressionKeyOf(email);
    const exact = emailKey === undefined ? undefined : keys.suppression(deploymentId, emailKey).sk;
    const resolve = (rows: Item[]) => ({
      items: rows.map((row) =>
        exact === undefined || row.sk === exact ? decodeSuppression(row) : undefined,
      ),
      requests: 0,
    });
    return readPage({ source: listSource(deploymentId, emailKey), resolve }, window);
  },
};

export const suppressionAdding: SuppressionAdding = {
  async add(suppression) {
    // One write answers with the suppression that stands: this one, or the one there before.
    const { Attributes: stored } = await documentClient().send(
      new UpdateCommand({
        ...suppressionUpsert(tableName(), suppression),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return stored ? decodeSuppression(stored) : suppression;
  },
};

export const suppressionRemoval: SuppressionRemoval = {
  async remove(deploymentId, email) {
    const { Attributes: removed } = await documentClient().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.suppression(deploymentId, suppressionKeyOf(email)),
        ReturnValues: 'ALL_OLD',
      }),
    );
    return removed !== undefined;
  },
};

/**
 * Which of some addresses the deployment suppresses: their keys read in one BatchGetItem (per 100). An
 * item found says it all: its key names the address, so nothing of it is decoded.
 */
export const suppressedAmong: SuppressionLookup['suppressedAmong'] = async (deploymentId, emails) => {
  const byKey = new Map(
    emails.map((email) => [
      keys.suppression(deploymentId, suppressionKeyOf(email)).sk,
      suppressionKeyOf(email),
    ]),
  );
  if (byKey.size === 0) return new Set();
  const pk = keys.suppressionsPartition(deploymentId);
  const found = await batchGetAll([...byKey.keys()].map((sk) => ({ pk, sk })));
  return new Set(found.flatMap((item) => byKey.get(String(item.sk)) ?? []));
};

/** The suppression a report adds, as an action of the report's transaction. */
export const suppressionAction = (suppression: Suppression) => ({
  Update: suppressionUpsert(tableName(), suppression),
});
