import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { inParallel } from '#lib/concurrency';
import type { AddRecipientsStore, Found } from '#lib/domain/recipients/recipients';
import { decodeEmbedUser } from '#lib/store/codecs/embed-users';
import {
  decodeRecipient,
  decodeRecipientParent,
  encodeRecipient,
  propertyAttributes,
  recipientKey,
} from '#lib/store/codecs/recipients';
import { decodeConsoleUser, decodeUserLink } from '#lib/store/codecs/users';
import { batchGetAll } from '#lib/store/dynamo/batch';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { conditionHeld } from '#lib/store/dynamo/conditional';
import { ensureTimeLeft } from '#lib/store/dynamo/deadline';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Item } from '#lib/store/dynamo/items';
import type { Key } from '#lib/store/dynamo/keys';
import { notificationIsLive, recordIfLive } from '#lib/store/notifications/notification-guard';
import { createEmbedUsers } from '#lib/store/recipients/embed-users';

/** BatchGet calls in flight at once: 1000 embed users and their tenants take 11 calls, read in two waves. */
const READ_CONCURRENCY = 8;
/** Conditional single-item writes in flight at once. */
const WRITE_CONCURRENCY = 16;
/** Transactions in flight at once: 1000 new embed users take 20. */
const TRANSACTION_CONCURRENCY = 8;

/** A key, or an item read by it, as one string. */
const keyId = (key: Key | Item) => `${key.pk}\u0000${key.sk}`;

export const addRecipientsStore: AddRecipientsStore = {
  /**
   * The notification, its rows for the recipients named, tenants, users, e-mail links and embed
   * users, all in the same BatchGet calls (100 keys each): the cost follows the request, never the
   * number of recipients the notification has.
   */
  async lookUp(request) {
    const found: Found = {
      recipients: [],
      tenants: [],
      users: [],
      emailLinks: [],
      embedUsers: [],
    };
    const wanted = new Map<string, { key: Key; take: (item: Item) => void }>();
    const want = (key: Key, take: (item: Item) => void) => wanted.set(keyId(key), { key, take });
    const { notification, recipients } = request;
    if (notification) {
      want(keys.notification(notification.deploymentId, notification.id), (item) => {
        found.notification = decodeRecipientParent(item);
      });
    }
    if (recipients) {
      for (const ref of recipients.refs) {
        want(recipientKey(recipients.of, ref), (item) => found.recipients.push(decodeRecipient(item)));
      }
    }
    for (const name of request.tenants ?? []) want(keys.embedTenant(name), () => found.tenants.push(name));
    for (const id of request.userIds ?? []) {
      want(keys.user(id), (item) => found.users.push(decodeConsoleUser(item)));
    }
    for (const email of request.emails ?? []) {
      want(keys.userByEmail(email), (item) => found.emailLinks.push({ email, userId: decodeUserLink(item) }));
    }
    for (const ref of request.embedUsers ?? []) {
      want(keys.embedUser(ref.embedTenantName, ref.normalizedExternalId), (item) =>
        found.embedUsers.push(decodeEmbedUser(item)),
      );
    }
    const items = await batchGetAll(
      [...wanted.values()].map(({ key }) => key),
      { concurrency: READ_CONCURRENCY },
    );
    for (const item of items) wanted.get(keyId(item))?.take(item);
    return found;
  },

  createEmbedUsers: (notification, recipients) =>
    createEmbedUsers(notification, recipients, { concurrency: TRANSACTION_CONCURRENCY }),

  /** One conditional PutItem per row (1 WCU each; BatchWrite takes no condition), several in flight. */
  async createRecipients(notification, recipients) {
    const created = await inParallel(recipients, WRITE_CONCURRENCY, (recipient) => {
      ensureTimeLeft();
      return conditionHeld(() =>
        documentClient().send(
          new PutCommand({
            TableName: tableName(),
            Item: encodeRecipient(notification, recipient),
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      );
    });
    return recipients.filter((_, i) => !created[i]);
  },

  /**
   * One UpdateItem per row, setting only the property attributes that change: attributes this code
   * does not know (added by other features) stay as they are. The condition is the row as read.
   */
  async updateRecipients(notification, updates) {
    const applied = await inParallel(updates, WRITE_CONCURRENCY, ({ previous, next }) => {
      ensureTimeLeft();
      const before = propertyAttributes(previous.properties);
      const after = propertyAttributes(next.properties);
      const names: Record<string, string> = {};
      const values: Record<string, unknown> = {};
      const sets: string[] = [];
      const conditions = ['attribute_exists(pk)'];
      Object.keys(after)
        .filter((attribute) => after[attribute] !== before[attribute])
        .forEach((attribute, i) => {
          names[`#p${i}`] = attribute;
          values[`:p${i}`] = after[attribute];
          sets.push(`#p${i} = :p${i}`);
          if (before[attribute] === undefined) conditions.push(`attribute_not_exists(#p${i})`);
          else {
            values[`:was${i}`] = before[attribute];
            conditions.push(`#p${i} = :was${i}`);
          }
        });
      return conditionHeld(() =>
        documentClient().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: recipientKey(notification, next),
            UpdateExpression: `SET ${sets.join(', ')}`,
            ConditionExpression: conditions.join(' AND '),
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          }),
        ),
      );
    });
    return updates.filter((_, i) => !applied[i]);
  },

  notificationIsLive,
  recordIfLive,
};
