import { get } from 'node:http';
import { config } from '#lib/config';

/**
 * The key unsubscribe tokens are signed with, one per stage. Deployed, the stack creates it in
 * Secrets Manager, names it in UNSUBSCRIBE_SECRET_ARN and gives the functions that read it AWS's
 * Parameters and Secrets Lambda Extension: a local HTTP endpoint that fetches the secret with the
 * function's own role, so no function bundles the Secrets Manager client (13 KB in every cold
 * start). Locally `npm start` generates a key under `.local/` and hands it over in
 * UNSUBSCRIBE_SIGNING_KEY. Read once per container, on first use: the extension answers only once
 * the function's init is over.
 */

/** The extension's port unless the stack moved it (PARAMETERS_SECRETS_EXTENSION_HTTP_PORT). */
const EXTENSION_PORT = 2773;

let key: Promise<Buffer> | undefined;

/** GET on the extension's endpoint, authenticated by the invocation's session token as it requires. */
function getFromExtension(path: string): Promise<{ status: number; body: string }> {
  const port = Number(process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT) || EXTENSION_PORT;
  return new Promise((resolve, reject) => {
    const request = get(
      {
        host: 'localhost',
        port,
        path,
        headers: { 'X-Aws-Parameters-Secrets-Token': process.env.AWS_SESSION_TOKEN ?? '' },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
  });
}

async function readKey(): Promise<Buffer> {
  const { unsubscribeSigningKey, unsubscribeSecretArn } = config();
  if (unsubscribeSigningKey) return Buffer.from(unsubscribeSigningKey, 'base64');
  if (!unsubscribeSecretArn) {
    throw new Error('Invalid configuration: set UNSUBSCRIBE_SECRET_ARN or UNSUBSCRIBE_SIGNING_KEY');
  }
  const { status, body } = await getFromExtension(
    `/secretsmanager/get?secretId=${encodeURIComponent(unsubscribeSecretArn)}`,
  );
  // Its answer to anything but a 200 is the reason in plain text, never the secret.
  if (status !== 200) throw new Error(`The secrets extension answered ${status}: ${body.slice(0, 200)}`);
  const { SecretString } = JSON.parse(body) as { SecretString?: string };
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
