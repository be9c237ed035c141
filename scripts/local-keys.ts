import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  exportSigningKey,
  generateSigningKey,
  importSigningKey,
  type SigningKey,
  signJwt,
} from '#lib/local/sign-jwt';

/**
 * Keys of the local runtime, made at first use and kept in `.local/` (gitignored), never committed:
 * the unsubscribe signing key (a stage keeps its own in Secrets Manager) and the stand-in renderer's
 * platform signing key, whose public half `npm start` trusts as a platform issuer.
 */

const localFile = (name: string) => fileURLToPath(new URL(`../.local/${name}`, import.meta.url));

/** The issuer the stand-in renderer's tokens name; trusted only by `npm start`. */
export const LOCAL_RENDERER_ISSUER = 'http://localhost/local-renderer';

async function loadOrCreate<T>(
  file: string,
  read: (text: string) => T,
  create: () => { value: T; text: string },
): Promise<T> {
  try {
    return read(await readFile(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new Error(`${file} is not usable (${(error as Error).message}); delete it to make a new one`);
    }
  }
  const made = create();
  await mkdir(dirname(file), { recursive: true });
  try {
    // `wx`: two first starts at once must not leave each with a key the other overwrote.
    await writeFile(file, made.text, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreate(file, read, create);
    throw error;
  }
  return made.value;
}

/** Sets UNSUBSCRIBE_SIGNING_KEY from `.local/unsubscribe-key` (made at first use) unless the environment names a key. */
export async function useLocalUnsubscribeKey(): Promise<void> {
  if (process.env.UNSUBSCRIBE_SIGNING_KEY || process.env.UNSUBSCRIBE_SECRET_ARN) return;
  process.env.UNSUBSCRIBE_SIGNING_KEY = await loadOrCreate(
    process.env.UNSUBSCRIBE_KEY_FILE ?? localFile('unsubscribe-key'),
    (text) => text.trim(),
    () => {
      const value = randomBytes(32).toString('base64');
      return { value, text: `${value}\n` };
    },
  );
}

/** The stand-in renderer's signing key, made at first use. */
export function localRendererKey(): Promise<SigningKey> {
  return loadOrCreate(
    localFile('renderer-key.json'),
    (text) => importSigningKey(JSON.parse(text)),
    () => {
      const value = generateSigningKey(`local-renderer-${new Date().toISOString().slice(0, 10)}`, 'ES256');
      return { value, text: `${JSON.stringify(exportSigningKey(value), null, 2)}\n` };
    },
  );
}

/** A platform JWT of the `screenshot` session, as the renderer's; valid 5 minutes. */
export function localRendererToken(key: SigningKey): string {
  const now = Math.floor(Date.now() / 1000);
  return signJwt(
    {
      iss: LOCAL_RENDERER_ISSUER,
      aud: 'platform',
      sub: 'local-renderer',
      session: 'screenshot',
      iat: now,
      exp: now + 300,
    },
    key,
  );
}
