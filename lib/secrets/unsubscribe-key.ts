import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { config } from '#lib/config';

/**
 * The key unsubscribe tokens are signed with, one per stage. Deployed, the stack creates it in
 * Secrets Manager and names it in UNSUBSCRIBE_SECRET_ARN; locally `npm start` generates one under
 * `.local/` and hands it over in UNSUBSCRIBE_SIGNING_KEY. Read once per container, at init when the
 * function asks for it then (preloadUnsubscribeKey).
 */

let key: Promise<Buffer> | undefined;

async function readKey(): Promise<Buffer> {
  const { unsubscribeSigningKey, unsubscribeSecretArn, region } = config();
  if (unsubscribeSigningKey) return Buffer.from(unsubscribeSigningKey, 'base64');
  if (!unsubscribeSecretArn) {
    throw new Error('Invalid configuration: set UNSUBSCRIBE_SECRET_ARN or UNSUBSCRIBE_SIGNING_KEY');
  }
  const { SecretString } = await new SecretsManagerClient({ region }).send(
    new GetSecretValueCommand({ SecretId: unsubscribeSecretArn }),
  );
  if (!SecretString) throw new Error('Invalid configuration: the unsubscribe secret has no value');
  return Buffer.from(SecretString, 'utf8');
}

export function unsubscribeKey(): Promise<Buffer> {
  key ??= readKey().catch((error: unknown) => {
    // A failed read is not kept: the next request tries again.
    key = undefined;
    throw error;
  });
  return key;
}

/** Starts reading the key during Lambda's init, so that no request waits for it; a failure waits for the first request. */
export function preloadUnsubscribeKey(): void {
  unsubscribeKey().catch(() => {});
}
