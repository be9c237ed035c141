import { JwtVerifier } from 'aws-jwt-verify/jwt-verifier';
import { apiKeyDigest } from '#lib/auth/api-keys';
import { createAuthenticator } from '#lib/auth/authenticate';
import type { ConsoleUser } from '#lib/domain/entities';
import {
  ADMIN,
  ADMIN_KEY,
  type BenchKeys,
  EMBED_AUDIENCE,
  ISSUERS,
  tokenOf,
  trustedIssuers,
} from './fixture.ts';
import { type Bench, round, section, summarize, us } from './report.ts';

/**
 * Microseconds per verification with warm caches (the user or the tenant's keys already looked up),
 * through lib/auth's authenticator with an in-memory directory, for each kind of credential. Floors
 * from the same run: the SHA-256 of the key alone; aws-jwt-verify's verifySync alone with the same
 * key. CPU only: run before DynamoDB Local starts.
 */

const admin: ConsoleUser = { id: 1, email: 'ada@example.com', username: 'ada', role: 'admin', active: true };

/** Per-call microseconds over batches (a timer read per call would cost more than an API-key check). */
async function perCall(work: () => unknown, batches: number, batchSize: number) {
  const samples: number[] = [];
  for (let b = -1; b < batches; b++) {
    const started = performance.now();
    for (let i = 0; i < batchSize; i++) await work();
    // The first batch warms up.
    if (b >= 0) samples.push(((performance.now() - started) * 1000) / batchSize);
  }
  return summarize(samples);
}

/** A credential: its Authorization header, its floor (what verifying it cannot go below) and its batch size. */
function credentials(keys: BenchKeys) {
  const jwt = (kind: keyof typeof ISSUERS) => {
    const token = tokenOf(keys, kind);
    const audience = kind === 'embed' ? EMBED_AUDIENCE : kind;
    const verifier = JwtVerifier.create({
      issuer: ISSUERS[kind],
      audience,
      jwksUri: 'https://bench.invalid/jwks',
    });
    verifier.cacheJwks({ keys: [keys[kind].publicJwk] } as never);
    const floor = { name: 'aws-jwt-verify verifySync', alone: () => verifier.verifySync(token) };
    return { kind: `${kind} JWT (RS256)`, authorization: `Bearer ${token}`, floor, batch: 100 };
  };
  const apiKey = { name: 'SHA-256 of the key', alone: () => apiKeyDigest(ADMIN_KEY) };
  const key = { kind: 'API key (SHA-256 + cache hit)', authorization: ADMIN, floor: apiKey, batch: 2000 };
  return [key, jwt('console'), jwt('platform'), jwt('embed')];
}

export async function tokensSection(bench: Bench, keys: BenchKeys, batches: number) {
  const tenant = { name: 'acme', issuer: ISSUERS.embed, jwks: { keys: [keys.embed.publicJwk] } };
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
      bench.figures.timing(`verify ${kind}`, round(perVerification.median, 1), 200, 'µs');
      bench.figures.show(`verify ${kind}: p99`, us(perVerification.p99));
      const floorMedian = (await perCall(floor.alone, batches, batch)).median;
      bench.figures.show(`verify ${kind}: floor`, `${floor.name}: ${us(floorMedian)}`);
    }
  });
}
