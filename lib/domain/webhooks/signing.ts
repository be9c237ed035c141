import { createHmac } from 'node:crypto';

/**
 * Messages signed as Standard Webhooks defines them (https://www.standardwebhooks.com): the signed
 * content is `<webhook-id>.<webhook-timestamp>.<body>`, the key the bytes a secret's base64 after
 * `whsec_`, the signature `v1,` + base64 of its HMAC-SHA256. While a rotated secret still signs,
 * the header carries one signature per secret, separated by spaces, and a receiver accepts any.
 */

const SECRET_PREFIX = 'whsec_';
/** Bytes of a secret's key. */
export const SECRET_BYTES = 32;

/** A secret as shown to its owner: `whsec_` + base64 of its key's bytes. */
export const secretOf = (key: Buffer) => `${SECRET_PREFIX}${key.toString('base64')}`;

const keyOf = (secret: string) => Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');

function signature(secret: string, messageId: string, timestampSeconds: number, body: string) {
  const mac = createHmac('sha256', keyOf(secret))
    .update(`${messageId}.${timestampSeconds}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

/** The headers of one attempt of a message: the same id every attempt, the attempt's own time. */
export function signedHeaders(
  secrets: readonly string[],
  messageId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets
      .map((secret) => signature(secret, messageId, timestampSeconds, body))
      .join(' '),
  };
}
