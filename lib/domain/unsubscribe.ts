import { createHmac, timingSafeEqual } from 'node:crypto';
import type { NotificationRef } from '#lib/domain/recipients';
import { normalizeExternalId } from '#lib/domain/recipients-input';
import type { JobRecipient } from '#lib/domain/runs';
import { ValidationError } from '#lib/errors';

/**
 * One-click unsubscribe (RFC 8058). Every delivery job carries a link whose token names one recipient
 * of one notification, signed with the stage's secret key (HMAC-SHA256): the token alone authorizes
 * removing that recipient, so a token the service did not sign, or one altered, is refused. The token
 * is the same for every message the recipient gets from that notification.
 */

type UnsubscribeRecipient =
  | { type: 'USER'; userId: number }
  | { type: 'EMBED_USER'; embedTenantName: string; normalizedExternalId: string };

export interface UnsubscribeTarget extends NotificationRef {
  recipient: UnsubscribeRecipient;
}

const TOKEN_VERSION = 1;
/** Longest token accepted: the longest embed user's identity, encoded, with room to spare. */
export const MAX_TOKEN_LENGTH = 4096;

const signatureOf = (payload: string, key: Buffer) =>
  createHmac('sha256', key).update(`unsubscribe.${payload}`).digest();

export function unsubscribeToken(target: UnsubscribeTarget, key: Buffer): string {
  const { recipient } = target;
  const parts =
    recipient.type === 'USER'
      ? [TOKEN_VERSION, target.deploymentId, target.id, 'U', recipient.userId]
      : [
          TOKEN_VERSION,
          target.deploymentId,
          target.id,
          'E',
          recipient.embedTenantName,
          recipient.normalizedExternalId,
        ];
  const payload = Buffer.from(JSON.stringify(parts)).toString('base64url');
  return `${payload}.${signatureOf(payload, key).toString('base64url')}`;
}

const refused = () =>
  new ValidationError([{ path: 'token', message: 'is not an unsubscribe token of this service' }]);

const isId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

/** The target a token names, once its signature checks out; otherwise a 400 naming `token`. */
function readUnsubscribeToken(token: string, key: Buffer): UnsubscribeTarget {
  const [payload, signature, ...rest] = token.split('.');
  if (!payload || !signature || rest.length > 0) throw refused();
  const given = Buffer.from(signature, 'base64url');
  const expected = signatureOf(payload, key);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refused();
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw refused();
  }
  if (!Array.isArray(parts) || parts[0] !== TOKEN_VERSION || !isId(parts[1]) || !isId(parts[2]))
    throw refused();
  const ref = { deploymentId: parts[1], id: parts[2] };
  if (parts[3] === 'U' && parts.length === 5 && isId(parts[4])) {
    return { ...ref, recipient: { type: 'USER', userId: parts[4] } };
  }
  if (
    parts[3] === 'E' &&
    parts.length === 6 &&
    typeof parts[4] === 'string' &&
    typeof parts[5] === 'string'
  ) {
    return {
      ...ref,
      recipient: { type: 'EMBED_USER', embedTenantName: parts[4], normalizedExternalId: parts[5] },
    };
  }
  throw refused();
}

/** The recipient a job goes to, as its unsubscribe link names it. */
export function unsubscribeTargetOf(job: {
  deploymentId: number;
  notificationId: number;
  recipient: JobRecipient;
}): UnsubscribeTarget {
  const { recipient } = job;
  return {
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
  /** Removes the recipient's subscription; removing one that is not there changes nothing. */
  removeSubscription(target: UnsubscribeTarget): Promise<void>;
}

export interface UnsubscribeAnswer {
  unsubscribed: true;
  deploymentId: number;
  notificationId: number;
}

/** Removes the token's recipient from its notification; the same answer every time. */
export async function unsubscribe(
  store: UnsubscribeStore,
  token: string,
  key: Buffer,
): Promise<UnsubscribeAnswer> {
  const target = readUnsubscribeToken(token, key);
  await store.removeSubscription(target);
  return { unsubscribed: true, deploymentId: target.deploymentId, notificationId: target.id };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * The page a GET of the link shows: it changes nothing (mail scanners follow links), and its button
 * POSTs to the same address. No script, no style from elsewhere: the page's policy forbids both.
 */
export function unsubscribePage(token: string, key: Buffer): string {
  readUnsubscribeToken(token, key);
  const action = `?token=${encodeURIComponent(token)}`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Unsubscribe</title></head>
<body>
<h1>Unsubscribe from this notification?</h1>
<p>You will no longer receive this scheduled dashboard by e-mail.</p>
<form method="post" action="${escapeHtml(action)}"><button type="submit">Unsubscribe</button></form>
</body>
</html>
`;
}

/** What the page allows: nothing but the form posting back to this service. */
export const UNSUBSCRIBE_PAGE_POLICY =
  "default-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
