import type { TestSendStore } from '#lib/domain/test-send';
import { keys } from '#lib/store/keys';
import { recipientRepository } from '#lib/store/recipients';
import { dispatchStore } from '#lib/store/runs';

/** A test send reads and writes as send-now does, and looks its console users up as add-recipients does. */
export const testSendStore: TestSendStore = {
  findNotification: (ref) => dispatchStore.findNotification(ref),
  findDashboard: (deploymentId, dashboardId) => dispatchStore.findDashboard(deploymentId, dashboardId),
  async consoleUsers(userIds, emails) {
    const found = await recipientRepository.lookUp({ userIds, emails }, {});
    // An e-mail names its user through a link item: the users it links to are a second round of reads.
    const linked = found.emailLinks.map((link) => link.userId).filter((id) => !userIds.includes(id));
    const users =
      linked.length > 0
        ? [...found.users, ...(await recipientRepository.lookUp({ userIds: linked }, {})).users]
        : found.users;
    return { tenants: [], users, emailLinks: found.emailLinks, embedUsers: [] };
  },
  userRowKey: (ref, userId) => keys.userRecipient(ref.deploymentId, ref.id, userId).sk,
  putDeliveries: (run, deliveries) => dispatchStore.putDeliveries(run, deliveries),
  createRun: (run) => dispatchStore.createRun(run, undefined),
};
