import { DeleteCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type Suppression,
  type SuppressionAdding,
  type SuppressionListing,
  type SuppressionLookup,
  type SuppressionRemoval,
  suppressionKeyOf,
} from '#lib/domain/suppressions/suppressions';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';

import { decodeSuppression, suppressionUpsert } from '#lib/store/codecs/suppressions';
import { batchGetAll } from '#lib/store/dynamo/batch';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { transact } from '#lib/store/dynamo/conditional';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Item } from '#lib/store/dynamo/items';
import { tableKeySchema } from '#lib/store/dynamo/keys';
import { type ListSource, readPage } from '#lib/store/dynamo/paging';
import { absent } from '#lib/store/dynamo/update-expression';
import { eventPut } from '#lib/store/webhooks/outbox';

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
  add: (suppression, event) => (event ? addWithEvent(suppression, event) : upsert(suppression)),
};

/** One write answers with the suppression that stands: this one, or the one there before. */
async function upsert(suppression: Suppression): Promise<Suppression> {
  const { Attributes: stored } = await documentClient().send(
    new UpdateCommand({ ...suppressionUpsert(tableName(), suppression), ReturnValues: 'ALL_NEW' }),
  );
  return stored ? decodeSuppression(stored) : suppression;
}

/**
 * The addition and its `suppression.added` event in one transaction, on condition that the address
 * is not suppressed yet. Refused, it records nothing, and the upsert answers the suppression that stands.
 */
async function addWithEvent(suppression: Suppression, event: WebhookEvent): Promise<Suppression> {
  const add = suppressionUpsert(tableName(), suppression, [absent(tableKeySchema.partitionKey)]);
  const added = await transact<boolean>(
    () =>
      documentClient().send(new TransactWriteCommand({ TransactItems: [{ Update: add }, eventPut(event)] })),
    { written: true, cancelled: ({ failedAt }) => (failedAt(0) ? false : undefined) },
  );
  return added ? suppression : upsert(suppression);
}

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
export const suppressionAction = (suppression: Suppression, { onlyIfNew = false } = {}) => ({
  Update: {
    // Only when the addition is an event of its own: a transaction refused for it tells it stood already.
    ...suppressionUpsert(tableName(), suppression, onlyIfNew ? [absent(tableKeySchema.partitionKey)] : []),
  },
});
