import { createPublicKey, verify as verifySignature } from 'node:crypto';
import { JwtVerifier } from 'aws-jwt-verify/jwt-verifier';
import { apiKeyDigest } from '#lib/auth/api-keys';
import { type CredentialDirectory, createAuthenticator } from '#lib/auth/authenticate';
import type { ConsoleUser, EmbedTenant } from '#lib/domain/entities';
import {
  ADMIN_KEY,
  type BenchKeys,
  CONSOLE_ISSUER,
  consoleToken,
  EMBED_AUDIENCE,
  EMBED_ISSUER,
  embedToken,
  PLATFORM_ISSUER,
  platformToken,
} from './fixture.ts';
import { type Summary, summarize } from './stats.ts';

/**
 * Item 4: microseconds per verification with warm caches (the user or the tenant's keys already looked
 * up), through lib/auth's authenticator with an in-memory directory, for each kind of credential.
 * Floors from the same run: the SHA-256 of the key alone; aws-jwt-verify's verifySync alone with the
 * same key; node:crypto's RS256 signature check alone.
 */

export interface TokenFigures {
  kind: string;
  microseconds: Summary;
  floorName: string;
  floorMicroseconds: Summary;
  signatureMicroseconds?: Summary;
}

const admin: ConsoleUser = { id: 1, email: 'ada@example.com', username: 'ada', role: 'admin', active: true };

function directoryFor(keys: BenchKeys): CredentialDirectory {
  const tenant: EmbedTenant = {
    name: 'acme',
    issuer: EMBED_ISSUER,
    jwks: { keys: [keys.embed.publicJwk as Record<string, unknown>] },
  };
  return {
    userByApiKeyDigest: async (digest) => (digest === apiKeyDigest(ADMIN_KEY) ? admin : undefined),
    userBySubject: async () => admin,
    embedTenant: async (name) => (name === 'acme' ? tenant : undefined),
  };
}

/** Per-call microseconds, measured over batches (a timer read per call would cost more than an API-key check). */
async function perCall(work: () => unknown, batches: number, batchSize: number): Promise<Summary> {
  for (let i = 0; i < batchSize; i++) await work();
  const samples: number[] = [];
  for (let b = 0; b < batches; b++) {
    const t0 = performance.now();
    for (let i = 0; i < batchSize; i++) await work();
    samples.push(((performance.now() - t0) * 1000) / batchSize);
  }
  return summarize(samples);
}

function signatureCheck(token: string, key: BenchKeys['console']): () => boolean {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const data = Buffer.from(`${header}.${payload}`);
  const bytes = Buffer.from(signature, 'base64url');
  const publicKey = createPublicKey({ key: key.publicJwk, format: 'jwk' });
  return () => verifySignature('sha256', data, publicKey, bytes);
}

export async function measureTokenVerification(keys: BenchKeys, batches: number): Promise<TokenFigures[]> {
  const authenticate = createAuthenticator({
    directory: directoryFor(keys),
    trustedIssuers: [
      {
        kind: 'console',
        issuer: CONSOLE_ISSUER,
        audience: 'console',
        jwks: { keys: [keys.console.publicJwk] },
      },
      {
        kind: 'platform',
        issuer: PLATFORM_ISSUER,
        audience: 'platform',
        jwks: { keys: [keys.platform.publicJwk] },
      },
    ],
    embedAudience: EMBED_AUDIENCE,
    principalCacheMs: 3_600_000,
    embedKeysCacheMs: 3_600_000,
  });
  const bareVerifier = (issuer: string, audience: string, key: BenchKeys['console'], token: string) => {
    const verifier = JwtVerifier.create({ issuer, audience, jwksUri: 'https://bench.invalid/jwks.json' });
    verifier.cacheJwks({ keys: [key.publicJwk] } as never);
    return () => verifier.verifySync(token);
  };

  const jwtKinds = [
    {
      kind: 'console JWT (RS256)',
      token: consoleToken(keys),
      issuer: CONSOLE_ISSUER,
      audience: 'console',
      key: keys.console,
    },
    {
      kind: 'platform JWT (RS256)',
      token: platformToken(keys),
      issuer: PLATFORM_ISSUER,
      audience: 'platform',
      key: keys.platform,
    },
    {
      kind: 'embed JWT (RS256)',
      token: embedToken(keys),
      issuer: EMBED_ISSUER,
      audience: EMBED_AUDIENCE,
      key: keys.embed,
    },
  ];
  const figures: TokenFigures[] = [
    {
      kind: 'API key (SHA-256 + cache hit)',
      microseconds: await perCall(() => authenticate(`Bearer ${ADMIN_KEY}`), batches, 2000),
      floorName: 'SHA-256 of the key',
      floorMicroseconds: await perCall(() => apiKeyDigest(ADMIN_KEY), batches, 2000),
    },
  ];
  for (const { kind, token, issuer, audience, key } of jwtKinds) {
    const authorization = `Bearer ${token}`;
    figures.push({
      kind,
      microseconds: await perCall(() => authenticate(authorization), batches, 100),
      floorName: 'aws-jwt-verify verifySync',
      floorMicroseconds: await perCall(bareVerifier(issuer, audience, key, token), batches, 100),
      signatureMicroseconds: await perCall(signatureCheck(token, key), batches, 100),
    });
  }
  return figures;
}
