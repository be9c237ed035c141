import { createHmac, timingSafeEqual } from 'node:crypto';
import { type AuditContext, auditEvent, type NewAuditEvent, recipientChanges } from '#lib/domain/audit/audit';
import type { NotificationRef } from '#lib/domain/notifications/notification';
import type { KindUnion, SubscriptionNonce } from '#lib/domain/recipients/recipient-kinds';
import type { RecipientOutput } from '#lib/domain/recipients/recipients';
import { normalizeExternalId } from '#lib/domain/recipients/recipients-input';
import type { JobRecipient } from '#lib/domain/runs/runs';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';
import { type EventRecorder, eventToRecord } from '#lib/domain/webhooks/recording';
import { ValidationError } from '#lib/errors';

/**
 * One-click unsubscribe (RFC 8058). Every delivery job carries a link whose token names one
 * subscription: a recipient of a notification and the nonce its recipient row was created with,
 * signed with the stage's secret key (HMAC-SHA256). The token alone authorizes removing that
 * subscription, so a token the service did not sign, or one altered in any character, is refused;
 * and once the recipient is removed and subscribed again (a new row, a new nonce) an old token
 * removes nothing. The token is the same for every message of one subscription.
 *
 * Rows stored before nonces existed have none, and their links (version 1, mailed before) name none:
 * such a token removes only a row without a nonce, so it keeps working until that subscription ends
 * and never touches a later one.
 */

type UnsubscribeRecipient = KindUnion<'unsubscribe'>;

export interface UnsubscribeTarget extends NotificationRef {
  recipient: UnsubscribeRecipient;
  /** The subscription the token was made for; absent for one stored before nonces existed. */
  subscriptionNonce?: SubscriptionNonce;
}

/** Version 1 names no subscription (rows stored before nonces); version 2 ends with the nonce. */
const UNBOUND_TOKEN_VERSION = 1;
const BOUND_TOKEN_VERSION = 2;
/** Longest token accepted: the longest embed user's identity, encoded, with room to spare. */
export const MAX_TOKEN_LENGTH = 4096;

const signatureOf = (payload: string, key: Buffer) =>
  createHmac('sha256', key).update(`unsubscribe.${payload}`).digest();

export function unsubscribeToken(target: UnsubscribeTarget, key: Buffer): string {
  const { recipient, subscriptionNonce } = target;
  const identity =
    recipient.type === 'USER'
      ? ['U', recipient.userId]
      : ['E', recipient.embedTenantName, recipient.normalizedExternalId];
  const parts =
    subscriptionNonce === undefined
      ? [UNBOUND_TOKEN_VERSION, target.deploymentId, target.id, ...identity]
      : [BOUND_TOKEN_VERSION, target.deploymentId, target.id, ...identity, subscriptionNonce];
  const payload = Buffer.from(JSON.stringify(parts)).toString('base64url');
  return `${payload}.${signatureOf(payload, key).toString('base64url')}`;
}

const refused = () =>
  new ValidationError([{ path: 'token', message: 'is not an unsubscribe token of this service' }]);

const expired = () =>
  new ValidationError([
    {
      path: 'token',
      message: 'has expired: the recipient was subscribed again since this link was sent',
    },
  ]);

const isId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

/**
 * The bytes of base64url text written exactly as the service writes it: unpadded, in its alphabet,
 * and the one text of those bytes (Node's decoder skips foreign characters and ignores the spare bits
 * of the last one, so several texts decode alike; only the canonical one is taken).
 */
function canonicalBase64url(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

/** The identity and subscription of a version 1 or 2 token's parts, or undefined for any other shape. */
function targetOf(parts: unknown): UnsubscribeTarget | undefined {
  if (!Array.isArray(parts) || !isId(parts[1]) || !isId(parts[2])) return undefined;
  const ref = { deploymentId: parts[1], id: parts[2] };
  const bound = parts[0] === BOUND_TOKEN_VERSION;
  if (!bound && parts[0] !== UNBOUND_TOKEN_VERSION) return undefined;
  const nonce = bound ? parts.at(-1) : undefined;
  if (bound && (typeof nonce !== 'string' || nonce === '')) return undefined;
  const identity = bound ? parts.slice(3, -1) : parts.slice(3);
  const subscription = nonce === undefined ? {} : { subscriptionNonce: nonce };
  if (identity[0] === 'U' && identity.length === 2 && isId(identity[1])) {
    return { ...ref, recipient: { type: 'USER', userId: identity[1] }, ...subscription };
  }
  if (
    identity[0] === 'E' &&
    identity.length === 3 &&
    typeof identity[1] === 'string' &&
    typeof identity[2] === 'string'
  ) {
    return {
      ...ref,
      recipient: { type: 'EMBED_USER', embedTenantName: identity[1], normalizedExternalId: identity[2] },
      ...subscription,
    };
  }
  return undefined;
}

/** The target a token names, once its exact text and signature check out; otherwise a 400 naming `token`. */
function readUnsubscribeToken(token: string, key: Buffer): UnsubscribeTarget {
  const [payload, signature, ...rest] = token.split('.');
  if (payload === undefined || signature === undefined || rest.length > 0) throw refused();
  const payloadBytes = canonicalBase64url(payload);
  const given = canonicalBase64url(signature);
  if (!payloadBytes || !given) throw refused();
  const expected = signatureOf(payload, key);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refused();
  let parts: unknown;
  try {
    parts = JSON.parse(payloadBytes.toString('utf8'));
  } catch {
    throw refused();
  }
  const target = targetOf(parts);
  if (!target) throw refused();
  return target;
}

/** The subscription a job goes to, as its unsubscribe link names it. */
export function unsubscribeTargetOf(job: {
  deploymentId: number;
  notificationId: number;
  recipient: JobRecipient;
  subscriptionNonce?: SubscriptionNonce;
}): UnsubscribeTarget {
  const { recipient, subscriptionNonce } = job;
  return {
    ...(subscriptionNonce !== undefined && { subscriptionNonce }),
    deploymentId: job.deploymentId,
    id: job.notificationId,
    recipient:
      recipient.type === 'USER'
        ? { type: 'USER', userId: recipient.userId }
        : {
            type: 'EMBED_USER',
            embedTenantName: recipient.embedTenantName,
            normalizedExternalId: normalizeExternalId(recipient.externalId),
          },
  };
}

export interface UnsubscribeStore {
  /**
   * Removes the target's subscription and records `eventOf` the recipient removed (and `event`), in one
   * transaction conditional on the row being the target's subscription: false (and nothing removed) when
   * the recipient's row is another subscription than the target's. Removing one that is gone changes
   * nothing, records nothing and answers true.
   */
  removeSubscription(
    target: UnsubscribeTarget,
    eventOf: (removed: RecipientOutput) => NewAuditEvent,
    event?: WebhookEvent,
  ): Promise<boolean>;
  /** Whether the recipient's row is another subscription than the target's (false when there is none). */
  isReplaced(target: UnsubscribeTarget): Promise<boolean>;
}

export interface UnsubscribeAnswer {
  unsubscribed: true;
  deploymentId: number;
  notificationId: number;
}

/**
 * Removes the token's subscription; the same answer every time. A token of an earlier subscription
 * of the recipient is a 400 and removes nothing.
 */
export async function unsubscribe(
  store: Pick<UnsubscribeStore, 'removeSubscription'>,
  token: string,
  key: Buffer,
  request: { recorder: EventRecorder; now: number; requestId: string | null },
): Promise<UnsubscribeAnswer> {
  const target = readUnsubscribeToken(token, key);
  const context: AuditContext = { actor: { type: 'RECIPIENT' }, requestId: request.requestId };
  const eventOf = (removed: RecipientOutput) =>
    auditEvent(context, target, 'unsubscribed', recipientChanges([removed]), request.now);
  const data = { deploymentId: target.deploymentId, notificationId: target.id, recipient: target.recipient };
  const event = await eventToRecord(
    request.recorder,
    target.deploymentId,
    'recipient.unsubscribed',
    data,
    request.now,
  );
  if (!(await store.removeSubscription(target, eventOf, event))) throw expired();
  return { unsubscribed: true, deploymentId: target.deploymentId, notificationId: target.id };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

const page = (body: string) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Unsubscribe</title></head>
<body>
${body}
</body>
</html>
`;

/**
 * The page a GET of the link shows: it changes nothing (mail scanners follow links), and its button
 * POSTs to the same address; for a token of an earlier subscription it says the link has expired,
 * and has no button. No script, no style from elsewhere: the page's policy forbids both.
 */
export async function unsubscribePage(
  store: Pick<UnsubscribeStore, 'isReplaced'>,
  token: string,
  key: Buffer,
): Promise<string> {
  const target = readUnsubscribeToken(token, key);
  if (await store.isReplaced(target)) {
    return page(`<h1>This unsubscribe link has expired</h1>
<p>You were subscribed to this notification again since this link was sent. Use the link in the latest e-mail you received from it.</p>`);
  }
  const action = `?token=${encodeURIComponent(token)}`;
  return page(`<h1>Unsubscribe from this notification?</h1>
<p>You will no longer receive this scheduled dashboard by e-mail.</p>
<form method="post" action="${escapeHtml(action)}"><button type="submit">Unsubscribe</button></form>`);
}

/** What the page allows: nothing but the form posting back to this service. */
export const UNSUBSCRIBE_PAGE_POLICY =
  "default-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
