/**
 * Every key shape of the single table, in one place. A key is `pk` + `sk`; free-text parts are
 * percent-encoded so that a `#` inside a name cannot collide with the separator. The access pattern
 * each one serves is listed in docs/data-model.md.
 */

export type Key = { pk: string; sk: string };

/**
 * The longest free-text key parts. DynamoDB holds 2048 bytes in a partition key and 1024 in a sort key,
 * and a percent-encoded character takes up to 9 bytes: longer parts are refused at the edge (400), or,
 * in a credential, not looked up (401), rather than failing the write or read as a 500.
 */
export const keyPartLimits = {
  /** Any free-text part once percent-encoded, so that a sort key stays under 1024 bytes. */
  encoded: 768,
  /** A dashboard's publicId, in characters (URL-safe, so encoded the same). */
  publicId: 128,
  /** An embed tenant's name as a token claims it, in characters. */
  tenantName: 128,
} as const;

const part = (value: string) => encodeURIComponent(value);

const notificationPartition = (deploymentId: number, notificationId: number) =>
  `DEPLOYMENT#${deploymentId}#NOTIFICATION#${notificationId}`;

export const RECIPIENT_PREFIX = 'RECIPIENT#';

export const keys = {
  deployment: (deploymentId: number): Key => ({ pk: `DEPLOYMENT#${deploymentId}`, sk: 'DEPLOYMENT' }),

  /** The notification shares its partition with its recipients: one Query reads both. */
  notification: (deploymentId: number, notificationId: number): Key => ({
    pk: notificationPartition(deploymentId, notificationId),
    sk: 'NOTIFICATION',
  }),
  notificationPartition,
  userRecipient: (deploymentId: number, notificationId: number, userId: number): Key => ({
    pk: notificationPartition(deploymentId, notificationId),
    sk: `${RECIPIENT_PREFIX}USER#${userId}`,
  }),
  /** Keyed by tenant and normalized externalId, so the key is known before the embed user is resolved. */
  embedRecipient: (
    deploymentId: number,
    notificationId: number,
    tenantName: string,
    normalizedExternalId: string,
  ): Key => ({
    pk: notificationPartition(deploymentId, notificationId),
    sk: `${RECIPIENT_PREFIX}EMBED_USER#${part(tenantName)}#${part(normalizedExternalId)}`,
  }),

  user: (userId: number): Key => ({ pk: `USER#${userId}`, sk: 'USER' }),
  userByEmail: (email: string): Key => ({ pk: `USER_EMAIL#${part(email.toLowerCase())}`, sk: 'USER_EMAIL' }),
  userBySubject: (subject: string): Key => ({ pk: `USER_SUBJECT#${part(subject)}`, sk: 'USER_SUBJECT' }),
  apiKey: (sha256Hex: string): Key => ({ pk: `API_KEY#${sha256Hex}`, sk: 'API_KEY' }),

  dashboard: (publicId: string): Key => ({ pk: `DASHBOARD#${part(publicId)}`, sk: 'DASHBOARD' }),

  embedTenant: (tenantName: string): Key => ({ pk: `EMBED_TENANT#${part(tenantName)}`, sk: 'EMBED_TENANT' }),
  embedUser: (tenantName: string, normalizedExternalId: string): Key => ({
    pk: `EMBED_USER#${part(tenantName)}#${part(normalizedExternalId)}`,
    sk: 'EMBED_USER',
  }),

  /** Integer id sequences (`embedUser`, …): one item per sequence, advanced with an atomic ADD. */
  counter: (sequence: string): Key => ({ pk: `COUNTER#${sequence}`, sk: 'COUNTER' }),
};

/** The table's physical shape, shared by the local runtime, the tests and the CDK stack. */
export const tableKeySchema = {
  partitionKey: 'pk',
  sortKey: 'sk',
} as const;
