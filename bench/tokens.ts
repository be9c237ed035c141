import { JwtVerifier } from 'aws-jwt-verify/jwt-verifier';
import { apiKeyDigest } from '#lib/auth/api-keys';
import { createAuthenticator } from '#lib/auth/authenticate';
import type { ConsoleUser } from '#lib/domain/entities';
import * as fixture from './fixture.ts';
import { type Bench, median, round, section, us } from './report.ts';

/**
 * Microseconds per verification through lib/auth's authenticator with warm caches, for each kind of
 * credential, against its floor from the same run. CPU only: run before DynamoDB Local starts.
 */

const { ADMIN, ADMIN_KEY, EMBED_AUDIENCE, ISSUERS, jwksOf, tokenOf, trustedIssuers } = fixture;
const admin: ConsoleUser = { id: 1, email: 'ada@example.com', username: 'ada', role: 'admin', active: true };

/** Per-call microseconds over batches (a timer read per call would cost more than an API-key check). */
async function perCall(work: () => unknown, batches: number, batchSize: number) {
  const samples: number[] = [];
  for (let b = -1; b < batches; b++) {
    const started = performance.now();
    for (let i = 0; i < batchSize; i++) await work();
    if (b >= 0) samples.push(((performance.now() - started) * 1000) / batchSize);
  }
  return median(samples);
}

/** A credential: its Authorization header, its floor (what verifying it cannot go below) and its batch size. */
function credentials(keys: fixture.BenchKeys) {
  const jwt = (kind: keyof typeof ISSUERS) => {
    const token = tokenOf(keys, kind);
    const audience = kind === 'embed' ? EMBED_AUDIENCE : kind;
    const verifier = JwtVerifier.create({
      issuer: ISSUERS[kind],
      audience,
      jwksUri: 'https://bench.invalid/jwks',
    });
    verifier.cacheJwks(jwksOf(keys[kind]) as never);
    const floor = { name: 'aws-jwt-verify verifySync', alone: () => verifier.verifySync(token) };
    return { kind: `${kind} JWT (RS256)`, authorization: `Bearer ${token}`, floor, batch: 100 };
  };
  const apiKey = { name: 'SHA-256 of the key', alone: () => apiKeyDigest(ADMIN_KEY) };
  const key = { kind: 'API key (SHA-256 + cache hit)', authorization: ADMIN, floor: apiKey, batch: 2000 };
  return [key, jwt('console'), jwt('platform'), jwt('embed')];
}

export async function tokensSection(bench: Bench, keys: fixture.BenchKeys, batches: number) {
  const tenant = { name: 'acme', issuer: ISSUERS.embed, jwks: jwksOf(keys.embed) };
  const authenticate = createAuthenticator({
    directory: {
      userByApiKeyDigest: async (digest) => (digest === apiKeyDigest(ADMIN_KEY) ? admin : undefined),
      userBySubject: async () => admin,
      embedTenant: async (name) => (name === 'acme' ? tenant : undefined),
    },
    trustedIssuers: trustedIssuers(keys),
    embedAudience: EMBED_AUDIENCE,
    principalCacheMs: 3_600_000,
    embedKeysCacheMs: 3_600_000,
  });
  const title =
    '4. Token verification with warm caches (µs per verification; target ≤ 200 µs, aws-jwt-verify’s bar)';
  await section(bench, title, async () => {
    for (const { kind, authorization, floor, batch } of credentials(keys)) {
      const perVerification = await perCall(() => authenticate(authorization), batches, batch);
      bench.figures.timing(`verify ${kind}`, round(perVerification, 1), 200, 'µs');
      const floorMedian = await perCall(floor.alone, batches, batch);
      bench.figures.show(`verify ${kind}: floor`, `${floor.name}: ${us(floorMedian)}`);
    }
  });
}
