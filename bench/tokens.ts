import { createPublicKey, verify } from 'node:crypto';
import { JwtVerifier } from 'aws-jwt-verify';
import { apiKeyDigest } from '#lib/auth/api-keys';
import { createAuthenticator } from '#lib/auth/authenticate';
import type { ConsoleUser } from '#lib/domain/entities';
import type { SigningKey } from '#lib/local/sign-jwt';
import { VERIFY_MICROSECONDS } from './budgets.ts';
import {
  ADMIN,
  ADMIN_KEY,
  type BenchKeys,
  consoleToken,
  EMBED_AUDIENCE,
  embedToken,
  ISSUERS,
  platformToken,
} from './fixture.ts';
import { type Bench, part, section } from './report.ts';
import { round, summarize, us } from './stats.ts';

/**
 * Microseconds per verification with warm caches (the user or the tenant's keys already looked up),
 * through lib/auth's authenticator with an in-memory directory, for each kind of credential. Floors
 * from the same run: the SHA-256 of the key alone; aws-jwt-verify's verifySync alone with the same
 * key; node:crypto's RS256 signature check alone. CPU only: run before DynamoDB Local starts.
 */

/** Per-call microseconds over batches (a timer read per call would cost more than an API-key check). */
async function perCall(work: () => unknown, batches: number, batchSize: number) {
  for (let i = 0; i < batchSize; i++) await work();
  const samples: number[] = [];
  for (let b = 0; b < batches; b++) {
    const started = performance.now();
    for (let i = 0; i < batchSize; i++) await work();
    samples.push(((performance.now() - started) * 1000) / batchSize);
  }
  return summarize(samples);
}

function signatureAlone(token: string, key: SigningKey): () => boolean {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const publicKey = createPublicKey({ key: key.publicJwk, format: 'jwk' });
  return () =>
    verify('sha256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url'));
}

function verifySyncAlone(issuer: string, audience: string, key: SigningKey, token: string): () => unknown {
  const verifier = JwtVerifier.create({ issuer, audience, jwksUri: 'https://bench.invalid/jwks.json' });
  verifier.cacheJwks({ keys: [key.publicJwk] } as never);
  return () => verifier.verifySync(token);
}

async function measure(keys: BenchKeys, batches: number) {
  const admin: ConsoleUser = {
    id: 1,
    email: 'ada@example.com',
    username: 'ada',
    role: 'admin',
    active: true,
  };
  const tenant = {
    name: 'acme',
    issuer: ISSUERS.embed,
    jwks: { keys: [keys.embed.publicJwk as Record<string, unknown>] },
  };
  const authenticate = createAuthenticator({
    directory: {
      userByApiKeyDigest: async (digest) => (digest === apiKeyDigest(ADMIN_KEY) ? admin : undefined),
      userBySubject: async () => admin,
      embedTenant: async (name) => (name === 'acme' ? tenant : undefined),
    },
    trustedIssuers: (['console', 'platform'] as const).map((kind) => ({
      kind,
      issuer: ISSUERS[kind],
      audience: kind,
      jwks: { keys: [keys[kind].publicJwk] },
    })),
    embedAudience: EMBED_AUDIENCE,
    principalCacheMs: 3_600_000,
    embedKeysCacheMs: 3_600_000,
  });
  const figures = [
    {
      kind: 'API key (SHA-256 + cache hit)',
      microseconds: await perCall(() => authenticate(ADMIN), batches, 2000),
      floor: 'SHA-256 of the key',
      floorMicroseconds: await perCall(() => apiKeyDigest(ADMIN_KEY), batches, 2000),
      signatureMicroseconds: undefined as ReturnType<typeof summarize> | undefined,
    },
  ];
  for (const [kind, token, issuer, audience, key] of [
    ['console JWT (RS256)', consoleToken(keys), ISSUERS.console, 'console', keys.console],
    ['platform JWT (RS256)', platformToken(keys), ISSUERS.platform, 'platform', keys.platform],
    ['embed JWT (RS256)', embedToken(keys), ISSUERS.embed, EMBED_AUDIENCE, keys.embed],
  ] as const)
    figures.push({
      kind,
      microseconds: await perCall(() => authenticate(`Bearer ${token}`), batches, 100),
      floor: 'aws-jwt-verify verifySync',
      floorMicroseconds: await perCall(verifySyncAlone(issuer, audience, key, token), batches, 100),
      signatureMicroseconds: await perCall(signatureAlone(token, key), batches, 100),
    });
  return figures;
}

export async function tokensSection(bench: Bench, keys: BenchKeys, batches: number) {
  section(bench, '4. Token verification with warm caches (µs per verification)', { grid: true });
  for (const t of (await part(bench, 'token verification', () => measure(keys, batches))) ?? []) {
    bench.budgets.timing(`verify ${t.kind}`, round(t.microseconds.median, 1), VERIFY_MICROSECONDS, 'µs');
    bench.budgets.show(`verify ${t.kind}: p99`, us(t.microseconds.p99));
    bench.budgets.show(`verify ${t.kind}: floor`, `${t.floor}: ${us(t.floorMicroseconds.median)}`);
    if (t.signatureMicroseconds)
      bench.budgets.show(`verify ${t.kind}: RS256 signature alone`, us(t.signatureMicroseconds.median));
  }
}
