import { createPrivateKey, generateKeyPairSync, type JsonWebKey, type KeyObject, sign } from 'node:crypto';

/**
 * Signs JWTs for local use: the demo embed token script and the tests. The service itself only
 * verifies; it never signs.
 */

export type SigningAlgorithm = 'RS256' | 'ES256';

export interface SigningKey {
  kid: string;
  alg: SigningAlgorithm;
  privateKey: KeyObject;
  /** The public half as a JWK, ready for a JWKS. */
  publicJwk: JsonWebKey & { kid: string; alg: SigningAlgorithm; use: 'sig' };
}

export function generateSigningKey(kid: string, alg: SigningAlgorithm = 'RS256'): SigningKey {
  const { privateKey, publicKey } =
    alg === 'RS256'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    kid,
    alg,
    privateKey,
    publicJwk: { ...publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' },
  };
}

/** The private key as a JWK, for keeping on the developer's disk (never in the repository). */
export function exportSigningKey(key: SigningKey): {
  kid: string;
  alg: SigningAlgorithm;
  privateJwk: JsonWebKey;
} {
  return { kid: key.kid, alg: key.alg, privateJwk: key.privateKey.export({ format: 'jwk' }) };
}

export function importSigningKey(saved: {
  kid: string;
  alg: SigningAlgorithm;
  privateJwk: JsonWebKey;
}): SigningKey {
  const privateKey = createPrivateKey({ key: saved.privateJwk, format: 'jwk' });
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicPart } = saved.privateJwk;
  return {
    kid: saved.kid,
    alg: saved.alg,
    privateKey,
    publicJwk: { ...publicPart, kid: saved.kid, alg: saved.alg, use: 'sig' },
  };
}

export const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

export function signJwt(
  payload: Record<string, unknown>,
  key: SigningKey,
  header: Record<string, unknown> = {},
): string {
  const head = base64url(JSON.stringify({ alg: key.alg, typ: 'JWT', kid: key.kid, ...header }));
  const body = base64url(JSON.stringify(payload));
  const signingInput = `${head}.${body}`;
  const signature =
    key.alg === 'RS256'
      ? sign('sha256', Buffer.from(signingInput), key.privateKey)
      : sign('sha256', Buffer.from(signingInput), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${signingInput}.${base64url(signature)}`;
}
