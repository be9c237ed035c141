import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import type { StoredRecipient } from '#lib/domain/recipients/recipients-resolution';
import { decodeCounter } from '#lib/store/codecs/counters';
import {
  decodeDashboard,
  decodeDashboardLink,
  encodeDashboard,
  encodeDashboardLink,
} from '#lib/store/codecs/dashboards';
import { decodeDeployment, encodeDeployment } from '#lib/store/codecs/deployments';
import {
  decodeDueEntry,
  decodeRunProgress,
  decodeSendNowMarker,
  encodeSendNowMarker,
} from '#lib/store/codecs/dispatch';
import { decodeEmbedUser, encodeEmbedUser } from '#lib/store/codecs/embed-users';
import {
  decodeIdempotencyRecord,
  encodeIdempotencyClaim,
  encodeIdempotencyResult,
} from '#lib/store/codecs/idempotency';
import { decodeKey } from '#lib/store/codecs/keys';
import {
  decodeNotification,
  decodeScheduledNotification,
  decodeScheduleEntry,
  dueAttributes,
  encodeNotification,
  encodeNotificationField,
  encodeScheduleEntry,
  legacyLists,
  notificationAttribute,
  scheduledNotificationOf,
  scheduleMarksOf,
} from '#lib/store/codecs/notifications';
import { decodePurge, encodePurge } from '#lib/store/codecs/purges';
import {
  decodeRecipient,
  decodeRecipientParent,
  decodeRecipientRow,
  encodeRecipient,
  propertyAttributes,
  recipientKey,
  sameSubscriptionCondition,
  subscriptionNonceOf,
} from '#lib/store/codecs/recipients';
import {
  decodeDelivery,
  decodeDeliveryState,
  decodeRun,
  encodeDelivery,
  encodeRun,
  retentionOf,
} from '#lib/store/codecs/runs';
import {
  countKey,
  decodeLink,
  decodeSelfServiceSettings,
  embedOwnerAttribute,
  encodeLink,
  encodeSelfServiceSettings,
  linkKey,
} from '#lib/store/codecs/self-service';
import { checkItem, itemKey, MalformedItemError } from '#lib/store/codecs/stored-item';
import { decodeSuppression, suppressionUpsert } from '#lib/store/codecs/suppressions';
import {
  decodeConsoleUser,
  decodeEmbedTenant,
  decodeUserLink,
  encodeApiKeyLink,
  encodeConsoleUser,
  encodeEmailLink,
  encodeEmbedTenant,
  encodeSubjectLink,
} from '#lib/store/codecs/users';
import * as indexKeys from '#lib/store/dynamo/index-keys';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Item } from '#lib/store/dynamo/items';
import { dueIndexKeys } from '#lib/store/dynamo/keys';
import { sampleNotification, sampleRun } from '#test/support/store-samples';

/**
 * The item shapes on their own, with no table: what each encode writes, attribute by attribute, and
 * what each decode makes of an item of the wrong shape (an error naming the entity, its key and the
 * field). test/store/codecs.test.ts sends each encoded item through the table and back.
 */

const notification = sampleNotification;

/** A run as the malformed cases start from. */
const storedRun = {
  runId: 'r1',
  deploymentId: 9,
  notificationId: 901,
  trigger: 'schedule',
  scheduledFor: '2026-01-02T03:04:05.006Z',
  createdAt: '2026-01-02T03:04:06.000Z',
  status: 'completed',
  skipReason: null,
  recipients: { queued: 0, skipped: 0, delivered: 0, failed: 0 },
  completedAt: null,
} as const;

/** The error decode throws for `item`, checked to be a MalformedItemError. */
function decodeError(decode: (item: Item) => unknown, item: Item): MalformedItemError {
  try {
    decode(item);
  } catch (error) {
    expect(error).toBeInstanceOf(MalformedItemError);
    return error as MalformedItemError;
  }
  throw new Error('decoded a malformed item');
}

describe('a stored shape', () => {
  it('is built on the first item checked against it, once, and checks every item after', () => {
    const builds: number[] = [];
    const counted = () => {
      builds.push(1);
      return z.looseObject({ id: z.int() });
    };
    expect(builds).toHaveLength(0);
    expect(checkItem('thing', counted, { id: 1 }).id).toBe(1);
    expect(checkItem('thing', counted, { id: 2 }).id).toBe(2);
    expect(() => checkItem('thing', counted, { pk: 'THING#3', sk: 'THING', id: 'x' })).toThrow(
      MalformedItemError,
    );
    expect(builds).toHaveLength(1);
  });
});

describe('a malformed stored item is an error naming the entity, its key and the field', () => {
  const cases: [string, (item: Item) => unknown, Item, string][] = [
    [
      'console user',
      decodeConsoleUser,
      { ...keys.user(7), id: '7', email: 'x@y.z', username: 'x', role: 'admin' },
      'Stored console user item USER#7 / USER is malformed: id is not of type number',
    ],
    [
      'user link',
      decodeUserLink,
      { ...keys.userByEmail('x@y.z'), entity: 'USER_EMAIL' },
      'Stored user link item USER_EMAIL#… / USER_EMAIL is malformed: userId is missing (type number)',
    ],
    [
      'embed tenant',
      decodeEmbedTenant,
      { ...keys.embedTenant('acme'), name: 'acme', issuer: 'i', jwks: { keys: 'none' } },
      'Stored embed tenant item EMBED_TENANT#… / EMBED_TENANT is malformed: jwks.keys is not of type array',
    ],
    [
      'dashboard',
      decodeDashboard,
      { ...keys.dashboard('d'), id: 1, deploymentId: 1, publicId: 'd', sharedWithTenants: 'acme' },
      'Stored dashboard item DASHBOARD#… / DASHBOARD is malformed: sharedWithTenants is not of type array',
    ],
    [
      'dashboard link',
      (item) => decodeDashboardLink(item, 1),
      { ...keys.dashboardById(1, 2), dashboardId: 2 },
      'Stored dashboard link item DEPLOYMENT#1#DASHBOARD#2 / DASHBOARD_LINK is malformed: publicId is missing (type string)',
    ],
    [
      'deployment',
      decodeDeployment,
      { ...keys.deployment(1), id: 1 },
      'Stored deployment item DEPLOYMENT#1 / DEPLOYMENT is malformed: name is missing (type string)',
    ],
    [
      'embed user',
      decodeEmbedUser,
      {
        ...keys.embedUser('acme', 'mia@acme.com'),
        embedUserId: 1.5,
        embedTenantName: 'acme',
        externalId: 'm',
        email: 'm',
      },
      'Stored embed user item EMBED_USER#…#… / EMBED_USER is malformed: embedUserId is not of type int',
    ],
    [
      'notification',
      decodeNotification,
      { ...encodeNotification(notification), notificationFormat: 'gif' },
      'Stored notification item DEPLOYMENT#9#NOTIFICATION#901 / NOTIFICATION is malformed: notificationFormat is not an allowed value',
    ],
    [
      'notification JSON text',
      decodeNotification,
      { ...encodeNotification(notification), filtersJson: '[{' },
      'Stored notification item DEPLOYMENT#9#NOTIFICATION#901 / NOTIFICATION is malformed: filtersJson is not JSON text',
    ],
    [
      'notification list',
      decodeNotification,
      { ...encodeNotification(notification), timeGrainsJson: '{}' },
      'Stored notification item DEPLOYMENT#9#NOTIFICATION#901 / NOTIFICATION is malformed: timeGrainsJson is not a list',
    ],
    [
      'notification list element',
      decodeNotification,
      { ...encodeNotification(notification), filtersJson: '[{"operator":"equals"}]' },
      'Stored notification item DEPLOYMENT#9#NOTIFICATION#901 / NOTIFICATION is malformed: filtersJson holds an element of another shape',
    ],
    [
      'done idempotency record',
      decodeIdempotencyRecord,
      {
        ...keys.idempotencyRecord(9, 'USER#1', 'k'),
        state: 'done',
        fingerprint: 'f',
        owner: 'o',
        notificationJson: '{"id":901}',
      },
      'Stored notification item ? / ? is malformed: deploymentId is missing (type number)',
    ],
    [
      'delivery',
      decodeDelivery,
      {
        ...keys.delivery(9, 901, 'r1', 'd1'),
        recipientKey: 'USER#7',
        recipient: { type: 'USER', userId: 7 },
        status: 'queued',
      },
      'Stored delivery item DEPLOYMENT#9#NOTIFICATION#901 / DELIVERY#…#… is malformed: recipient.email is missing (type string)',
    ],
    [
      'due-index entry',
      (item) => decodeDueEntry(item, 3),
      { ...keys.scheduleEntry(9, 901), entity: 'SCHEDULE', deploymentId: 9, id: 901 },
      'Stored due entry item DEPLOYMENT#9#NOTIFICATION#901 / NOTIFICATION#SCHEDULE is malformed: gsi3sk is missing (type string)',
    ],
    [
      'send-now marker',
      decodeSendNowMarker,
      { ...keys.sendNowMarker(9, 901), entity: 'SEND_NOW', lastAt: '2026' },
      'Stored send-now marker item DEPLOYMENT#9#NOTIFICATION#901 / SEND_NOW is malformed: lastAt is not of type number',
    ],
    [
      'recipient row',
      decodeRecipient,
      { ...keys.userRecipient(9, 901, 7), type: 'USER' },
      'Stored recipient row item DEPLOYMENT#9#NOTIFICATION#901 / RECIPIENT#USER#7 is malformed: userId is missing (type number)',
    ],
    [
      'recipient row of an unknown kind',
      decodeRecipient,
      { ...keys.userRecipient(9, 901, 7), type: 'SLACK' },
      'Stored recipient row item DEPLOYMENT#9#NOTIFICATION#901 / RECIPIENT#USER#7 is malformed: type is not an allowed value',
    ],
    [
      'idempotency record',
      decodeIdempotencyRecord,
      { ...keys.idempotencyRecord(9, 'USER#1', 'k'), state: 'done', fingerprint: 'f', owner: 'o' },
      'Stored idempotency record item DEPLOYMENT#9#IDEMPOTENCY#…#… / IDEMPOTENCY is malformed: notificationJson is missing',
    ],
    [
      'run',
      decodeRun,
      {
        ...keys.run(9, 901, 'r1'),
        runId: 'r1',
        deploymentId: 9,
        notificationId: 901,
        trigger: 'schedule',
        scheduledFor: 'x',
        createdAt: 'x',
        status: 'done',
        skipReason: null,
        recipients: { queued: 0, skipped: 0 },
      },
      'Stored run item DEPLOYMENT#9#NOTIFICATION#901 / RUN#… is malformed: status is not an allowed value',
    ],
    [
      'counter',
      (item) => decodeCounter(item, keys.counter('notification')),
      { value: -1 },
      'Stored counter item COUNTER#… / COUNTER is malformed: value fails its check (too_small)',
    ],
    [
      'idempotency record of an unknown state',
      decodeIdempotencyRecord,
      { ...keys.idempotencyRecord(9, 'USER#1', 'k'), state: 'gone', fingerprint: 'f', owner: 'o' },
      'Stored idempotency record item DEPLOYMENT#9#IDEMPOTENCY#…#… / IDEMPOTENCY is malformed: state is not an allowed value',
    ],
    [
      'delivery of an unknown status',
      decodeDelivery,
      {
        ...keys.delivery(9, 901, 'r1', 'd1'),
        recipientKey: 'USER#7',
        recipient: { type: 'USER', userId: 7, email: 'e', username: 'u' },
        status: 'lost',
      },
      'Stored delivery item DEPLOYMENT#9#NOTIFICATION#901 / DELIVERY#…#… is malformed: status is not an allowed value',
    ],
    [
      'due run',
      (item) => decodeDueEntry(item, 3),
      { ...keys.run(9, 901, 'r1'), entity: 'RUN', deploymentId: 9, notificationId: 901, runId: 'r1' },
      'Stored run item DEPLOYMENT#9#NOTIFICATION#901 / RUN#… is malformed: gsi3sk is missing (type string)',
    ],
    [
      'run in progress',
      (item) => decodeRunProgress(item),
      { ...encodeRun(storedRun), cursor: 7 },
      'Stored run item DEPLOYMENT#9#NOTIFICATION#901 / RUN#… is malformed: cursor is not of type string',
    ],
    [
      'schedule entry',
      decodeScheduleEntry,
      { ...keys.scheduleEntry(9, 901), humanReadableSchedule: 'h', upcoming: [], signature: 's' },
      'Stored schedule entry item DEPLOYMENT#9#NOTIFICATION#901 / NOTIFICATION#SCHEDULE is malformed: scheduleVersion is missing (type number)',
    ],
    [
      'notification hold',
      decodeNotification,
      {
        ...encodeNotification(notification),
        hold: { pause: { until: 'soon', reason: null }, suspended: false },
      },
      'Stored notification item DEPLOYMENT#9#NOTIFICATION#901 / NOTIFICATION is malformed: hold.pause.until is not of type number',
    ],
    [
      'notification owner',
      decodeNotification,
      { ...encodeNotification(notification), owner: { type: 'SLACK' } },
      'Stored notification item DEPLOYMENT#9#NOTIFICATION#901 / NOTIFICATION is malformed: owner.type is not an allowed value',
    ],
    [
      'notification schedule marks',
      scheduleMarksOf,
      { ...encodeNotification(notification), scheduleVersion: 1.5 },
      'Stored notification item DEPLOYMENT#9#NOTIFICATION#901 / NOTIFICATION is malformed: scheduleVersion is not of type int',
    ],
    [
      'recipient parent',
      decodeRecipientParent,
      { ...keys.notification(9, 901), deploymentId: 9, id: 901 },
      'Stored notification item DEPLOYMENT#9#NOTIFICATION#901 / NOTIFICATION is malformed: dashboardId is missing (type number)',
    ],
    [
      'recipient row’s nonce',
      subscriptionNonceOf,
      { ...keys.userRecipient(9, 901, 7), subscriptionNonce: 1 },
      'Stored recipient row item DEPLOYMENT#9#NOTIFICATION#901 / RECIPIENT#USER#7 is malformed: subscriptionNonce is not of type string',
    ],
    [
      'recipient row’s properties',
      decodeRecipient,
      {
        ...keys.embedRecipient(9, 901, 'acme', 'mia'),
        type: 'EMBED_USER',
        embedTenantName: 'acme',
        normalizedExternalId: 'mia',
        externalId: 'Mia',
        embedUserId: 5,
        email: 'm',
        groupsJson: '[',
      },
      'Stored recipient row item DEPLOYMENT#9#NOTIFICATION#901 / RECIPIENT#EMBED_USER#…#… is malformed: groupsJson is not JSON text',
    ],
    [
      'recipient row read by the dispatcher',
      decodeRecipientRow,
      { pk: 'DEPLOYMENT#9#NOTIFICATION#901', type: 'USER', userId: 7 },
      'Stored recipient row item DEPLOYMENT#9#NOTIFICATION#901 / ? is malformed: sk is missing (type string)',
    ],
    [
      'self-service settings',
      decodeSelfServiceSettings,
      { ...keys.embedTenant('acme'), selfServiceEnabled: 'yes' },
      'Stored embed tenant item EMBED_TENANT#… / EMBED_TENANT is malformed: selfServiceEnabled is not of type boolean',
    ],
    [
      'self-service link',
      decodeLink,
      { ...keys.selfServiceLink('acme', 'mia', 901), deploymentId: 9 },
      'Stored self-service link item EMBED_USER#…#… / SELF_SERVICE#000000000000901 is malformed: id is missing (type number)',
    ],
    [
      'suppression',
      decodeSuppression,
      {
        ...keys.suppression(9, 'eve@example.com'),
        deploymentId: 9,
        email: 'eve@example.com',
        reason: 'spam',
        createdAt: 'x',
        source: null,
      },
      'Stored suppression item DEPLOYMENT#9#SUPPRESSIONS / EMAIL#… is malformed: reason is not an allowed value',
    ],
    [
      'tombstone',
      decodePurge,
      { ...keys.purge(9, 901), deploymentId: 9, notificationId: 901, deletedAt: 'yesterday', sweepAfter: 1 },
      'Stored purge item PURGE#9#901 / PURGE is malformed: deletedAt fails its check (invalid_format)',
    ],
  ];

  it.each(cases)('%s', (_, decode, item, message) => {
    expect(decodeError(decode, item).message).toBe(message);
  });

  it('never repeats a free-text key part or a stored value: they can be personal data', () => {
    const item = {
      ...keys.embedUser('acme', 'mia@acme.com'),
      embedUserId: 1,
      embedTenantName: 'acme',
      email: 'mia@acme.com',
    };
    const error = decodeError(decodeEmbedUser, item);
    expect(error.message).toContain('externalId');
    expect(error.message).not.toMatch(/mia|acme/);
  });
});

describe('what each encode writes, attribute by attribute, and its decode reads back', () => {
  it('a console user, its links and an embed tenant', () => {
    const user = { id: 71, email: 'Eve@Example.com', username: 'eve', role: 'admin', active: true } as const;
    expect(encodeConsoleUser(user)).toEqual({ ...keys.user(71), entity: 'USER', ...user });
    expect(decodeConsoleUser(encodeConsoleUser(user))).toEqual(user);
    // Absent reads as inactive.
    const { active: _, ...unsaid } = encodeConsoleUser(user);
    expect(decodeConsoleUser(unsaid).active).toBe(false);
    expect(encodeEmailLink('Eve@Example.com', 71)).toEqual({
      ...keys.userByEmail('eve@example.com'),
      entity: 'USER_EMAIL',
      userId: 71,
    });
    expect(encodeSubjectLink('sub-eve', 71)).toEqual({
      ...keys.userBySubject('sub-eve'),
      entity: 'USER_SUBJECT',
      userId: 71,
    });
    expect(encodeApiKeyLink('ab12', 71)).toEqual({ ...keys.apiKey('ab12'), entity: 'API_KEY', userId: 71 });
    expect(decodeUserLink(encodeApiKeyLink('ab12', 71))).toBe(71);
    const inline = { name: 'acme', issuer: 'https://acme.example', jwks: { keys: [{ kty: 'EC' }] } };
    expect(encodeEmbedTenant(inline)).toEqual({
      ...keys.embedTenant('acme'),
      entity: 'EMBED_TENANT',
      ...inline,
    });
    expect(decodeEmbedTenant(encodeEmbedTenant(inline))).toEqual(inline);
    const remote = {
      name: 'globex',
      issuer: 'https://globex.example',
      jwksUri: 'https://globex.example/jwks',
    };
    expect(encodeEmbedTenant(remote)).toEqual({
      ...keys.embedTenant('globex'),
      entity: 'EMBED_TENANT',
      ...remote,
    });
    expect(decodeEmbedTenant(encodeEmbedTenant(remote))).toEqual(remote);
  });

  it('a deployment, a dashboard and its link', () => {
    expect(encodeDeployment({ id: 9, name: 'Production' })).toEqual({
      ...keys.deployment(9),
      entity: 'DEPLOYMENT',
      id: 9,
      name: 'Production',
    });
    expect(decodeDeployment(encodeDeployment({ id: 9, name: 'Production' }))).toEqual({
      id: 9,
      name: 'Production',
    });
    const dashboard = {
      id: 90,
      deploymentId: 9,
      publicId: 'sales',
      title: 'Sales',
      published: true,
      allowEmbed: true,
      sharedWithAllEmbedUsers: true,
      sharedWithTenants: ['acme'],
    };
    expect(encodeDashboard(dashboard)).toEqual({
      ...keys.dashboard('sales'),
      entity: 'DASHBOARD',
      ...dashboard,
    });
    expect(decodeDashboard(encodeDashboard(dashboard))).toEqual(dashboard);
    expect(decodeDashboard({ ...keys.dashboard('bare'), id: 91, deploymentId: 9, publicId: 'bare' })).toEqual(
      {
        id: 91,
        deploymentId: 9,
        publicId: 'bare',
        title: '',
        published: false,
        allowEmbed: false,
        sharedWithAllEmbedUsers: false,
        sharedWithTenants: [],
      },
    );
    expect(encodeDashboardLink(dashboard)).toEqual({
      ...keys.dashboardById(9, 90),
      entity: 'DASHBOARD_LINK',
      dashboardId: 90,
      publicId: 'sales',
    });
    expect(decodeDashboardLink(encodeDashboardLink(dashboard), 9)).toEqual({
      id: 90,
      deploymentId: 9,
      publicId: 'sales',
    });
  });

  it('an embed user, keyed by its normalized externalId', () => {
    const user = {
      embedUserId: 5,
      embedTenantName: 'acme',
      externalId: ' Mia@Acme.com ',
      email: 'mia@acme.com',
    };
    expect(encodeEmbedUser(user)).toEqual({
      ...keys.embedUser('acme', 'mia@acme.com'),
      entity: 'EMBED_USER',
      ...user,
    });
    expect(decodeEmbedUser(encodeEmbedUser(user))).toEqual(user);
  });

  it('a notification: its keys, its index entries, its fields, JSON text lists, createdAt and version', () => {
    const owner = { type: 'USER', userId: 4, email: 'dave@example.com' } as const;
    const item = encodeNotification({ ...notification, owner }, 3, '2026-01-02T03:04:05.006Z');
    expect(item).toEqual({
      ...keys.notification(9, 901),
      gsi1pk: 'DEPLOYMENT#9#NOTIFICATIONS',
      gsi1sk: '000000000000901',
      gsi2pk: 'DEPLOYMENT#9#DASHBOARD#90#NOTIFICATIONS',
      gsi2sk: '000000000000901',
      gsi4pk: 'DEPLOYMENT#9#OWNER#USER#4#NOTIFICATIONS',
      gsi4sk: '000000000000901',
      entity: 'NOTIFICATION',
      id: 901,
      deploymentId: 9,
      dashboardId: 90,
      scheduleType: 'WEEKLY',
      minute: 15,
      hour: 8,
      dayOfWeek: 1,
      timezone: 'Europe/Berlin',
      isEnabled: true,
      notificationEnabled: false,
      notificationFormat: 'pdf',
      filtersJson: JSON.stringify(notification.filters),
      memberSwitchersJson: '[{"member":"Orders.status","selected":"city"}]',
      notificationAiSummary: true,
      owner,
      hold: { pause: null, suspended: false },
      createdAt: '2026-01-02T03:04:05.006Z',
      version: 3,
    });
    expect(decodeNotification(item)).toEqual({ ...notification, owner });
    expect(scheduleMarksOf(item)).toEqual({ scheduleVersion: 0, changeKey: undefined });
    expect(scheduleMarksOf({ ...item, scheduleVersion: 2, gsi3sk: 'k' })).toEqual({
      scheduleVersion: 2,
      changeKey: 'k',
    });
    // Written now and at version 0 unless told otherwise.
    const fresh = encodeNotification(notification);
    expect(fresh.version).toBe(0);
    expect(Date.parse(String(fresh.createdAt))).toBeGreaterThan(Date.parse('2026-01-01T00:00:00Z'));
    expect(notificationAttribute('filters')).toBe('filtersJson');
    expect(notificationAttribute('timezone')).toBe('timezone');
    expect(encodeNotificationField('timeGrains', [])).toBe('[]');
    expect(encodeNotificationField('hour', 8)).toBe(8);
  });

  it('a notification’s embed owner and hold read back; one lacking an owner’s field is malformed', () => {
    const owner = {
      type: 'EMBED_USER',
      embedTenantName: 'acme',
      externalId: 'Wile',
      embedUserId: 9,
    } as const;
    const hold = { pause: { until: 1_800_000_000_000, reason: 'Quarter closing' }, suspended: true };
    const item = encodeNotification({ ...notification, owner, hold, dayOfMonth: 3, customCron: '0 9 * * *' });
    expect(item.gsi4pk).toBeUndefined();
    expect(decodeNotification(item)).toEqual({
      ...notification,
      owner,
      hold,
      dayOfMonth: 3,
      customCron: '0 9 * * *',
    });
    for (const [lacking, type] of [
      [{ type: 'USER', userId: 4 }, 'USER'],
      [{ type: 'USER', email: 'd@x.y' }, 'USER'],
      [{ type: 'EMBED_USER', externalId: 'w', embedUserId: 9 }, 'EMBED_USER'],
      [{ type: 'EMBED_USER', embedTenantName: 'acme', embedUserId: 9 }, 'EMBED_USER'],
      [{ type: 'EMBED_USER', embedTenantName: 'acme', externalId: 'w' }, 'EMBED_USER'],
    ] as const)
      expect(decodeError(decodeNotification, { ...item, owner: lacking }).message).toBe(
        `Stored notification item DEPLOYMENT#9#NOTIFICATION#901 / NOTIFICATION is malformed: owner lacks a field of a ${type} owner`,
      );
  });

  it('a notification written before holds, owners, the summary switch and the JSON text lists', () => {
    const {
      hold: _,
      owner: __,
      notificationAiSummary: ___,
      filtersJson: ____,
      memberSwitchersJson: _____,
      ...older
    } = encodeNotification(notification);
    const filters = [{ member: 'A.b', operator: 'equals', value: 'x' }];
    expect(decodeNotification({ ...older, filters, timeGrains: null, owner: null })).toEqual({
      ...notification,
      filters,
      timeGrains: null,
      memberSwitchers: null,
      notificationAiSummary: false,
      owner: null,
      hold: { pause: null, suspended: false },
    });
    // The JSON text wins over a list still stored under the field's name.
    expect(decodeNotification({ ...encodeNotification(notification), filters }).filters).toEqual(
      notification.filters,
    );
    expect(legacyLists({ ...older, filters, memberSwitchers: [], memberSwitchersJson: '[]' })).toEqual([
      { field: 'filters', attribute: 'filtersJson', json: JSON.stringify(filters) },
    ]);
    expect(legacyLists(encodeNotification(notification))).toEqual([]);
  });

  it('a schedule entry, with its due-index entry while an instant is ahead, and the notification it reads with', () => {
    const upcoming = [Date.parse('2026-01-05T09:00:00Z'), Date.parse('2026-01-12T09:00:00Z')];
    const state = { humanReadableSchedule: 'At 09:00, only on Monday', signature: 's', scheduleVersion: 2 };
    const entry = encodeScheduleEntry(notification, { ...state, upcoming });
    expect(entry).toEqual({
      ...keys.scheduleEntry(9, 901),
      entity: 'SCHEDULE',
      deploymentId: 9,
      id: 901,
      ...state,
      upcoming,
      ...dueIndexKeys.notification(9, 901, upcoming[0] ?? 0),
    });
    expect(decodeScheduleEntry(entry)).toEqual({ ...state, upcoming, dueKey: entry.gsi3sk });
    const idle = encodeScheduleEntry(notification, { ...state, upcoming: [] });
    expect(idle.gsi3pk).toBeUndefined();
    expect(decodeScheduleEntry(idle).dueKey).toBeUndefined();
    expect(dueAttributes(9, 901, undefined)).toBeUndefined();
    const item = encodeNotification(notification);
    expect(decodeScheduledNotification(item, entry)).toEqual({
      notification,
      schedule: { humanReadableSchedule: state.humanReadableSchedule, upcoming },
    });
    // Before its migration, a notification without an entry reads its cron expression and nothing upcoming.
    expect(scheduledNotificationOf(notification, undefined)).toEqual({
      notification,
      schedule: { humanReadableSchedule: '15 8 * * 1', upcoming: [] },
    });
  });

  it('a recipient row of a console user and of an embed user', () => {
    const ref = { deploymentId: 9, id: 901, dashboardId: 90 };
    const user = {
      type: 'USER',
      userId: 71,
      subscribedAt: '2026-01-02T03:04:05.006Z',
      subscriptionNonce: 'n1',
    } as const;
    expect(encodeRecipient(ref, user)).toEqual({
      ...keys.userRecipient(9, 901, 71),
      ...indexKeys.recipient(ref, { type: 'USER', userId: 71 }, user.subscribedAt, 'RECIPIENT#USER#71'),
      subscribedAt: user.subscribedAt,
      subscriptionNonce: 'n1',
      entity: 'RECIPIENT',
      type: 'USER',
      userId: 71,
    });
    expect(decodeRecipient(encodeRecipient(ref, user))).toEqual(user);
    const embed: StoredRecipient = {
      type: 'EMBED_USER',
      embedTenantName: 'acme',
      normalizedExternalId: 'mia',
      externalId: 'Mia',
      embedUserId: 5,
      email: 'mia@acme.com',
      properties: { securityContext: { b: 1, a: [2] }, groups: ['g'] },
      subscribedAt: '2026-01-02T03:04:05.007Z',
      subscriptionNonce: 'n2',
    };
    const row = encodeRecipient(ref, embed);
    expect(row).toEqual({
      ...keys.embedRecipient(9, 901, 'acme', 'mia'),
      ...indexKeys.recipient(
        ref,
        { type: 'EMBED_USER', embedUserId: 5 },
        '2026-01-02T03:04:05.007Z',
        row.sk as string,
      ),
      subscribedAt: embed.subscribedAt,
      subscriptionNonce: 'n2',
      entity: 'RECIPIENT',
      type: 'EMBED_USER',
      embedTenantName: 'acme',
      normalizedExternalId: 'mia',
      externalId: 'Mia',
      embedUserId: 5,
      email: 'mia@acme.com',
      // Canonical JSON: keys sorted, so equal properties are equal text.
      securityContextJson: '{"a":[2],"b":1}',
      groupsJson: '["g"]',
    });
    expect(decodeRecipient(row)).toEqual(embed);
    expect(decodeRecipientRow(row)).toEqual({ key: row.sk, recipient: embed });
    expect(decodeRecipientParent(encodeNotification(notification))).toEqual(ref);
    expect(subscriptionNonceOf(row)).toBe('n2');
    expect(recipientKey(ref, { type: 'USER', userId: 71 })).toEqual(keys.userRecipient(9, 901, 71));
    expect(propertyAttributes({ userAttributes: [{ value: 'y', name: 'x' }] })).toEqual({
      securityContextJson: undefined,
      userAttributesJson: '[{"name":"x","value":"y"}]',
      groupsJson: undefined,
    });
  });

  it('a new recipient row draws its subscription instant and a nonce of 96 random bits', () => {
    const ref = { deploymentId: 9, id: 901, dashboardId: 90 };
    const first = encodeRecipient(ref, { type: 'USER', userId: 71 });
    const second = encodeRecipient(ref, { type: 'USER', userId: 71 });
    expect(first.subscriptionNonce).toMatch(/^[\w-]{16}$/);
    expect(second.subscriptionNonce).not.toBe(first.subscriptionNonce);
    expect(Date.parse(String(first.subscribedAt))).toBeGreaterThan(Date.parse('2026-01-01T00:00:00Z'));
    expect(first.gsi1sk).toBe(`${first.subscribedAt}#RECIPIENT#USER#71`);
    // A row written before subscription instants and nonces reads without them.
    expect(decodeRecipient({ ...keys.userRecipient(9, 901, 71), type: 'USER', userId: 71 })).toEqual({
      type: 'USER',
      userId: 71,
    });
  });

  it('the condition that a row is still the subscription of a nonce', () => {
    expect(sameSubscriptionCondition('n1')).toEqual({
      ConditionExpression: 'attribute_not_exists(pk) OR #nonce = :nonce',
      ExpressionAttributeNames: { '#nonce': 'subscriptionNonce' },
      ExpressionAttributeValues: { ':nonce': 'n1' },
    });
    expect(sameSubscriptionCondition(undefined)).toEqual({
      ConditionExpression: 'attribute_not_exists(pk) OR attribute_not_exists(#nonce)',
      ExpressionAttributeNames: { '#nonce': 'subscriptionNonce' },
    });
  });

  const run = sampleRun;
  /** 90 days (the default retention) after the run's instant, in epoch seconds. */
  const expiresAt = Math.ceil((Date.parse('2026-01-02T03:04:05.006Z') + 90 * 86_400_000) / 1000);

  it('a run, stored as pending while it dispatches, with its lease and due-index entry', () => {
    const lease = { owner: 'o', until: 1_767_323_106_000 };
    expect(encodeRun(run, lease)).toEqual({
      ...keys.run(9, 901, run.runId),
      entity: 'RUN',
      ...run,
      status: 'pending',
      expiresAt,
      leaseOwner: 'o',
      leaseUntil: lease.until,
      ...dueIndexKeys.run(9, 901, run.runId, lease.until),
    });
    expect(decodeRun(encodeRun(run, lease))).toEqual(run);
    const done = { ...run, runId: 'manual-1', status: 'skipped', skipReason: 'delivery_disabled' } as const;
    // A run id without an instant has no expiry.
    expect(encodeRun(done)).toEqual({ ...keys.run(9, 901, 'manual-1'), entity: 'RUN', ...done });
    expect(decodeRun(encodeRun(done))).toEqual(done);
    expect(retentionOf(run.runId)).toEqual({ expiresAt });
    // A run written before outcomes has no outcome counts and no completion.
    const { completedAt: _, ...older } = encodeRun(run);
    expect(decodeRun({ ...older, recipients: { queued: 2, skipped: 1 } })).toEqual(run);
  });

  it('a delivery, and what an item written before outcomes reads as', () => {
    const delivery = {
      recipientKey: 'RECIPIENT#USER#71',
      deliveryId: '0123456789abcdef',
      recipient: { type: 'USER', userId: 71, email: 'eve@example.com', username: 'eve' },
      status: 'failed',
      reason: null,
      jobId: 'job-1',
      attempts: 2,
      error: 'bounced',
      updatedAt: '2026-01-02T03:04:06.000Z',
      subscriptionNonce: 'n1',
    } as const;
    const item = encodeDelivery(run, delivery);
    const { deliveryId: _, ...attributes } = delivery;
    expect(item).toEqual({
      ...keys.delivery(9, 901, run.runId, delivery.deliveryId),
      entity: 'DELIVERY',
      ...attributes,
      expiresAt,
    });
    expect(decodeDelivery(item)).toEqual(delivery);
    const { subscriptionNonce: __, ...withoutNonce } = delivery;
    expect(encodeDelivery(run, withoutNonce)).not.toHaveProperty('subscriptionNonce');
    const embedRecipient = {
      type: 'EMBED_USER',
      embedTenantName: 'acme',
      externalId: 'Mia',
      embedUserId: 5,
      email: 'mia@acme.com',
    } as const;
    const base = { ...keys.delivery(9, 901, run.runId, 'd1'), recipientKey: 'k', recipient: embedRecipient };
    expect(decodeDelivery({ ...base, status: 'queued' })).toEqual({
      recipientKey: 'k',
      deliveryId: 'd1',
      recipient: embedRecipient,
      status: 'queued',
      reason: null,
      jobId: null,
      attempts: 1,
      error: null,
      updatedAt: '',
    });
    expect(decodeDelivery({ ...base, status: 'skipped' }).attempts).toBe(0);
    const key = keys.delivery(9, 901, run.runId, 'd1');
    expect(decodeDeliveryState({ status: { S: 'failed' }, attempts: { N: '3' } }, key)).toEqual({
      status: 'failed',
      attempts: 3,
    });
    expect(decodeDeliveryState({ status: { S: 'skipped' } }, key)).toEqual({
      status: 'skipped',
      attempts: 0,
    });
    expect(decodeDeliveryState({ status: { S: 'queued' } }, key)).toEqual({ status: 'queued', attempts: 1 });
    expect(() => decodeDeliveryState({ attempts: { N: '1' } }, key)).toThrow(
      'Stored delivery item DEPLOYMENT#9#NOTIFICATION#901 / DELIVERY#…#… is malformed: status is not an allowed value',
    );
  });

  it('the dispatcher’s reads: due entries, a run with its cursor, the send-now marker', () => {
    const entry = encodeScheduleEntry(notification, {
      humanReadableSchedule: 'h',
      signature: 's',
      scheduleVersion: 0,
      upcoming: [Date.parse('2026-01-05T09:00:00Z')],
    });
    expect(decodeDueEntry(entry, 3)).toEqual({
      shard: 3,
      kind: 'notification',
      deploymentId: 9,
      notificationId: 901,
      dueKey: entry.gsi3sk,
      dueAt: Date.parse('2026-01-05T09:00:00Z'),
    });
    const mark = { ...encodeNotification(notification), ...dueIndexKeys.notification(9, 901, 1_000) };
    expect(decodeDueEntry(mark, 4)).toMatchObject({ shard: 4, kind: 'change', dueAt: 1_000 });
    const leased = encodeRun(run, { owner: 'o', until: 2_000 });
    expect(decodeDueEntry(leased, 5)).toEqual({
      shard: 5,
      kind: 'run',
      deploymentId: 9,
      notificationId: 901,
      runId: run.runId,
      dueKey: leased.gsi3sk,
    });
    expect(decodeDueEntry({ entity: 'DELIVERY' }, 5)).toBeUndefined();
    expect(decodeRunProgress({ ...leased, cursor: 'RECIPIENT#USER#7' })).toEqual({
      run,
      cursor: 'RECIPIENT#USER#7',
    });
    expect(decodeRunProgress(leased).cursor).toBeUndefined();
    const marker = encodeSendNowMarker({ deploymentId: 9, id: 901 }, { at: 1_000, runId: 'r1' });
    expect(marker).toEqual({ ...keys.sendNowMarker(9, 901), entity: 'SEND_NOW', lastAt: 1_000, runId: 'r1' });
    expect(decodeSendNowMarker(marker)).toEqual({ at: 1_000, runId: 'r1' });
  });

  it('an idempotency record, claimed, then done with a notification or a run', () => {
    const key = keys.idempotencyRecord(9, 'USER#1', 'k');
    const claim = { fingerprint: 'f', owner: 'o', leaseUntil: 1_000, expiresAt: 2 };
    const claimed = encodeIdempotencyClaim(key, claim);
    expect(claimed).toEqual({ ...key, entity: 'IDEMPOTENCY', state: 'pending', ...claim });
    expect(decodeIdempotencyRecord(claimed)).toEqual({
      state: 'pending',
      fingerprint: 'f',
      owner: 'o',
      leaseUntil: 1_000,
    });
    const { leaseUntil: _, ...pending } = claimed;
    const made = encodeIdempotencyResult({ kind: 'notification', notification });
    expect(made).toEqual({ notificationJson: JSON.stringify(notification) });
    expect(decodeIdempotencyRecord({ ...pending, state: 'done', ...made })).toEqual({
      state: 'done',
      fingerprint: 'f',
      owner: 'o',
      done: { kind: 'notification', notification },
    });
    const runRef = { deploymentId: 9, id: 901, runId: 'r1' };
    const ran = encodeIdempotencyResult({ kind: 'run', run: runRef });
    expect(ran).toEqual({ runDeploymentId: 9, runNotificationId: 901, runId: 'r1' });
    expect(decodeIdempotencyRecord({ ...pending, state: 'done', ...ran }).done).toEqual({
      kind: 'run',
      run: runRef,
    });
    for (const partial of [
      { runNotificationId: 901, runId: 'r1' },
      { runDeploymentId: 9, runId: 'r1' },
      { runDeploymentId: 9, runNotificationId: 901 },
    ])
      expect(decodeError(decodeIdempotencyRecord, { ...pending, state: 'done', ...partial }).message).toBe(
        'Stored idempotency record item DEPLOYMENT#9#IDEMPOTENCY#…#… / IDEMPOTENCY is malformed: notificationJson is missing',
      );
    expect(
      decodeError(decodeIdempotencyRecord, { ...pending, state: 'done', notificationJson: '[]' }).message,
    ).toBe(
      'Stored idempotency record item DEPLOYMENT#9#IDEMPOTENCY#…#… / IDEMPOTENCY is malformed: notificationJson is not an object',
    );
    expect(
      decodeError(decodeIdempotencyRecord, { ...pending, state: 'done', notificationJson: '{' }).message,
    ).toBe(
      'Stored idempotency record item DEPLOYMENT#9#IDEMPOTENCY#…#… / IDEMPOTENCY is malformed: notificationJson is not JSON text',
    );
  });

  it('a tenant’s self-service settings, an embed owner as a refused transaction returns it, and the links', () => {
    expect(encodeSelfServiceSettings({ enabled: true, minIntervalMinutes: 30 })).toEqual({
      selfServiceEnabled: true,
      selfServiceMinIntervalMinutes: 30,
    });
    expect(
      decodeSelfServiceSettings({
        selfServiceEnabled: true,
        selfServiceMaxPerUser: 7,
        selfServiceMinIntervalMinutes: 30,
      }),
    ).toEqual({
      enabled: true,
      maxPerUser: 7,
      minIntervalMinutes: 30,
    });
    expect(decodeSelfServiceSettings({})).toEqual({ enabled: false, maxPerUser: 5, minIntervalMinutes: 60 });
    const owner = {
      type: 'EMBED_USER',
      embedTenantName: 'acme',
      externalId: ' Mia ',
      embedUserId: 5,
    } as const;
    expect(
      embedOwnerAttribute({
        owner: {
          M: {
            type: { S: 'EMBED_USER' },
            embedTenantName: { S: 'acme' },
            externalId: { S: ' Mia ' },
            embedUserId: { N: '5' },
          },
        },
      }),
    ).toEqual(owner);
    expect(
      embedOwnerAttribute({ owner: { M: { type: { S: 'USER' }, userId: { N: '4' } } } }),
    ).toBeUndefined();
    expect(embedOwnerAttribute({})).toBeUndefined();
    for (const lacking of ['embedTenantName', 'externalId', 'embedUserId']) {
      const M = {
        type: { S: 'EMBED_USER' },
        embedTenantName: { S: 'acme' },
        externalId: { S: 'm' },
        embedUserId: { N: '5' },
      };
      delete M[lacking as keyof typeof M];
      expect(() =>
        embedOwnerAttribute({
          pk: { S: 'DEPLOYMENT#9#NOTIFICATION#901' },
          sk: { S: 'NOTIFICATION' },
          owner: { M },
        }),
      ).toThrow(
        'Stored notification item DEPLOYMENT#9#NOTIFICATION#901 / NOTIFICATION is malformed: owner is not an embed owner',
      );
    }
    expect(countKey(owner)).toEqual(keys.selfServiceCount('acme', 'mia'));
    expect(linkKey(owner, 901)).toEqual(keys.selfServiceLink('acme', 'mia', 901));
    const link = encodeLink(owner, 9, 901);
    expect(link).toEqual({
      ...keys.selfServiceLink('acme', 'mia', 901),
      entity: 'SELF_SERVICE_LINK',
      deploymentId: 9,
      id: 901,
    });
    expect(decodeLink(link)).toMatchObject({ deploymentId: 9, id: 901 });
  });

  it('a suppression, as its upsert writes it, and a tombstone', () => {
    const suppression = {
      deploymentId: 9,
      email: 'Eve@Example.com',
      reason: 'hard_bounce',
      createdAt: '2026-01-02T03:04:05.006Z',
      source: { runId: 'r1', jobId: 'j1' },
    } as const;
    expect(suppressionUpsert('table', suppression)).toEqual({
      TableName: 'table',
      Key: keys.suppression(9, 'eve@example.com'),
      // Every attribute but the entity and the deployment only if absent: a repeat keeps the first reason and source.
      UpdateExpression:
        'SET #n0 = :v0, #n1 = :v1, #n2 = if_not_exists(#n2, :v2), #n3 = if_not_exists(#n3, :v3), ' +
        '#n4 = if_not_exists(#n4, :v4), #n5 = if_not_exists(#n5, :v5)',
      ExpressionAttributeNames: {
        '#n0': 'entity',
        '#n1': 'deploymentId',
        '#n2': 'email',
        '#n3': 'reason',
        '#n4': 'createdAt',
        '#n5': 'source',
      },
      ExpressionAttributeValues: {
        ':v0': 'SUPPRESSION',
        ':v1': 9,
        ':v2': 'Eve@Example.com',
        ':v3': 'hard_bounce',
        ':v4': suppression.createdAt,
        ':v5': suppression.source,
      },
    });
    expect(
      decodeSuppression({ ...keys.suppression(9, 'eve@example.com'), entity: 'SUPPRESSION', ...suppression }),
    ).toEqual(suppression);
    const purge = {
      deploymentId: 9,
      id: 901,
      deletedAt: Date.parse('2026-01-02T03:04:05.006Z'),
      sweepAfter: 5,
    };
    expect(encodePurge(purge)).toEqual({
      ...keys.purge(9, 901),
      entity: 'PURGE',
      deploymentId: 9,
      notificationId: 901,
      deletedAt: '2026-01-02T03:04:05.006Z',
      sweepAfter: 5,
      ...indexKeys.purge(9, 901, '2026-01-02T03:04:05.006Z'),
    });
    expect(decodePurge(encodePurge(purge))).toEqual(purge);
  });

  it('a counter’s value, 0 before its first id; and a key read alone', () => {
    const key = keys.counter('notification');
    expect(decodeCounter(undefined, key)).toBe(0);
    expect(decodeCounter({ ...key }, key)).toBe(0);
    expect(decodeCounter({ ...key, value: 41 }, key)).toBe(41);
    expect(decodeKey({ pk: 'A', sk: 'B', other: 1 })).toEqual({ pk: 'A', sk: 'B' });
    expect(decodeError(decodeKey, { pk: 'A' }).message).toBe(
      'Stored item item A / ? is malformed: sk is missing (type string)',
    );
  });
});

describe('a malformed item’s error', () => {
  it('names the item itself when the whole item is of another shape, and an unknown problem as invalid', () => {
    expect(new MalformedItemError('thing', 'A / B', '', 'is not an object').message).toBe(
      'Stored thing item A / B is malformed: (item) is not an object',
    );
    const error = new MalformedItemError('thing', 'A / B', 'f', 'is wrong');
    expect(error).toMatchObject({ name: 'MalformedItemError', entity: 'thing', field: 'f' });
    expect(itemKey({ pk: 'USER#12', sk: 'USER' })).toBe('USER#12 / USER');
    expect(itemKey({ pk: 'EMBED_USER#acme#Mia', sk: 12 })).toBe('EMBED_USER#…#… / ?');
    expect(itemKey({ pk: 'A#b1#C_D', sk: 'x' })).toBe('A#…#C_D / …');
    expect(itemKey({})).toBe('? / ?');
  });

  it('reads the key it is given when the item has none (an update’s returned attributes)', () => {
    const key = keys.counter('notification');
    expect(decodeError((item) => decodeCounter(item, key), { value: 'x' }).message).toBe(
      'Stored counter item COUNTER#… / COUNTER is malformed: value is not of type number',
    );
  });
});

describe('an absent value is no attribute, and no field', () => {
  it('a notification writes none for an unset field and reads none for an unset or null one', () => {
    const item = encodeNotification(notification);
    expect(item).not.toHaveProperty('dayOfMonth');
    expect(item).not.toHaveProperty('customCron');
    expect(item).not.toHaveProperty('timeGrainsJson');
    const decoded = decodeNotification({ ...item, minute: null });
    expect(decoded).not.toHaveProperty('minute');
    expect(decoded).not.toHaveProperty('dayOfMonth');
    expect(decoded).not.toHaveProperty('customCron');
  });

  it('nor a recipient row, a delivery, a done record or a tenant’s settings', () => {
    const ref = { deploymentId: 9, id: 901, dashboardId: 90 };
    const row = encodeRecipient(ref, {
      type: 'EMBED_USER',
      embedTenantName: 'acme',
      normalizedExternalId: 'mia',
      externalId: 'Mia',
      embedUserId: 5,
      email: 'm',
      properties: { groups: ['g'] },
    });
    expect(row).not.toHaveProperty('securityContextJson');
    expect(row).not.toHaveProperty('userAttributesJson');
    const older = decodeRecipient({ ...keys.userRecipient(9, 901, 7), type: 'USER', userId: 7 });
    expect(older).not.toHaveProperty('subscribedAt');
    expect(older).not.toHaveProperty('subscriptionNonce');
    const delivery = decodeDelivery({
      ...keys.delivery(9, 901, 'r1', 'd1'),
      recipientKey: 'k',
      recipient: { type: 'USER', userId: 7, email: 'e', username: 'u' },
      status: 'queued',
    });
    expect(delivery).not.toHaveProperty('subscriptionNonce');
    const done = decodeIdempotencyRecord({
      ...keys.idempotencyRecord(9, 'USER#1', 'k'),
      state: 'done',
      fingerprint: 'f',
      owner: 'o',
      runDeploymentId: 9,
      runNotificationId: 901,
      runId: 'r1',
    });
    expect(done).not.toHaveProperty('leaseUntil');
    expect(encodeSelfServiceSettings({ enabled: false })).toStrictEqual({ selfServiceEnabled: false });
  });

  it('an owner of one kind is not read as the other, whatever else it holds', () => {
    const embed = { type: 'EMBED_USER', embedTenantName: 'acme', externalId: 'w', embedUserId: 9 } as const;
    const item = encodeNotification(notification);
    expect(decodeNotification({ ...item, owner: { ...embed, userId: 4, email: 'd@x.y' } }).owner).toEqual(
      embed,
    );
    expect(
      decodeError(decodeNotification, { ...item, owner: { ...embed, type: 'USER', userId: 4 } }).message,
    ).toBe(
      'Stored notification item DEPLOYMENT#9#NOTIFICATION#901 / NOTIFICATION is malformed: owner lacks a field of a USER owner',
    );
  });

  it('an embed owner from a refused transaction without a type or a key is none, or named as “?”', () => {
    expect(embedOwnerAttribute({ owner: { M: {} } })).toBeUndefined();
    expect(() =>
      embedOwnerAttribute({ owner: { M: { type: { S: 'EMBED_USER' }, embedTenantName: { S: 'acme' } } } }),
    ).toThrow('Stored notification item ? / ? is malformed: owner is not an embed owner');
  });
});
