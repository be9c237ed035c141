import { JwtVerifier } from 'aws-jwt-verify/jwt-verifier';
import { apiKeyDigest } from '#lib/auth/api-keys';
import { createAuthenticator } from '#lib/auth/authenticate';
import type { ConsoleUser } from '#lib/domain/entities';
import * as fixture from './fixture.ts';
import { type Bench, part, round, section, summarize, us } from './report.ts';

/**
 * Microseconds per verification with warm caches (the user or the tenant's keys already looked up),
 * through lib/auth's authenticator with an in-memory directory, for each kind of credential. Floors
 * from the same run: the SHA-256 of the key alone; aws-jwt-verify's verifySync alone with the same
 * key. CPU only: run before DynamoDB Local starts.
 */

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

export async function tokensSection(bench: Bench, keys: fixture.BenchKeys, batches: number) {
  section(
    bench,
    '4. Token verification with warm caches (µs per verification; target ≤ 200 µs, aws-jwt-verify’s bar)',
  );
  const { ADMIN_KEY, EMBED_AUDIENCE, ISSUERS } = fixture;
  const admin: ConsoleUser = {
    id: 1,
    email: 'ada@example.com',
    username: 'ada',
    role: 'admin',
    active: true,
  };
  const tenant = { name: 'acme', issuer: ISSUERS.embed, jwks: { keys: [keys.embed.publicJwk] } };
  const authenticate = createAuthenticator({
    directory: {
      userByApiKeyDigest: async (digest) => (digest === apiKeyDigest(ADMIN_KEY) ? admin : undefined),
      userBySubject: async () => admin,
      embedTenant: async (name) => (name === 'acme' ? tenant : undefined),
    },
    trustedIssuers: fixture.trustedIssuers(keys),
    embedAudience: EMBED_AUDIENCE,
    principalCacheMs: 3_600_000,
    embedKeysCacheMs: 3_600_000,
  });
  const record = async (
    kind: string,
    authorization: string,
    floor: string,
    alone: () => unknown,
    batch: number,
  ) => {
    const perVerification = await perCall(() => authenticate(authorization), batches, batch);
    bench.figures.timing(`verify ${kind}`, round(perVerification.median, 1), 200, 'µs');
    bench.figures.show(`verify ${kind}: p99`, us(perVerification.p99));
    bench.figures.show(
      `verify ${kind}: floor`,
      `${floor}: ${us((await perCall(alone, batches, batch)).median)}`,
    );
  };
  await part(bench, 'token verification', async () => {
    await record(
      'API key (SHA-256 + cache hit)',
      fixture.ADMIN,
      'SHA-256 of the key',
      () => apiKeyDigest(ADMIN_KEY),
      2000,
    );
    for (const kind of ['console', 'platform', 'embed'] as const) {
      const token = {
        console: fixture.consoleToken,
        platform: fixture.platformToken,
        embed: fixture.embedToken,
      }[kind](keys);
      const audience = kind === 'embed' ? EMBED_AUDIENCE : kind;
      const verifier = JwtVerifier.create({
        issuer: ISSUERS[kind],
        audience,
        jwksUri: 'https://bench.invalid/jwks.json',
      });
      verifier.cacheJwks({ keys: [keys[kind].publicJwk] } as never);
      await record(
        `${kind} JWT (RS256)`,
        `Bearer ${token}`,
        'aws-jwt-verify verifySync',
        () => verifier.verifySync(token),
        100,
      );
    }
  });
}
