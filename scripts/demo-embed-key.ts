import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Fixture } from '#lib/fixtures/fixture';
import {
  exportSigningKey,
  generateSigningKey,
  importSigningKey,
  type SigningKey,
  signJwt,
} from '#lib/local/sign-jwt';
import { DEMO_FIXTURE } from './local-env.ts';

/**
 * The demo embed tenant's signing key. It is made on the developer's machine at first use and kept in
 * `.local/` (gitignored): a private key must never be committed, not even a demo one, since a copy
 * pasted into a real tenant's JWKS would let anyone with the repository sign in as that tenant.
 */

export const DEMO_TENANT = 'acme';
export const EMBED_TOKEN_LIFETIME_SECONDS = 3600;

/** `DEMO_EMBED_KEY_FILE` moves it (the tests keep theirs in a temporary directory). */
export function demoEmbedKeyFile(): string {
  return (
    process.env.DEMO_EMBED_KEY_FILE ??
    fileURLToPath(new URL('../.local/demo-embed-key.json', import.meta.url))
  );
}

export async function loadOrCreateDemoEmbedKey(
  file = demoEmbedKeyFile(),
): Promise<{ key: SigningKey; created: boolean }> {
  try {
    return { key: importSigningKey(JSON.parse(await readFile(file, 'utf8'))), created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new Error(
        `${file} is not a usable key (${(error as Error).message}); delete it to make a new one`,
      );
    }
  }
  const key = generateSigningKey(`demo-${DEMO_TENANT}-${new Date().toISOString().slice(0, 10)}`);
  await mkdir(dirname(file), { recursive: true });
  try {
    // `wx`: two first starts at once must not leave each with a key the other overwrote.
    await writeFile(file, `${JSON.stringify(exportSigningKey(key), null, 2)}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateDemoEmbedKey(file);
    throw error;
  }
  return { key, created: true };
}

/** Only the repository's demo fixture gets the local key; a SEED_FILE brings its tenants' keys itself. */
export function isDemoFixture(seedFile: string | URL): boolean {
  const path = seedFile instanceof URL ? fileURLToPath(seedFile) : resolve(seedFile);
  return path === fileURLToPath(DEMO_FIXTURE);
}

/** The demo fixture with the local key as the demo tenant's only key; other fixtures are not touched. */
export function withDemoEmbedKey(fixture: Fixture, key: SigningKey): Fixture {
  return {
    ...fixture,
    embedTenants: fixture.embedTenants.map((tenant) =>
      tenant.name === DEMO_TENANT ? { ...tenant, jwks: { keys: [key.publicJwk] } } : tenant,
    ),
  };
}

export interface EmbedTokenOptions {
  issuer: string;
  audience: string;
  externalId: string;
  email?: string;
  groups?: string[];
  securityContext?: unknown;
  lifetimeSeconds?: number;
}

/** A token as a customer's backend would sign it for one of its users. */
export function mintDemoEmbedToken(key: SigningKey, options: EmbedTokenOptions): string {
  const iat = Math.floor(Date.now() / 1000);
  return signJwt(
    {
      iss: options.issuer,
      aud: options.audience,
      sub: options.externalId,
      tenant: DEMO_TENANT,
      iat,
      exp: iat + (options.lifetimeSeconds ?? EMBED_TOKEN_LIFETIME_SECONDS),
      ...(options.email !== undefined && { email: options.email }),
      ...(options.groups !== undefined && { groups: options.groups }),
      ...(options.securityContext !== undefined && { securityContext: options.securityContext }),
    },
    key,
  );
}

/** What `npm start` prints so that a developer can try the embed path at once. */
export function demoEmbedHint(baseUrl: string): string {
  return [
    `Demo embed tenant "${DEMO_TENANT}" signs with ${demoEmbedKeyFile()}. Try:`,
    '  TOKEN=$(npm run -s embed-token -- --sub alice@acme.example)',
    `  curl -H "Authorization: Bearer $TOKEN" ${baseUrl}/v1/embed/dashboard/ops-kpis`,
  ].join('\n');
}
