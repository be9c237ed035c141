import type { ConsoleUser } from '#lib/domain/entities';
import type { TestSendStore } from '#lib/domain/runs/test-send';
import { decodeKey } from '#lib/store/codecs/keys';
import { decodeDelivery } from '#lib/store/codecs/runs';
import { decodeConsoleUser, decodeUserLink } from '#lib/store/codecs/users';
import { findNotification } from '#lib/store/dispatch/run-delivery';
import { batchGetAll } from '#lib/store/dynamo/batch';
import * as keys from '#lib/store/dynamo/item-keys';
import { deliveryPrefix } from '#lib/store/dynamo/keys';
import { queryPage } from '#lib/store/dynamo/query';
import { findDashboard } from '#lib/store/embedding/dashboards';
import { claimKey, completeKey, releaseKey } from '#lib/store/idempotency';
import { notificationIsLive } from '#lib/store/notifications/notification-guard';
import { sendNowStore } from '#lib/store/runs/send-now';
import { suppressedAmong } from '#lib/store/suppressions/suppressions';

/** A test send reads and writes as send-now does; its console users are read by key, as add-recipients reads them. */
export const testSendStore: TestSendStore = {
  findNotification,
  findDashboard,
  async consoleUsers(userIds, emails) {
    const emailKeys = new Map(emails.map((email) => [keys.userByEmail(email).pk, email]));
    const found = await batchGetAll([...userIds.map(keys.user), ...emails.map(keys.userByEmail)]);
    const users: ConsoleUser[] = [];
    const emailLinks: { email: string; userId: number }[] = [];
    for (const item of found) {
      const { pk, sk } = decodeKey(item);
      const email = emailKeys.get(pk);
      if (email !== undefined) emailLinks.push({ email, userId: decodeUserLink(item) });
      else if (sk === keys.user(0).sk) users.push(decodeConsoleUser(item));
    }
    // An e-mail names its user through a link item: the users it links to are a second round of reads.
    const linked = emailLinks.map((link) => link.userId).filter((id) => !userIds.includes(id));
    if (linked.length > 0) users.push(...(await batchGetAll(linked.map(keys.user))).map(decodeConsoleUser));
    return { users, emailLinks };
  },
  suppressedAmong,
  userRowKey: (ref, userId) => keys.userRecipient(ref.deploymentId, ref.id, userId).sk,
  isLive: notificationIsLive,
  findRun: sendNowStore.findRun,
  claimKey,
  completeKey,
  releaseKey,
  async testRunDeliveries(ref) {
    const page = await queryPage({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :deliveries)',
      ExpressionAttributeValues: {
        ':pk': keys.notificationPartition(ref.deploymentId, ref.id),
        ':deliveries': deliveryPrefix(ref.runId),
      },
      ConsistentRead: true,
    });
    return page.items.map(decodeDelivery);
  },
  claimRun: (run, deliveries, previousNoLaterThan, event, held) =>
    sendNowStore.createManualRun(run, undefined, previousNoLaterThan, event, held, deliveries),
};
